//===- tests/ir/VerifierTest.cpp - Typing rules and view index maps -------===//
#include "ir/Verifier.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
Case parseOrDie(const std::string &body) {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCase("npufuzz-case 1\n" + body, c, err)) << err.format("test");
  return c;
}
std::vector<std::string> mapOf(const Case &c, size_t opIndex) {
  std::vector<std::string> out;
  for (const IndexExpr &e : viewIndexMap(c, c.ops[opIndex]))
    out.push_back(e.str());
  return out;
}
using Strings = std::vector<std::string>;
} // namespace

TEST(Verifier, ReshapeIsAMixedRadixSplit) {
  Case c = parseOrDie("%0 = input : f32[8,64]\n%1 = reshape %0 : f32[8,4,16]\nreturn %1\n");
  EXPECT_EQ(mapOf(c, 1),
            (Strings{"(d0 * 64 + d1 * 16 + d2) floordiv 64", "(d0 * 64 + d1 * 16 + d2) mod 64"}));
  // Spot-check the map against row-major order.
  const auto map = viewIndexMap(c, c.ops[1]);
  EXPECT_EQ(map[0].eval({5, 3, 7}), 5);
  EXPECT_EQ(map[1].eval({5, 3, 7}), 3 * 16 + 7);
}

TEST(Verifier, ViewMapsOfEachKind) {
  Case c = parseOrDie("%0 = input : f32[4,6]\n"
                      "%1 = slice %0 {offsets=[1,0], sizes=[2,3], strides=[1,2]} : f32[2,3]\n"
                      "%2 = chunk %0 {axis=1, count=2, index=1} : f32[4,3]\n"
                      "%3 = transpose %0 {perm=[1,0]} : f32[6,4]\n"
                      "%4 = unsqueeze %0 {axis=1} : f32[4,1,6]\n"
                      "%5 = squeeze %4 {axis=1} : f32[4,6]\n"
                      "%6 = reduce_max %0 {axis=1} : f32[4,1]\n"
                      "%7 = broadcast %6 : f32[4,6]\n"
                      "return %1, %2, %3, %5, %7\n");
  EXPECT_EQ(mapOf(c, 1), (Strings{"d0 + 1", "d1 * 2"}));
  EXPECT_EQ(mapOf(c, 2), (Strings{"d0", "d1 + 3"}));
  EXPECT_EQ(mapOf(c, 3), (Strings{"d1", "d0"}));
  EXPECT_EQ(mapOf(c, 4), (Strings{"d0", "d2"}));
  EXPECT_EQ(mapOf(c, 5), (Strings{"d0", "0", "d1"}));
  EXPECT_EQ(mapOf(c, 7), (Strings{"d0", "0"}));
}

TEST(Verifier, ValidShapesIntersectThroughElementwiseOps) {
  Case c = parseOrDie("%0 = input : f32[16,32]{valid=4x32}\n"
                      "%1 = input : f32[16,32]{valid=16x8,dyn}\n"
                      "%2 = add %0, %1 : f32[16,32]{valid=4x8,dyn}\n"
                      "%3 = fillpad %2 {pad=max} : f32[16,32]\n"
                      "return %3\n");
  EXPECT_EQ(c.typeOf(2).str(), "f32[16,32]{valid=4x8,dyn}");
}

TEST(Verifier, KnownRangeProvesGatherIndices) {
  Case c = parseOrDie("%0 = input : f32[4,8]\n"
                      "%1 = input {fill=range(0,7)} : i32[4,2]\n"
                      "%2 = gather %0, %1 {axis=1} : f32[4,2]\n"
                      "%3, %4 = topk %0 {axis=1, k=3} : f32[4,3], i64[4,3]\n"
                      "%5 = gather %0, %4 {axis=1} : f32[4,3]\n"
                      "return %2, %5\n");
  Interval r;
  ASSERT_TRUE(knownRange(c, 4, r));
  EXPECT_EQ(r, (Interval{0, 7}));
  EXPECT_FALSE(knownRange(c, 0, r)); // floats have no integer range
}

TEST(Verifier, RejectsIllTypedCases) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"%0 = input : i1[4]\n%1 = add %0, %0 : i1[4]\nreturn %1\n", "add does not take i1"},
      {"%0 = input : f32[4]\n%1 = and %0, %0 : f32[4]\nreturn %1\n", "and does not take f32"},
      {"%0 = input : bf16[4,4]\n%1 = input : f32[4,4]\n%2 = matmul %0, %1 : f32[4,4]\nreturn %2\n",
       "not a supported combination"},
      {"%0 = input : f32[4,6]\n%1 = chunk %0 {axis=1, count=4, index=0} : f32[4,1]\nreturn %1\n",
       "does not split dim 6"},
      {"%0 = input : f32[4,6]\n%1 = reduce_sum %0 {axis=2} : f32[4,6]\nreturn %1\n",
       "axis 2 is outside [0, 2)"},
      {"%0 = input : f32[4]\n%1 = lt %0, %0 : i1[4]\n%2 = lt %1, %1 : i1[4]\nreturn %2\n",
       "only eq and ne compare i1"},
      {"%0 = input : f32[4]\nreturn %0, %0\n", "returned twice"},
  };
  for (const auto &[body, expected] : bad) {
    Case c;
    TextError err;
    EXPECT_FALSE(parseCase("npufuzz-case 1\n" + body, c, err)) << body;
    EXPECT_NE(err.message.find(expected), std::string::npos) << body << " -> " << err.message;
  }
}
