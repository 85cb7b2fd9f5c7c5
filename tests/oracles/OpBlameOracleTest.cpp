//===- tests/oracles/OpBlameOracleTest.cpp - The op a wrong result starts at ===//
#include "oracles/OpBlameOracle.h"

#include "oracles/OpBlame.h"

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

// A wrong value is named by its arithmetic (tmul, trowexpandmul and
// tcolexpandmul multiply alike); an undefined result by its shape form,
// whose tile a toolchain shapes the same whatever the arithmetic.
TEST(OpBlame, AWrongValueNamesItsArithmeticAnUndefinedResultItsForm) {
  EXPECT_EQ(blamedOpName("row_expand_mul", "value"), "mul");
  EXPECT_EQ(blamedOpName("row_expand_min", "signed-zero"), "max/min");
  EXPECT_EQ(blamedOpName("row_expand_mul", kUndefinedResult), "row_expand_*");
  EXPECT_EQ(blamedOpName("row_expand_min", kUndefinedResult), "row_expand_*");
  EXPECT_EQ(blamedOpName("col_expand_add", kUndefinedResult), "col_expand_*");
  EXPECT_EQ(blamedOpName("add", kUndefinedResult), "elementwise");
  EXPECT_EQ(blamedOpName("lt", kUndefinedResult), "elementwise");
  EXPECT_EQ(blamedOpName("transpose", kUndefinedResult), "view");
  EXPECT_EQ(blamedOpName("reduce_max", kUndefinedResult), "reduce_*");
  EXPECT_EQ(blamedOpName("cast", kUndefinedResult), "cast");
}

// On a backend that bisects by passes the op only names what the pass got
// wrong: the finding stays the pass's, not rooted at the op.
TEST(OpBlameOracle, ABackendBisectedByPassesIsNotRootedAtTheOp) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  const CaseVerdict v = jc.judge(OpBlameOracle());
  EXPECT_FALSE(v.rootedAtOp);
  EXPECT_TRUE(v.symptom.empty());
}

// Which failures op blame judges: a wrong result anywhere; on a backend
// that runs externally, any failure of the compiled program too, but not a
// compiler that crashed.
TEST(OpBlameOracle, JudgesProgramFailuresOfExternalBackends) {
  RunConfig mlir, pto;
  pto.backend = BackendKind::Pto;
  CaseOutcome base;
  base.verdict = VerdictKind::Mismatch;
  EXPECT_TRUE(opBlameJudges(mlir, base));
  EXPECT_TRUE(opBlameJudges(pto, base));
  base.verdict = VerdictKind::UninitializedRead;
  EXPECT_FALSE(opBlameJudges(mlir, base));
  EXPECT_TRUE(opBlameJudges(pto, base));
  base.verdict = VerdictKind::Crash;
  EXPECT_FALSE(opBlameJudges(pto, base)); // ptoas itself died
  base.run.failedRunning = true;          // the simulator did
  EXPECT_TRUE(opBlameJudges(pto, base));
  EXPECT_FALSE(opBlameJudges(mlir, base));
  base.verdict = VerdictKind::ContractGap;
  EXPECT_FALSE(opBlameJudges(pto, base));
}
