//===- tests/oracles/DifferentialOracleTest.cpp - The run against the reference ===//
#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

TEST(DifferentialOracle, ARightResultIsOkAndNamesNothing) {
  JudgedCase jc(kAddition);
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  EXPECT_EQ(v.verdict, VerdictKind::Ok) << v.summary;
  EXPECT_EQ(v.where, "");
  EXPECT_EQ(v.difference, "");
  EXPECT_EQ(v.passIndex, -1);
}

TEST(DifferentialOracle, AWrongResultNamesTheOpOfItsFirstWrongOutput) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  EXPECT_EQ(v.verdict, VerdictKind::Mismatch);
  EXPECT_EQ(v.summary, jc.base.summary);
  // The op of the output, not yet the op that went wrong (op blame's).
  EXPECT_EQ(v.where, "exp");
  EXPECT_EQ(v.difference, jc.base.comparisons.at(0).difference);
  EXPECT_NE(v.difference, "");
}

TEST(DifferentialOracle, AFailedRunNamesItsPass) {
  JudgedCase jc(R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = mul %0, %0 : f32[2,3]
return %1
)",
                withPipeline("func.func(canonicalize),func.func(npufuzz-test-break-verifier)"));
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  EXPECT_EQ(v.verdict, VerdictKind::VerifierError) << v.summary;
  EXPECT_EQ(v.passName, "func.func(npufuzz-test-break-verifier)");
  EXPECT_EQ(v.passIndex, 1);
  EXPECT_EQ(v.where, "");
}
