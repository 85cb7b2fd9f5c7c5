//===- tests/oracles/NondeterminismOracleTest.cpp - The same run again ----===//
#include "oracles/NondeterminismOracle.h"

#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

TEST(NondeterminismOracle, AWrongResultThatRepeatsStaysAMismatch) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  ASSERT_EQ(jc.base.verdict, VerdictKind::Mismatch) << jc.base.summary;
  const CaseVerdict v = jc.judge(NondeterminismOracle());
  EXPECT_EQ(v.verdict, VerdictKind::Mismatch);
  // Run again as it ran: with the same fill.
  EXPECT_EQ(jc.reruns, std::vector<uint32_t>{jc.config.jit.poison});
}

TEST(NondeterminismOracle, AWrongResultThatChangesWhenRunAgainIsNondeterministic) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  jc.fakeRerun = [&](uint32_t) { return withChangedOutput(jc.base.run); };
  const CaseVerdict v = jc.judge(NondeterminismOracle());
  EXPECT_EQ(v.verdict, VerdictKind::Nondeterministic);
  EXPECT_EQ(v.summary, "two identical runs differ: " + jc.base.summary);
  EXPECT_EQ(v.where, "exp"); // the op of the wrong output keys it
}

TEST(NondeterminismOracle, ARerunThatFailsSaysNothing) {
  JudgedCase jc(kAddition, withPipeline(kMiscompile));
  jc.fakeRerun = [&](uint32_t) {
    BackendRun failed = withChangedOutput(jc.base.run);
    failed.status = BackendRun::Status::Crashed;
    return failed;
  };
  EXPECT_EQ(jc.judge(NondeterminismOracle()).verdict, VerdictKind::Mismatch);
}

TEST(NondeterminismOracle, ARightResultIsNotRunAgain) {
  JudgedCase jc(kAddition);
  EXPECT_EQ(jc.judge(NondeterminismOracle()).verdict, VerdictKind::Ok);
  EXPECT_TRUE(jc.reruns.empty());
}
