//===- tests/integrations/SimplerBackendTest.cpp - Cases on simpler's runtime ===//
//
// --backend simpler on the user's simpler and ptoas, found as npufuzz finds
// them (docs/toolchains.md): chains of tasks through ptoas, each task a
// simpler AICore kernel on its blocks, ordered by simpler's runtime on its
// a2a3sim platform. Without both, every test here is skipped with the
// reason. The sources it writes are tested without simpler in
// tests/backend/PtoHarnessTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/pto/SimplerBackend.h"
#include "backend/pto/CaseDir.h"
#include "backend/pto/KernelHarness.h"
#include "backend/toolchains/BackendToolchains.h"
#include "backend/toolchains/Canary.h"
#include "backend/toolchains/Toolchain.h"
#include "driver/Campaign.h"
#include "driver/Report.h"
#include "generators/Policy.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"
#include "tests/integrations/ToolchainsFound.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

/// Why there is no simpler or no ptoas on this machine; empty when both
/// were found.
const std::string &simplerUnavailable() {
  static const std::string why =
      npufuzz::testing::toolchainsMissing({ToolchainKind::Simpler, ToolchainKind::Ptoas});
  return why;
}

#define NPUFUZZ_NEEDS_SIMPLER() NPUFUZZ_SKIP_UNLESS_FOUND("simpler", simplerUnavailable())

RunConfig simpler() {
  RunConfig config;
  config.backend = BackendKind::Simpler;
  config.metamorphicShare = 0;
  std::string error;
  EXPECT_TRUE(setUpSimplerToolchain(config.pto, error)) << error;
  return config;
}

/// Three tasks on 3, 2 and 3 blocks, by scalar stores and tiles, with a
/// returned input and a runtime valid shape; the data seed picks the order
/// the orchestration submits them in (KernelHarness.h).
std::string chainCase(uint64_t dataSeed) {
  return "npufuzz-case 1\ndata seed=" + std::to_string(dataSeed) + R"( edge_rate=0
%0 = input {fill=rand} : f32[4,40]
%1 = input {fill=rand} : f32[4,40]
task t0 blocks=3 store=scalar
%2 = add %0, %1 : f32[4,40]
task t1 blocks=2 store=tile
%3 = exp %0 : f32[4,40]
task t2 blocks=3 store=scalar
%4 = mul %2, %3 : f32[4,40]
%5 = set_validshape %4 : f32[4,40]{valid=3x17,dyn}
return %5, %3, %1
)";
}
} // namespace

// Each task is one of simpler's AICore kernels on its blocks, submitted in
// either order the graph allows and ordered by simpler's runtime through
// the GM tensors they share: the outputs are the reference's, bit for bit,
// and the same as npufuzz's own harness gives when pto-isa is found too.
TEST(SimplerBackend, AChainRunsAsSimplersTasksAsTheReferenceSays) {
  NPUFUZZ_NEEDS_SIMPLER();
  std::set<std::vector<int32_t>> orders;
  for (const uint64_t seed : {4u, 6u}) {
    std::vector<int32_t> order;
    for (const HarnessTask &t : kernelBuffers(parseOrFail(chainCase(seed))).tasks)
      order.push_back(t.task);
    orders.insert(order);
    MlirJit jit;
    const CaseOutcome out = runCase(parseOrFail(chainCase(seed)), jit, simpler());
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << seed << ": " << out.summary << "\n"
                                            << out.run.message;
    ASSERT_EQ(out.run.outputs.size(), 3u);
    RunConfig pto;
    pto.backend = BackendKind::Pto;
    pto.metamorphicShare = 0;
    std::string error;
    if (!setUpPtoToolchain(pto.pto, error))
      continue; // no pto-isa of the user's: the reference alone
    const CaseOutcome harness = runCase(parseOrFail(chainCase(seed)), jit, pto);
    ASSERT_EQ(harness.run.outputs.size(), 3u) << harness.run.message;
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(out.run.outputs[k].bytes, harness.run.outputs[k].bytes) << seed << " output " << k;
  }
  EXPECT_EQ(orders, (std::set<std::vector<int32_t>>{{0, 1, 2}, {1, 0, 2}}));
}

// A case that is one kernel is one task on one block; seed report 002's
// runtime valid shape reaches it as its int arguments.
TEST(SimplerBackend, ACaseThatIsOneKernelIsOneTask) {
  NPUFUZZ_NEEDS_SIMPLER();
  Case c;
  TextError error;
  const std::string path =
      npufuzz::testing::sourceDir() + "/corpus/seeds/rowexpand_validshape_fillpad.npf";
  ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
  MlirJit jit;
  const CaseOutcome out = runCase(c, jit, simpler());
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

// A case's reruns (its oracles', with another poison) take simpler's
// builds of its kernels from the case's builds directory: the first run
// files one per task and one for the orchestration, the rerun none, and
// the directory goes with the case.
TEST(SimplerBackend, ACasesRerunsReuseWhatSimplerBuilt) {
  NPUFUZZ_NEEDS_SIMPLER();
  PtoToolchain t = simpler().pto;
  t.builds = newPtoBuilds();
  const Case c = parseOrFail(chainCase(4));
  MlirJit jit;
  const CaseOutcome first = runCase(c, jit, simpler());
  ASSERT_EQ(first.verdict, VerdictKind::Ok) << first.summary;
  const std::vector<TensorData> inputs = toTensorData(first.reference.inputs);
  auto filed = [&] {
    size_t n = 0;
    for (const auto &e : std::filesystem::directory_iterator(t.builds->simplerBuilds->path()))
      n += e.path().extension() == ".bin";
    return n;
  };
  const BackendRun a = runSimpler(t, c, inputs, 0x11111111u);
  ASSERT_EQ(a.status, BackendRun::Status::Ok) << a.message;
  ASSERT_TRUE(t.builds->simplerBuilds);
  EXPECT_EQ(filed(), 4u); // three tasks and the orchestration
  const BackendRun b = runSimpler(t, c, inputs, 0x22222222u);
  ASSERT_EQ(b.status, BackendRun::Status::Ok) << b.message;
  EXPECT_EQ(filed(), 4u);
  // The defined elements are the same whatever the poison.
  for (size_t k = 0; k < a.outputs.size(); ++k) {
    const RefTensor &want = first.reference.outputs[k];
    const RefTensor x = fromTensorData(a.outputs[k]), y = fromTensorData(b.outputs[k]);
    for (int64_t e = 0; e < want.numElements(); ++e)
      if (want.isDefined(e))
        EXPECT_EQ(x.f[static_cast<size_t>(e)], y.f[static_cast<size_t>(e)]) << k << " " << e;
  }
  const std::string dir = t.builds->simplerBuilds->path();
  t.builds.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// What a finding keeps: ptoas's program and the sources simpler ran.
TEST(SimplerBackend, AFindingKeepsTheSourcesSimplerRan) {
  NPUFUZZ_NEEDS_SIMPLER();
  const std::map<std::string, std::string> files =
      simplerPrograms(simpler().pto, parseOrFail(chainCase(4)));
  for (const char *name : {"kernel.pto", "kernel.cpp", "simpler-task0.cpp", "simpler-task2.cpp",
                           "simpler-orchestration.cpp", "simpler-simpler.json"})
    EXPECT_EQ(files.count(name), 1u) << name;
}

// Cases drawn as `fuzz --backend simpler` draws them (the pto policy, a
// quarter of them chains) give no finding outside the known list:
// simpler's pinned pto-isa behaves as the one the list was made with, and
// the task wrappers add nothing. Seeds 46000000-, never tuned on.
TEST(SimplerBackend, ACampaignFindsOnlyKnownRoots) {
  NPUFUZZ_NEEDS_SIMPLER();
  CampaignOptions o;
  o.outDir = ::testing::TempDir() + "/npufuzz-simpler-campaign";
  std::filesystem::remove_all(o.outDir);
  o.config = simpler();
  o.policy = ptoPolicy();
  o.seedStart = 46000000;
  o.maxCases = 10;
  o.jobs = 2;
  o.limits.wallSeconds = 400;
  o.progress = false;
  o.reduce = false;
  std::set<std::string> known;
  std::string error;
  ASSERT_TRUE(readKnownSignatures(npufuzz::testing::sourceDir() + "/ci/known-signatures.txt",
                                  "simpler", known, error))
      << error;
  MlirJit jit;
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 10u);
  for (const FindingSummary &f : r.findings)
    EXPECT_EQ(known.count(f.id), 1u) << f.id << ": " << f.summary;
  std::filesystem::remove_all(o.outDir);
}

// The user's simpler passes its canary, and the canary case runs on it.
TEST(SimplerBackend, TheRealSimplerPassesItsCanary) {
  NPUFUZZ_NEEDS_SIMPLER();
  const CanaryResult r = runCanary(ToolchainKind::Simpler, simpler().pto.simplerPython);
  EXPECT_TRUE(r.passed) << r.error;
  EXPECT_EQ(r.version.rfind("simpler ", 0), 0u) << r.version;
}
