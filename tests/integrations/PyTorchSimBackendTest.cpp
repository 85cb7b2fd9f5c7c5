//===- tests/integrations/PyTorchSimBackendTest.cpp - Cases through PyTorchSim ===//
//
// --backend pytorchsim on the user's PyTorchSim checkout and its Python,
// found as npufuzz finds them (docs/toolchains.md#pytorchsim). Without both,
// every test here is skipped with the reason. What needs no PyTorchSim (the
// generic form, the decoder, the footprint oracle) is tested on recorded
// kernels in tests/backend/PyTorchSimKernelTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "backend/external/PersistentCommand.h"
#include "backend/toolchains/BackendToolchains.h"
#include "backend/toolchains/Canary.h"
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "generators/Policy.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"
#include "tests/integrations/ToolchainsFound.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

const std::string &pytorchsimUnavailable() {
  static const std::string why = npufuzz::testing::toolchainsMissing(
      {ToolchainKind::PyTorchSim, ToolchainKind::PyTorchSimPython});
  return why;
}

#define NPUFUZZ_NEEDS_PYTORCHSIM() NPUFUZZ_SKIP_UNLESS_FOUND("PyTorchSim", pytorchsimUnavailable())

RunConfig pytorchsim() {
  RunConfig config;
  config.backend = BackendKind::PyTorchSim;
  config.metamorphicShare = 0;
  std::string error;
  EXPECT_TRUE(setUpPyTorchSimToolchain(config.pytorchsim, error)) << error;
  return config;
}

/// Whether the PyTorchSim found is master v1.1.0's line (its torch_openreg
/// device), not the torch 2.2 forks' (tools/adapters/pytorchsim_releases.py):
/// the checkout's own canary says, from its files, without setting the
/// device up.
bool onV110Line() {
  LocatedToolchain found;
  std::string error, version;
  return findWorkingToolchain(ToolchainKind::PyTorchSim, "", found, error, &version) &&
         version.find("the openreg device") != std::string::npos;
}

CaseOutcome run(const std::string &text) {
  MlirJit jit;
  return runCase(parseOrFail(text), jit, pytorchsim());
}
} // namespace

// The checkout and its Python pass their canaries, and the adapter's (the
// npu device sets up, a one-op add reaches PyTorchSim's MLIR) names the
// commit and the torch.
TEST(PyTorchSimBackend, TheRealPyTorchSimPassesItsCanaries) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  RunConfig config;
  std::string error, version;
  ASSERT_TRUE(setUpPyTorchSimToolchain(config.pytorchsim, error, &version)) << error;
  EXPECT_EQ(version.rfind("pytorchsim ", 0), 0u) << version;
  EXPECT_NE(version.find(" torch 2."), std::string::npos) << version;
  const CanaryResult r = runCanary(ToolchainKind::PyTorchSim, config.pytorchsim.checkout);
  EXPECT_TRUE(r.passed) << r.error;
  EXPECT_EQ(r.version.rfind("PyTorchSim ", 0), 0u) << r.version;
}

// The canary case: PyTorchSim's kernel verifies, its DMAs read both inputs
// whole and write the output whole, and its values, from the model of its
// NPU, are the reference's.
TEST(PyTorchSimBackend, AnAddIsOkAndItsDmasAreTraced) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  const CaseOutcome out = run(canaryCaseText());
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.details;
  EXPECT_TRUE(out.run.valuesComputed) << out.run.valuesWhyNot;
  EXPECT_EQ(out.run.outputs.size(), 1u);
  const DmaTrace &t = out.run.dmaTrace;
  ASSERT_EQ(t.storages.size(), 3u);
  EXPECT_EQ(t.accesses.size(), 3u * 8 * 64);
  EXPECT_TRUE(t.undecoded.empty());
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{8, 64}));
}

// The GEMM and BMM templates' kernels run on the model's systolic array:
// K over the array's 128 (two chunks summed into Y), N over two rounds of
// lanes, and a batched matmul through the BMM template's 2-D views; each
// is ok with its values computed, so a wrong value would be a mismatch.
TEST(PyTorchSimBackend, TemplateMatmulsHaveValuesFromTheSystolicArray) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  for (const char *program : {"%0 = input {fill=rand} : f32[8,200]\n"
                              "%1 = input {fill=rand} : f32[200,140]\n"
                              "%2 = matmul %0, %1 : f32[8,140]\n"
                              "return %2\n",
                              "%0 = input {fill=rand} : f32[2,33,70]\n"
                              "%1 = input {fill=rand} : f32[2,70,20]\n"
                              "%2 = matmul %0, %1 : f32[2,33,20]\n"
                              "return %2\n"}) {
    const CaseOutcome out = run(std::string("npufuzz-case 1\ndata seed=3 edge_rate=0\n") + program);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << program << out.summary;
    EXPECT_TRUE(out.run.valuesComputed) << program << out.run.valuesWhyNot;
  }
}

// torch builds PyTorchSim's npu extension under a lock file; a build that a
// case's limit killed left it, and every later adapter waited on it
// forever, each case a hang. Now the adapter's first case sets the device
// up, and a limit that ends the setup is the environment, never a finding;
// each checkout builds in a directory of its own under npufuzz's cache,
// and the next adapter, finding no live build there (its flock is free),
// removes the stale lock and builds.
TEST(PyTorchSimBackend, ABuildKilledByACaseLimitIsTheEnvironmentAndItsLockNoHang) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  if (onV110Line())
    GTEST_SKIP() << "master v1.1.0's npu device is installed with pip: the adapter builds no "
                    "extension";
  const std::string cache = ::testing::TempDir() + "/npufuzz-pytorchsim-cache";
  std::filesystem::remove_all(cache);
  ASSERT_EQ(::setenv("NPUFUZZ_CACHE", cache.c_str(), 1), 0);
  MlirJit jit;
  RunConfig config = pytorchsim();
  auto runAfresh = [&](unsigned limit) {
    workerPersistentCommand().stop();
    config.pytorchsim.timeoutSeconds = limit;
    return runCase(parseOrFail(canaryCaseText()), jit, config);
  };
  // Built once in the checkout's own directory.
  const CaseOutcome built = runAfresh(600);
  EXPECT_EQ(built.verdict, VerdictKind::Ok) << built.summary << "\n" << built.run.details;
  std::vector<std::filesystem::path> roots;
  for (const auto &entry : std::filesystem::directory_iterator(cache + "/pytorchsim-extensions"))
    roots.push_back(entry.path());
  ASSERT_EQ(roots.size(), 1u);
  // The lock a killed build leaves: no adapter is building, so it is stale.
  std::filesystem::create_directories(roots[0] / "npu");
  std::ofstream(roots[0] / "npu" / "lock").close();
  const CaseOutcome stale = runAfresh(120);
  EXPECT_EQ(stale.verdict, VerdictKind::Ok) << stale.summary << "\n" << stale.run.details;
  EXPECT_FALSE(std::filesystem::exists(roots[0] / "npu" / "lock"));
  // A setup the case's limit ends (here it waits on a build this process
  // holds the directory for) is the environment, not a hang of the case.
  const int guard = ::open((roots[0] / "npufuzz.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(guard, 0);
  ASSERT_EQ(::flock(guard, LOCK_EX), 0);
  const CaseOutcome ended = runAfresh(3);
  ::close(guard);
  workerPersistentCommand().stop();
  ::unsetenv("NPUFUZZ_CACHE");
  EXPECT_EQ(ended.verdict, VerdictKind::EnvironmentError) << ended.summary;
  EXPECT_NE(ended.summary.find("still setting PyTorchSim up"), std::string::npos) << ended.summary;
}

// Seed 000's class: the expert ids compared with lane ids as a mask, ids
// first (`idx == torch.arange(E)`). Torch gives both i64; PyTorchSim
// computes the lanes as index and casts them only when they come first, so
// here it compares an i64 vector with an index one, which upstream MLIR
// rejects at the compare.
TEST(PyTorchSimBackend, SeedZerosMaskIsRejectedByUpstreamMlirAtTheCompare) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  const CaseOutcome out = run(R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = iota {axis=1} : i64[8,16]
%1 = input {fill=range(0,15)} : i64[8,1]
%2 = broadcast %1 : i64[8,16]
%3 = eq %2, %0 : i1[8,16]
%4 = not %3 : i1[8,16]
%5 = input {fill=rand} : f32[8,16]
%6 = masked_fill %5, %4 {value=0} : f32[8,16]
return %6
)");
  EXPECT_EQ(out.verdict, VerdictKind::VerifierError) << out.summary;
  EXPECT_NE(out.run.message.find("arith.cmpi: use of value '%v' expects different type"),
            std::string::npos)
      << out.run.message;
}

// Seed 001's class: a chunk of a value, scaled, fed to a matmul: prologue
// fusion into PyTorchSim's GEMM template finds no candidate and asserts.
TEST(PyTorchSimBackend, SeedOnesChunkIntoAMatmulAssertsInPrologueFusion) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  const CaseOutcome out = run(R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input {fill=rand} : f32[32,128]
%1 = chunk %0 {axis=1, count=2, index=0} : f32[32,64]
%2 = const {value=2} : f32[32,64]
%3 = mul %1, %2 : f32[32,64]
%4 = input {fill=rand} : f32[64,32]
%5 = matmul %3, %4 : f32[32,32]
return %5
)");
  EXPECT_EQ(out.verdict, VerdictKind::CompileError) << out.summary;
  EXPECT_NE(out.run.message.find("pytorchsim: AssertionError in "
                                 "mlir_template.codegen_template_code"),
            std::string::npos)
      << out.run.message;
}

// The forks' floor/mod strides (seed 003's class, the live form of the
// get_dma_info bug) on two hand-written programs: a transposed reshape
// whose tile reads past the 12 elements, and a permuted reshape. Each is a
// wrong-dma-element with the one signature of that map, named at its DMA
// however op blame traces it. Master v1.1.0 moves both right (07be94b,
// 9a27549): there each is ok.
TEST(PyTorchSimBackend, TheForksFloorModStridesAreOneWrongMapSignedAtTheDma) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const bool v110 = onV110Line();
  std::vector<std::string> ids;
  for (const char *text : {R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[3,4]
%1 = transpose %0 {perm=[1,0]} : f32[4,3]
%2 = reshape %1 : f32[2,6]
return %2
)",
                           R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[64,8,8]
%1 = transpose %0 {perm=[0,2,1]} : f32[64,8,8]
%2 = reshape %1 : f32[64,64]
return %2
)"}) {
    const CaseReport r = runCaseIsolated(parseOrFail(text), jit, pytorchsim(), limits);
    if (v110) { // fixed there by 07be94b and 9a27549 (ledger pytorchsim-dma-floor-mod-strides)
      EXPECT_EQ(r.result.verdict, VerdictKind::Ok) << r.result.summary;
      continue;
    }
    EXPECT_EQ(r.result.verdict, VerdictKind::WrongDmaElement) << r.result.summary;
    EXPECT_EQ(r.signature.where, "memref.dma_start load | floor/mod index | strides wrong")
        << r.signature.text();
    EXPECT_NE(r.result.summary.find("kernel0.mlir DMA #0 (load of %in_ptr0)"), std::string::npos)
        << r.result.summary;
    ids.push_back(r.signature.id());
  }
  if (v110)
    return;
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], ids[1]);
}

// A tail PyTorchSim drops: its loops planted to round their bounds down to
// whole tiles (a sitecustomize on the adapter's PYTHONPATH wraps
// mlir_common.LoopLevel once PyTorchSim imports it; the checkout is left as
// it is). The add's last 416 elements are never stored: an unwritten
// output, signed by the store that leaves them, not by the op whose values
// they would be (which known ids of other roots name).
TEST(PyTorchSimBackend, APlantedTailDropIsAnUnwrittenOutputSignedAtItsStore) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  const std::string plant = ::testing::TempDir() + "/npufuzz-pytorchsim-tail-plant";
  std::filesystem::create_directories(plant);
  std::ofstream(plant + "/sitecustomize.py") << R"(import importlib.abc, importlib.util, sys

def _plant(module):
    level = module.LoopLevel
    init = level.__init__

    def rounded_down(self, *args, **kwargs):
        init(self, *args, **kwargs)
        try:
            size, step = int(self.size), int(self.step)
        except TypeError:
            return
        if step > 1 and size > step and size % step:
            self.size = size - size % step

    level.__init__ = rounded_down


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "PyTorchSimFrontend.mlir.mlir_common":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        sys.meta_path.insert(0, self)
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module):
            run(module)
            _plant(module)

        loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Finder())
)";
  const char *before = std::getenv("PYTHONPATH");
  const std::string kept = before ? before : "";
  ASSERT_EQ(::setenv("PYTHONPATH", (plant + (kept.empty() ? "" : ":" + kept)).c_str(), 1), 0);
  workerPersistentCommand().stop();
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const CaseReport r = runCaseIsolated(parseOrFail(R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[40,100]
%1 = input : f32[40,100]
%2 = add %0, %1 : f32[40,100]
return %2
)"),
                                       jit, pytorchsim(), limits);
  if (before)
    ::setenv("PYTHONPATH", before, 1);
  else
    ::unsetenv("PYTHONPATH");
  workerPersistentCommand().stop();
  EXPECT_EQ(r.result.verdict, VerdictKind::UnwrittenOutput) << r.result.summary;
  EXPECT_EQ(r.signature.where.rfind("memref.dma_start", 0), 0u) << r.signature.text();
}

// A benchmark's plant (bench/plants/, loaded when NPUFUZZ_PYTORCHSIM_PATCH
// names it) reaches the kernels the model runs: the rsqrt of a kernel of
// 4-wide vector steps ([9,33]) becomes a sqrt, a mismatch named at the
// rsqrt, while one of 2-wide steps ([16,12]) stays right. Without the
// variable the same case is ok.
TEST(PyTorchSimBackend, APlantNamedByItsVariableIsAMismatchAtItsOp) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  const auto rsqrtOfSquares = [](const std::string &shape) {
    return parseOrFail("npufuzz-case 1\ndata seed=1 edge_rate=0\n%0 = input : f32[" + shape +
                       "]\n%1 = mul %0, %0 : f32[" + shape + "]\n%2 = rsqrt %1 : f32[" + shape +
                       "]\nreturn %2\n");
  };
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const auto verdicts = [&] {
    workerPersistentCommand().stop();
    const CaseReport wide = runCaseIsolated(rsqrtOfSquares("9,33"), jit, pytorchsim(), limits);
    const CaseReport narrow = runCaseIsolated(rsqrtOfSquares("16,12"), jit, pytorchsim(), limits);
    workerPersistentCommand().stop();
    return std::make_pair(wide, narrow);
  };
  ASSERT_EQ(::setenv("NPUFUZZ_PYTORCHSIM_PATCH",
                     (npufuzz::testing::sourceDir() +
                      "/bench/plants/pytorchsim_wide_rsqrt_drops_reciprocal.py")
                         .c_str(),
                     1),
            0);
  const auto [planted, plantedNarrow] = verdicts();
  ::unsetenv("NPUFUZZ_PYTORCHSIM_PATCH");
  const auto [clean, cleanNarrow] = verdicts();
  EXPECT_EQ(planted.result.verdict, VerdictKind::Mismatch) << planted.result.summary;
  EXPECT_NE(planted.signature.text().find("rsqrt"), std::string::npos) << planted.signature.text();
  EXPECT_EQ(plantedNarrow.result.verdict, VerdictKind::Ok) << plantedNarrow.result.summary;
  EXPECT_EQ(clean.result.verdict, VerdictKind::Ok) << clean.result.summary;
  EXPECT_EQ(cleanNarrow.result.verdict, VerdictKind::Ok) << cleanNarrow.result.summary;
  // Ok because the model's values matched, not because none were computed.
  EXPECT_EQ(plantedNarrow.result.valuesWhyNot, "");
  EXPECT_EQ(clean.result.valuesWhyNot, "");
}

// Cases drawn as `fuzz --backend pytorchsim` draws them run to a verdict
// each, none of them the environment's. Seeds 63000000-, never tuned on.
TEST(PyTorchSimBackend, ACampaignRunsEveryCaseToAVerdict) {
  NPUFUZZ_NEEDS_PYTORCHSIM();
  CampaignOptions o;
  o.outDir = ::testing::TempDir() + "/npufuzz-pytorchsim-campaign";
  std::filesystem::remove_all(o.outDir);
  o.config = pytorchsim();
  o.policy = pytorchsimPolicy();
  o.seedStart = 63000000;
  o.maxCases = 12;
  o.jobs = 2;
  o.limits.wallSeconds = 300;
  o.progress = false;
  o.reduce = false;
  MlirJit jit;
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 12u);
  // The adapter measured PyTorchSim's code generation, or said why it
  // could not (a Python without slipcover: docs/compiler-coverage.md).
  EXPECT_NE(r.compilerCoverage.state, "not-measured");
  if (r.compilerCoverage.state == "on") {
    EXPECT_EQ(r.compilerCoverage.packages, std::vector<std::string>{"PyTorchSimFrontend"});
    EXPECT_GT(r.compilerCoverage.lines, 0u);
  }
  std::filesystem::remove_all(o.outDir);
}
