//===- tests/oracles/OpBlameOracleTest.cpp - The op a wrong result starts at ===//
#include "oracles/OpBlameOracle.h"

#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

TEST(OpBlameOracle, TheFirstOpThatGoesWrongNamesTheFinding) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  const CaseVerdict v = jc.judge(OpBlameOracle());
  EXPECT_EQ(jc.children, 1);
  EXPECT_EQ(v.verdict, VerdictKind::Mismatch);
  // The output is an exp of the wrong sum: the add is what went wrong.
  EXPECT_EQ(v.where, "add");
  EXPECT_NE(v.difference, "");
  EXPECT_NE(v.summary.find("; first wrong: %2 = add: "), std::string::npos) << v.summary;
}

TEST(OpBlameOracle, AChildThatDoesNotReturnBlamesNothing) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  jc.childReturns = false;
  const CaseVerdict v = jc.judge(OpBlameOracle());
  EXPECT_EQ(jc.children, 1);
  EXPECT_EQ(v.where, "exp");
  EXPECT_EQ(v.summary, jc.base.summary);
}

TEST(OpBlameOracle, AFindingAVariantNamesOrWithoutBlameIsLeftAlone) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  jc.namedByVariant = true;
  EXPECT_EQ(jc.judge(OpBlameOracle()).where, "exp");
  jc.namedByVariant = false;
  jc.config.blame = false;
  EXPECT_EQ(jc.judge(OpBlameOracle()).where, "exp");
  EXPECT_EQ(jc.children, 0);
}

TEST(OpBlameOracle, ANondeterministicRunIsNotBlamedOnAnOp) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  CaseVerdict before = differentialVerdict(jc.c, jc.base);
  before.verdict = VerdictKind::Nondeterministic;
  EXPECT_EQ(jc.judge(OpBlameOracle(), before).where, "exp");
  EXPECT_EQ(jc.children, 0);
}
