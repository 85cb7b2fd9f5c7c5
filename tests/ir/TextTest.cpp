//===- tests/ir/TextTest.cpp - The .npf format round-trips ----------------===//
#include "ir/Text.h"
#include "ir/Verifier.h"

#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace npufuzz;

namespace {
const char *kCanonical = R"(npufuzz-case 1
generator seed=7 policy="default op.matmul=3"
data seed=7 edge_rate=0.05
%0 = input {fill=rand} : f32[16,256]
%1 = input {fill=range(-2,5)} : i32[16,1]{valid=3x1,dyn}
%2 = iota {axis=0} : index[16,1]
%3 = cast %1 {round=rna} : f32[16,1]{valid=3x1,dyn}
%4 = row_expand_mul %0, %3 : f32[16,256]
%5 = set_validshape %4 : f32[16,256]{valid=1x256,dyn}
%6 = fillpad %5 {pad=min} : f32[16,256]
%7 = index_map %6 {map=(d0, d1, d2) -> (d0 * 4 + d1, (d2 - 3) mod 256)} : f32[4,4,256]
%8 = const {value=-0} : f32[4,4,256]
%9 = max %7, %8 : f32[4,4,256]
%10, %11 = topk %9 {axis=2, k=3} : f32[4,4,3], i64[4,4,3]
%12 = masked_fill %9, %13 {value=nan} : f32[4,4,256]
return %10, %11
)";
} // namespace

// A chain of two tasks (seed 004's shape: a writer that stores its
// outputs by scalar stores on four blocks, and the task that reads them);
// the input between them is the host's.
TEST(Text, TasksRoundTripAndPartitionTheComputeOps) {
  const std::string text = R"(npufuzz-case 1
data seed=4 edge_rate=0
%a = input {fill=rand} : f32[16,64]
task write_routes blocks=4 store=scalar
%r = exp %a : f32[16,64]
%b = input {fill=rand} : f32[16,64]
task dispatch blocks=1 store=tile
%s = add %r, %b : f32[16,64]
%t = mul %s, %s : f32[16,64]
return %t
)";
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(text, c, err)) << err.format("chain");
  EXPECT_EQ(printCase(c), text);
  ASSERT_EQ(c.tasks.size(), 2u);
  EXPECT_EQ(c.tasks[0], (Task{"write_routes", 4, TaskStore::Scalar}));
  EXPECT_EQ(opTasks(c), (std::vector<int32_t>{-1, 0, -1, 1, 1}));
  const std::vector<TaskOps> kernels = taskOps(c);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[1].ops, (std::vector<size_t>{3, 4}));
  // An op a shrinker puts in with no task is its neighbour's.
  c.ops[4].task = -1;
  EXPECT_EQ(printCase(c), text);
  // A task's ops are contiguous and tasks come in order.
  c.ops[4].task = 0;
  EXPECT_NE(verifyCase(c).find("is in task 'write_routes' after an op of task 'dispatch'"),
            std::string::npos)
      << verifyCase(c);
  c.ops[4].task = 1;
  // An input is the host's, in no task, whatever it says.
  c.ops[0].task = 1;
  EXPECT_EQ(printCase(c), text);
  // Without tasks the case is one kernel, whatever its ops say.
  c.tasks.clear();
  EXPECT_EQ(verifyCase(c), "");
  EXPECT_TRUE(taskOps(c).empty());
  EXPECT_EQ(printCase(c).find("task "), std::string::npos);
}

TEST(Text, CanonicalTextRoundTrips) {
  // kCanonical ends with a masked_fill of an undefined value, for the error
  // test below; without that line the text is valid and canonical.
  std::string text = kCanonical;
  text.erase(text.find("%12 = masked_fill"), text.find("return") - text.find("%12 = masked_fill"));
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(text, c, err)) << err.format("canonical");
  EXPECT_EQ(printCase(c), text);
  ASSERT_TRUE(c.provenance.has_value());
  EXPECT_EQ(c.provenance->seed, 7u);
  EXPECT_EQ(c.provenance->policy, "default op.matmul=3");
  EXPECT_EQ(c.edgeRate, 0.05);
  EXPECT_EQ(c.ops[7].attrs.map.size(), 2u);
  EXPECT_TRUE(std::signbit(c.ops[8].attrs.value.f));
}

TEST(Text, UndefinedValueNamesLineAndColumn) {
  Case c;
  TextError err;
  ASSERT_FALSE(parseCase(kCanonical, c, err));
  EXPECT_EQ(err.line, 15);
  EXPECT_EQ(err.col, 23);
  EXPECT_EQ(err.message, "use of undefined value %13");
  EXPECT_EQ(err.format("x.npf"), "x.npf:15:23: use of undefined value %13");
}

TEST(Text, SeedCorpusParsesVerifiesAndRoundTrips) {
  const std::vector<std::string> files = npufuzz::testing::corpusFiles("corpus/seeds");
  ASSERT_GE(files.size(), 5u);
  for (const std::string &f : files) {
    Case c;
    TextError err;
    ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
    const std::string printed = printCase(c);
    Case again;
    ASSERT_TRUE(parseCase(printed, again, err)) << err.format(f + " (printed)");
    EXPECT_EQ(printCase(again), printed) << f;
    EXPECT_EQ(caseHash(again), caseHash(c));
  }
}

TEST(Text, NamedValuesSurviveAndNumericNamesRenumber) {
  const char *text = "npufuzz-case 1\n"
                     "%9 = input {fill=ones} : i8[4]\n"
                     "%gate = neg %9 : i8[4]\n"
                     "return %gate\n";
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(text, c, err)) << err.format("t");
  EXPECT_EQ(printCase(c), "npufuzz-case 1\ndata seed=0 edge_rate=0\n"
                          "%0 = input {fill=ones} : i8[4]\n"
                          "%gate = neg %0 : i8[4]\n"
                          "return %gate\n");
}

TEST(Text, TypeErrorsPointAtTheOpLine) {
  const char *text = "npufuzz-case 1\n"
                     "%0 = input {fill=rand} : f32[4,8]\n"
                     "%1 = input {fill=rand} : f32[8,4]\n"
                     "%2 = add %0, %1 : f32[4,8]\n"
                     "return %2\n";
  Case c;
  TextError err;
  ASSERT_FALSE(parseCase(text, c, err));
  EXPECT_EQ(err.line, 4);
  EXPECT_NE(err.message.find("operand shapes differ"), std::string::npos) << err.message;
}

TEST(Text, DeclaredTypeMustMatchInferredType) {
  const char *text = "npufuzz-case 1\n"
                     "%0 = input {fill=rand} : f32[4,8]\n"
                     "%1 = reduce_sum %0 {axis=1} : f32[4]\n"
                     "return %1\n";
  Case c;
  TextError err;
  ASSERT_FALSE(parseCase(text, c, err));
  EXPECT_EQ(err.line, 3);
  EXPECT_NE(err.message.find("declared type f32[4] but the op produces f32[4,1]"),
            std::string::npos)
      << err.message;
}

namespace {
/// A case whose index_map subscript is a sum of `terms` dims, mod 64.
std::string longSumCase(int terms) {
  std::string sum;
  for (int i = 0; i < terms; ++i)
    sum += i ? (i % 2 ? " + d0" : " + d1") : "d1";
  return "npufuzz-case 1\n%x = input {fill=rand} : f32[8,64]\n"
         "%v = index_map %x {map=(d0, d1) -> (d0, (" +
         sum +
         ") mod 64)} : f32[8,64]\n"
         "return %v\n";
}
} // namespace

// Checking bounds once per subexpression made a 30,000-term sum take
// seconds, and walking a long sum by recursion overflowed the stack (at
// 200,000 terms, and far sooner under AddressSanitizer). Sums of any length
// up to the size limit parse, verify and print; beyond it (a sum every
// backend can compile: MLIR's own parser recurses over it), and for
// overlong products, the parser says so.
TEST(Text, LongIndexSumsParseAndOverlongOnesAreRefused) {
  for (int terms : {1000, 30000}) {
    Case c;
    TextError error;
    const std::string text = longSumCase(terms);
    ASSERT_TRUE(parseCase(text, c, error)) << error.format("long");
    EXPECT_EQ(c.ops.back().attrs.map[1].size(), 2u * terms);
    Case again;
    ASSERT_TRUE(parseCase(printCase(c), again, error)) << error.format("printed");
    EXPECT_EQ(printCase(again), printCase(c));
  }
  Case c;
  TextError error;
  EXPECT_FALSE(parseCase(longSumCase(40000), c, error));
  EXPECT_NE(error.message.find("more than 65536 terms"), std::string::npos) << error.message;
  EXPECT_EQ(error.line, 3);
  std::string product = "d1";
  for (int i = 0; i < 65; ++i)
    product += " * 1";
  EXPECT_FALSE(parseCase("npufuzz-case 1\n%x = input {fill=rand} : f32[8,64]\n"
                         "%v = index_map %x {map=(d0, d1) -> (d0, " +
                             product +
                             ")} : f32[8,64]\n"
                             "return %v\n",
                         c, error));
  EXPECT_NE(error.message.find("operators in one product"), std::string::npos) << error.message;
}
