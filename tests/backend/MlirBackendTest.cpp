//===- tests/backend/MlirBackendTest.cpp - The MLIR backend end to end ----===//
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "generators/CaseGenerator.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"

#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

using namespace npufuzz;

TEST(MlirBackend, SeedCorpusRunsCleanAtO0AndO2) {
  MlirJit jit;
  for (const std::string &pipeline : {"O0", "O2"}) {
    for (const std::string &f : npufuzz::testing::corpusFiles("corpus/seeds")) {
      Case c;
      TextError err;
      ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
      RunConfig config;
      config.pipeline = pipeline;
      const CaseOutcome out = runCase(c, jit, config);
      EXPECT_EQ(out.verdict, VerdictKind::Ok)
          << f << " at " << pipeline << ": " << out.summary << "\n"
          << out.run.message;
    }
  }
}

TEST(MlirBackend, GeneratedCasesRunCleanAtO0) {
  MlirJit jit;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Case c = generateCase(seed, Policy::defaults());
    RunConfig config;
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << "seed " << seed << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}

// Seed 000: the same SSA value used as vector<16xindex> and vector<16xi64>.
// The oracle must reject it and point at the offending op.
TEST(MlirBackend, IndexI64MixRejectedWithOpAndLine) {
  const std::string text =
      R"(func.func @kernel(%lane: vector<16xindex>, %ids: vector<16xi64>) -> vector<16xi1> {
  %c16 = arith.constant dense<16> : vector<16xindex>
  %tmp19 = arith.addi %lane, %c16 : vector<16xindex>
  %tmp20 = arith.cmpi eq, %ids, %tmp19 : vector<16xi64>
  return %tmp20 : vector<16xi1>
}
)";
  MlirJit jit;
  const BackendRun r = jit.verifyPipeline(text, {"func.func(canonicalize)"});
  EXPECT_EQ(r.status, BackendRun::Status::VerifierError);
  EXPECT_EQ(r.passIndex, -1); // invalid before any pass ran
  EXPECT_NE(r.message.find("4:"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("expects different type than prior uses"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("vector<16xi64>"), std::string::npos) << r.message;
}
