//===- tests/oracles/PoisonOracleTest.cpp - Defined outputs ignore the fill ===//
#include "oracles/PoisonOracle.h"

#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

TEST(PoisonOracle, DefinedOutputsThatChangeWithTheFillReadUnwrittenMemory) {
  JudgedCase jc(kI1Store, withPipeline(kExposingPasses));
  ASSERT_EQ(jc.base.verdict, VerdictKind::Mismatch) << jc.base.summary;
  const CaseVerdict v = jc.judge(PoisonOracle());
  EXPECT_EQ(v.verdict, VerdictKind::UninitializedRead);
  EXPECT_EQ(v.summary, "defined outputs change with the poison fill: " + jc.base.summary);
  EXPECT_EQ(jc.reruns, std::vector<uint32_t>{~jc.config.jit.poison});
}

TEST(PoisonOracle, AWrongResultWhateverTheFillStaysAMismatch) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  ASSERT_EQ(jc.base.verdict, VerdictKind::Mismatch) << jc.base.summary;
  EXPECT_EQ(jc.judge(PoisonOracle()).verdict, VerdictKind::Mismatch);
  EXPECT_EQ(jc.reruns.size(), 1u);
}

TEST(PoisonOracle, ARunAlreadyFoundNondeterministicIsNotRunAgain) {
  JudgedCase jc(kI1Store, withPipeline(kExposingPasses));
  CaseVerdict before = differentialVerdict(jc.c, jc.base);
  before.verdict = VerdictKind::Nondeterministic;
  EXPECT_EQ(jc.judge(PoisonOracle(), before).verdict, VerdictKind::Nondeterministic);
  EXPECT_TRUE(jc.reruns.empty());
}
