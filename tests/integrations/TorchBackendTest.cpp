//===- tests/integrations/TorchBackendTest.cpp - Real PyTorch as a target -===//
//
// Debian's python3-torch runs the emitted programs through the persistent
// adapter. What used to disagree with the reference (the order of topk ties,
// the missing f16 topk kernel) must agree; torch.compile on a torch without
// it is unsupported with the reason; the adapter is started once for many
// cases. ci/install-deps.sh installs torch, so its absence is a failure.
//
//===----------------------------------------------------------------------===//
#include "backend/external/PersistentCommand.h"
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

RunConfig torch() {
  RunConfig config;
  std::string error;
  EXPECT_TRUE(configureTorchBackend(config, "", error)) << error;
  config.metamorphicShare = 0;
  return config;
}

// Generator seed 105's pattern: every value ties, and the indices of the
// top 2 are compared (torch.topk gave 3 where the reference gives 1).
const char *kTies = R"(npufuzz-case 1
%0 = input {fill=ones} : bf16[4,3,7]
%1, %2 = topk %0 {axis=0, k=2} : bf16[2,3,7], i64[2,3,7]
return %1, %2
)";

const char *kHalfTopk = R"(npufuzz-case 1
data seed=3 edge_rate=0.3
%0 = input {fill=rand} : f16[6,9]
%1, %2 = topk %0 {axis=1, k=4} : f16[6,4], i64[6,4]
return %1, %2
)";
} // namespace

TEST(TorchBackend, TopkTiesAndHalfTopkAgreeWithTheReference) {
  MlirJit jit;
  const RunConfig config = torch();
  for (const char *text : {kTies, kHalfTopk}) {
    const TaskResult r = runCaseTask(parseOrFail(text), jit, config);
    EXPECT_EQ(r.verdict, VerdictKind::Ok) << r.summary << "\n" << r.message;
  }
}

TEST(TorchBackend, OneAdapterProcessServesManyCases) {
  MlirJit jit;
  const RunConfig config = torch();
  workerPersistentCommand().stop();
  const unsigned before = workerPersistentCommand().started();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(runCaseTask(parseOrFail(kTies), jit, config).verdict, VerdictKind::Ok);
  EXPECT_EQ(workerPersistentCommand().started(), before + 1);
}

TEST(TorchBackend, TorchCompileWithoutTorchCompileIsUnsupportedWithTheReason) {
  MlirJit jit;
  const RunConfig config = torch();
  workerPersistentCommand().stop(); // the adapter inherits the environment
  ::setenv("NPUFUZZ_TORCH_COMPILE", "inductor", 1);
  const CaseOutcome out = runCase(parseOrFail(kTies), jit, config);
  ::unsetenv("NPUFUZZ_TORCH_COMPILE");
  workerPersistentCommand().stop();
  // torch 1.13 (Debian 12) has no torch.compile; a torch 2 would compile.
  if (out.verdict == VerdictKind::Ok)
    GTEST_SKIP() << "this torch has torch.compile";
  EXPECT_EQ(out.verdict, VerdictKind::Unsupported) << out.summary;
  EXPECT_NE(out.run.message.find("has no torch.compile"), std::string::npos) << out.run.message;
}

// The golden programs of tests/integrations/golden are these cases'.
TEST(TorchBackend, EverySeedCaseRunsExactOnTorch) {
  MlirJit jit;
  const RunConfig config = torch();
  const std::vector<std::string> seeds = npufuzz::testing::corpusFiles("corpus/seeds");
  for (const std::string &path : seeds) {
    Case c;
    TextError error;
    ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << path << ": " << out.summary;
  }
  EXPECT_GE(seeds.size(), 5u);
}

TEST(TorchBackend, AMissingPythonIsNamedWithWhereToRead) {
  RunConfig config;
  std::string error;
  EXPECT_FALSE(configureTorchBackend(config, "/nonexistent/python3", error));
  EXPECT_NE(error.find("torch from --python: /nonexistent/python3 is not an executable file"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("docs/toolchains.md#torch"), std::string::npos) << error;
  // A program that runs but is no Python with torch fails the canary.
  EXPECT_FALSE(configureTorchBackend(config, "/bin/false", error));
  EXPECT_NE(error.find("cannot import torch and numpy"), std::string::npos) << error;
}
