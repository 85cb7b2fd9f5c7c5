//===- tests/ir/IndexExprTest.cpp - Index expression algebra --------------===//
#include "ir/IndexExpr.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

using namespace npufuzz;
using E = IndexExpr;

TEST(IndexExpr, FloorSemanticsOfNegatives) {
  EXPECT_EQ(floorDiv(-1, 4), -1);
  EXPECT_EQ(floorMod(-1, 4), 3);
  EXPECT_EQ(floorDiv(-8, 4), -2);
  EXPECT_EQ(floorMod(-8, 4), 0);
  EXPECT_EQ(floorDiv(7, 4), 1);
  EXPECT_EQ(floorMod(7, 4), 3);
  EXPECT_EQ(floorMod(-3, 64), 61);
}

TEST(IndexExpr, EvalMixedRadix) {
  // (d0 * 8 + d1) floordiv 4 mod 2 at d0=1, d1=5: 13 floordiv 4 = 3, mod 2 = 1.
  E e = E::mod(E::floorDiv(E::add(E::mul(E::dim(0), 8), E::dim(1)), 4), 2);
  EXPECT_EQ(e.eval({1, 5}), 1);
  EXPECT_EQ(e.str(), "(d0 * 8 + d1) floordiv 4 mod 2");
  EXPECT_EQ(e.countFloorDivMod(), 2u);
  EXPECT_EQ(e.size(), 6u);
}

TEST(IndexExpr, RangeIsExactWithinOnePeriod) {
  E rot = E::mod(E::add(E::dim(0), E::constant(-3)), 64);
  EXPECT_EQ(rot.range({{0, 63}}), (Interval{0, 63}));
  EXPECT_EQ(rot.eval({0}), 61);
  E inPeriod = E::mod(E::dim(0), 64);
  EXPECT_EQ(inPeriod.range({{0, 9}}), (Interval{0, 9}));
  E reversed = E::add(E::mul(E::dim(0), -1), E::constant(15));
  EXPECT_EQ(reversed.range({{0, 15}}), (Interval{0, 15}));
}

TEST(IndexExpr, PrintsAndParsesSubtraction) {
  E e = E::add(E::dim(1), E::constant(-3));
  EXPECT_EQ(e.str(), "d1 - 3");
  E parsed;
  std::string err;
  size_t pos = 0;
  ASSERT_TRUE(parseIndexExpr("(d1 - 3) mod 64", parsed, err, pos)) << err;
  EXPECT_EQ(parsed, E::mod(e, 64));
}

TEST(IndexExpr, ParseErrorsHavePositions) {
  E e;
  std::string err;
  size_t pos = 0;
  EXPECT_FALSE(parseIndexExpr("d0 mod 0", e, err, pos));
  EXPECT_NE(err.find("positive"), std::string::npos);
  EXPECT_FALSE(parseIndexExpr("d0 + ", e, err, pos));
  EXPECT_FALSE(parseIndexExpr("(d0", e, err, pos));
  EXPECT_FALSE(parseIndexExpr("d0 * d1", e, err, pos));
  EXPECT_FALSE(parseIndexExpr("d0 d1", e, err, pos));
  EXPECT_EQ(pos, 3u);
  EXPECT_FALSE(parseIndexExpr(std::string(200, '(') + "d0" + std::string(200, ')'), e, err, pos));
  EXPECT_FALSE(parseIndexExpr("99999999999999999999", e, err, pos));
}

namespace {
/// A random expression over `dims` dims, built from every node kind.
E randomExpr(int depth, unsigned dims) {
  if (depth == 0 || *rc::gen::inRange(0, 4) == 0)
    return *rc::gen::inRange(0, 2) ? E::dim(*rc::gen::inRange(0u, dims))
                                   : E::constant(*rc::gen::inRange(-20, 20));
  switch (*rc::gen::inRange(0, 4)) {
  case 0: return E::add(randomExpr(depth - 1, dims), randomExpr(depth - 1, dims));
  case 1: return E::mul(randomExpr(depth - 1, dims), *rc::gen::inRange(-5, 6));
  case 2: return E::floorDiv(randomExpr(depth - 1, dims), *rc::gen::inRange(1, 9));
  default: return E::mod(randomExpr(depth - 1, dims), *rc::gen::inRange(1, 9));
  }
}
} // namespace

RC_GTEST_PROP(IndexExpr, PrintParseRoundTrip, ()) {
  E e = randomExpr(4, 3);
  E parsed;
  std::string err;
  size_t pos = 0;
  RC_ASSERT(parseIndexExpr(e.str(), parsed, err, pos));
  RC_ASSERT(parsed.str() == e.str());
  // Structure may differ only where the printer folds "x + -c" to "x - c",
  // which parses back to the same tree.
  RC_ASSERT(parsed == e);
}

RC_GTEST_PROP(IndexExpr, RangeContainsEveryValue, ()) {
  E e = randomExpr(4, 2);
  const int64_t n0 = *rc::gen::inRange(1, 12), n1 = *rc::gen::inRange(1, 12);
  Interval iv = e.range({{0, n0 - 1}, {0, n1 - 1}});
  for (int64_t a = 0; a < n0; ++a)
    for (int64_t b = 0; b < n1; ++b) {
      const int64_t v = e.eval({a, b});
      RC_ASSERT(v >= iv.lo);
      RC_ASSERT(v <= iv.hi);
    }
}
