//===- tests/integrations/TorchBackendTest.cpp - Real PyTorch as a target -===//
//
// The pinned torch 2 (ci/install-torch.sh) runs the emitted programs through
// the persistent adapter, eagerly (--backend torch) and under torch.compile
// (--backend inductor). What used to disagree with the reference (the order
// of topk ties, the missing f16 topk kernel) must agree; the adapter is
// started once for many cases; a bug planted in Inductor is found at its op.
// ci/test.sh installs torch, so its absence is a failure.
//
//===----------------------------------------------------------------------===//
#include "backend/external/PersistentCommand.h"
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/Exactness.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

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
// Reductions whose axes hold NaN, both zeros, infinities and the integer
// extremes (edge_rate 0.6), and rows of zeros of either sign (x * 0): max
// and min keep NaN and the order -0 < +0,
// argmax takes the first NaN or the first maximum, and an integer minimum
// is no negation that wraps.
const char *kEdgeReductions = R"(npufuzz-case 1
data seed=11 edge_rate=0.6
%0 = input {fill=rand} : f32[6,40]
%1 = reduce_max %0 {axis=1} : f32[6,1]
%2 = reduce_min %0 {axis=1} : f32[6,1]
%3 = argmax %0 {axis=1} : i64[6,1]
%4 = input {fill=rand} : bf16[9,5]
%5 = reduce_min %4 {axis=0} : bf16[1,5]
%6 = argmax %4 {axis=0} : i64[1,5]
%7 = input {fill=rand} : i32[4,33]
%8 = reduce_min %7 {axis=1} : i32[4,1]
%9 = reduce_max %7 {axis=1} : i32[4,1]
%10 = input {fill=rand} : i8[3,17]
%11 = reduce_min %10 {axis=1} : i8[3,1]
%12 = argmax %10 {axis=1} : i64[3,1]
%13 = input {fill=rand} : f32[12,2]
%14 = const {value=0} : f32[12,2]
%15 = mul %13, %14 : f32[12,2]
%16 = reduce_max %15 {axis=1} : f32[12,1]
%17 = reduce_min %15 {axis=1} : f32[12,1]
%18 = argmax %15 {axis=1} : i64[12,1]
return %1, %2, %3, %5, %6, %8, %9, %11, %12, %16, %17, %18
)";
} // namespace

TEST(TorchBackend, ReductionsOfEdgeValuesAgreeWithTheReference) {
  MlirJit jit;
  const TaskResult r = runCaseTask(parseOrFail(kEdgeReductions), jit, torch());
  EXPECT_EQ(r.verdict, VerdictKind::Ok) << r.summary << "\n" << r.message;
}

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

// Eager torch's import outlasted a case's limit on a busy machine and was
// filed as a hang. Here the import is made slower than the limit by a sleep
// planted in the adapter's interpreter (a sitecustomize on its path): the
// start is on top of the limit, measured, and the case is ok.
TEST(TorchBackend, AnImportSlowerThanTheLimitIsMeasuredAndNoHang) {
  MlirJit jit;
  RunConfig config = torch();
  const std::filesystem::path site = std::filesystem::temp_directory_path() /
                                     ("npufuzz-slow-import-" + std::to_string(::getpid()));
  std::filesystem::create_directories(site);
  std::ofstream(site / "sitecustomize.py") << "import time\ntime.sleep(12)\n";
  config.external.timeoutSeconds = 10;
  config.external.environment.push_back({"PYTHONPATH", site.string()});
  workerPersistentCommand().stop();
  const TaskResult r = runCaseTask(parseOrFail(kTies), jit, config);
  workerPersistentCommand().stop();
  std::filesystem::remove_all(site);
  EXPECT_EQ(r.verdict, VerdictKind::Ok) << r.summary << "\n" << r.message;
  EXPECT_GE(r.startSeconds, 12.0);
}

// --backend inductor: the same programs with their kernel under
// torch.compile(fullgraph=True, dynamic=False), compiled by Inductor to C++.
RunConfig inductor() {
  RunConfig config;
  std::string error;
  EXPECT_TRUE(configureTorchBackend(config, "", error, BackendKind::Inductor)) << error;
  config.metamorphicShare = 0;
  return config;
}

/// Loads the patch at `path` into the adapter (NPUFUZZ_INDUCTOR_PATCH), or
/// none when `path` is empty: the adapter inherits the environment, so it
/// starts again.
void useInductorPatch(const std::string &path) {
  workerPersistentCommand().stop();
  if (path.empty()) {
    ::unsetenv("NPUFUZZ_INDUCTOR_PATCH");
    return;
  }
  ASSERT_EQ(::setenv("NPUFUZZ_INDUCTOR_PATCH", path.c_str(), 1), 0);
}

/// A patch of `text` written as `file` in a scratch directory (its module
/// name, which signatures show, is the file's), and its path.
std::string writtenPatch(const std::string &file, const std::string &text) {
  const std::string dir = ::testing::TempDir() + "/npufuzz-inductor-patches";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + file) << text;
  return dir + "/" + file;
}

/// Plants the pattern-matcher bug of tests/integrations/inductor/ (sub's
/// operands swapped when a view feeds it) in the adapter, or takes it out.
void plantPatternMatcherBug(bool planted) {
  useInductorPatch(planted ? npufuzz::testing::sourceDir() +
                                 "/tests/integrations/inductor/sub_swaps_view_operands.py"
                           : "");
}

// A view (seed 001's chunk, here a slice) feeding a sub.
const char *kViewSub = R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[4,8]
%1 = input : f32[4,4]
%2 = slice %0 {offsets=[0,4], sizes=[4,4], strides=[1,1]} : f32[4,4]
%3 = sub %2, %1 : f32[4,4]
return %3
)";

TEST(InductorBackend, EverySeedCaseRunsExactThroughInductor) {
  MlirJit jit;
  const RunConfig config = inductor();
  EXPECT_EQ(config.backend, BackendKind::Inductor);
  for (const std::string &path : npufuzz::testing::corpusFiles("corpus/seeds")) {
    Case c;
    TextError error;
    ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << path << ": " << out.summary;
  }
  EXPECT_EQ(runCase(parseOrFail(kViewSub), jit, config).verdict, VerdictKind::Ok);
}

// A bug planted in Inductor (tests/integrations/inductor/: a pattern of its
// pattern matcher swaps sub's operands when a view feeds it) is a mismatch
// of the sub's output, blamed on the pattern matcher (switch blame), and
// the finding keeps the code Inductor generated.
TEST(InductorBackend, APlantedPatternMatcherBugIsAMismatchBlamedOnThePatternMatcher) {
  MlirJit jit;
  plantPatternMatcherBug(true);
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const CaseReport r = runCaseIsolated(parseOrFail(kViewSub), jit, inductor(), limits);
  // A reduction's hint that names another switch (RunConfig::blameFirst)
  // changes nothing: that switch off, the bug stays, and blame goes on.
  RunConfig hinted = inductor();
  hinted.blameFirst = CompilerSwitch::InductorEpilogueFusion;
  const CaseReport h = runCaseIsolated(parseOrFail(kViewSub), jit, hinted, limits);
  plantPatternMatcherBug(false);
  EXPECT_EQ(h.signature.id(), r.signature.id()) << h.signature.text();
  EXPECT_EQ(r.result.verdict, VerdictKind::Mismatch) << r.result.summary;
  EXPECT_NE(r.result.summary.find("output 0 (%3)"), std::string::npos) << r.result.summary;
  EXPECT_EQ(r.signature.pass, "inductor:pattern_matcher") << r.signature.text();
  EXPECT_NE(r.result.details.find("--- code Inductor generated"), std::string::npos)
      << r.result.details;
  EXPECT_EQ(r.result.message.find("Inductor generated"), std::string::npos);
}

// An exception in Inductor's lowering is a compile-error signed by its type
// and the frame that raised it (a patch's own, here; Inductor's innermost
// for its own code), with no number from the message in it.
TEST(InductorBackend, AnInductorExceptionIsACompileErrorSignedByWhereItWasRaised) {
  MlirJit jit;
  useInductorPatch(writtenPatch("raise_in_sub.py",
                                "import torch\n"
                                "from torch._inductor import lowering\n"
                                "def planted_sub_lowering(a, b, *args, **kwargs):\n"
                                "    raise AssertionError('planted at 0x1234, size 77')\n"
                                "lowering.lowerings[torch.ops.aten.sub.Tensor] = "
                                "planted_sub_lowering\n"));
  IsolationLimits limits;
  limits.wallSeconds = 300;
  const CaseReport r = runCaseIsolated(parseOrFail(kViewSub), jit, inductor(), limits);
  useInductorPatch("");
  EXPECT_EQ(r.result.verdict, VerdictKind::CompileError) << r.result.summary;
  EXPECT_EQ(r.result.message.substr(0, r.result.message.find('\n')),
            "inductor: AssertionError in raise_in_sub.planted_sub_lowering");
  // The traceback, whose lines say "error" too, is kept apart from what
  // the signature reads.
  EXPECT_NE(
      r.signature.text().find("inductor: AssertionError in raise_in_sub.planted_sub_lowering"),
      std::string::npos)
      << r.signature.text();
  EXPECT_NE(r.result.details.find("Traceback"), std::string::npos) << r.result.details;
}

// A compile killed while it wrote its library (a case's limit, a campaign
// interrupted) leaves an empty .so in the cache every adapter shares; the
// next case whose kernel hashes the same could not load it. That is the
// machine's state, not Inductor's answer: the adapter removes the broken
// kernel and compiles again, and the case is judged as if it had not been.
TEST(InductorBackend, AKernelLeftCutInInductorsCacheIsCompiledAgainNotAFinding) {
  MlirJit jit;
  const std::string cache = ::testing::TempDir() + "/npufuzz-inductor-cache";
  std::filesystem::remove_all(cache);
  std::filesystem::create_directories(cache);
  workerPersistentCommand().stop();
  ASSERT_EQ(::setenv("TORCHINDUCTOR_CACHE_DIR", cache.c_str(), 1), 0);
  const RunConfig config = inductor();
  const Case c = parseOrFail(kViewSub);
  EXPECT_EQ(runCase(c, jit, config).verdict, VerdictKind::Ok);
  workerPersistentCommand().stop(); // a new process: no kernel loaded yet
  unsigned cut = 0;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(cache))
    if (entry.path().extension() == ".so") {
      std::filesystem::resize_file(entry.path(), 0);
      ++cut;
    }
  const CaseOutcome again = runCase(c, jit, config);
  workerPersistentCommand().stop();
  ::unsetenv("TORCHINDUCTOR_CACHE_DIR");
  EXPECT_GE(cut, 1u);
  EXPECT_EQ(again.verdict, VerdictKind::Ok) << again.summary;
}

// With its static_shapes switch off, a case's sizes reach Inductor as
// symbols (torch.compile(dynamic=True)); on, as constants. A patch that
// raises when sub's operand has a symbolic size sees which.
TEST(InductorBackend, WithStaticShapesOffSizesReachInductorAsSymbols) {
  MlirJit jit;
  const std::string patch =
      writtenPatch("symbolic_sub.py", "import sympy\n"
                                      "import torch\n"
                                      "from torch._inductor import lowering\n"
                                      "_sub = lowering.lowerings[torch.ops.aten.sub.Tensor]\n"
                                      "def sub_of_symbolic_sizes(a, b, *args, **kwargs):\n"
                                      "    if not all(isinstance(s, (int, sympy.Integer)) for s in "
                                      "a.get_size()):\n"
                                      "        raise AssertionError('a size is a symbol')\n"
                                      "    return _sub(a, b, *args, **kwargs)\n"
                                      "lowering.lowerings[torch.ops.aten.sub.Tensor] = "
                                      "sub_of_symbolic_sizes\n");
  const Case c = parseOrFail("npufuzz-case 1\n"
                             "%0 = input : f32[5,7]\n"
                             "%1 = input : f32[5,7]\n"
                             "%2 = sub %0, %1 : f32[5,7]\n"
                             "return %2\n");
  useInductorPatch(patch);
  RunConfig config = inductor();
  EXPECT_EQ(runCase(c, jit, config).verdict, VerdictKind::Ok);
  config.switchesOff = {CompilerSwitch::InductorStaticShapes};
  const CaseOutcome symbolic = runCase(c, jit, config);
  useInductorPatch("");
  EXPECT_EQ(symbolic.verdict, VerdictKind::CompileError) << symbolic.summary;
  EXPECT_NE(symbolic.summary.find("AssertionError in symbolic_sub.sub_of_symbolic_sizes"),
            std::string::npos)
      << symbolic.summary;
}

// Inductor's numerics (torch/_inductor/config.py): under "default" it may
// fold a negation into an arange's index and lose the sign of -0 (what
// pytorch/pytorch#196031 mends only under "strict"), so -arange(32) as f16
// differs from eager at index 0; under strict pointwise it must not. Switch
// blame tries the numerics switches first and files the difference as the
// default mode's freedom. Strict pointwise keeps every low-precision cast,
// so a fused bf16 chain is judged exactly there, and a planted bug is still
// found.
TEST(InductorBackend, WhatOnlyDefaultNumericsShowsIsTheModesFreedom) {
  MlirJit jit;
  const Case negArange = parseOrFail("npufuzz-case 1\n"
                                     "%0 = iota {axis=0} : f16[32,1]\n"
                                     "%1 = neg %0 : f16[32,1]\n"
                                     "return %1\n");
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const CaseReport byDefault = runCaseIsolated(negArange, jit, inductor(), limits);
  EXPECT_EQ(byDefault.result.verdict, VerdictKind::Mismatch) << byDefault.result.summary;
  EXPECT_EQ(byDefault.signature.pass, "inductor:default_pointwise_numerics")
      << byDefault.signature.text();
  RunConfig strict = inductor();
  strict.switchesOff = {CompilerSwitch::InductorDefaultPointwiseNumerics,
                        CompilerSwitch::InductorDefaultReductionNumerics};
  EXPECT_EQ(runCase(negArange, jit, strict).verdict, VerdictKind::Ok);

  // A bf16 chain Inductor fuses: every intermediate rounded under strict
  // pointwise, so compared bit for bit, and equal.
  const Case chain = parseOrFail("npufuzz-case 1\n"
                                 "data seed=5 edge_rate=0\n"
                                 "%0 = input : bf16[8,16]\n"
                                 "%1 = input : bf16[8,16]\n"
                                 "%2 = mul %0, %1 : bf16[8,16]\n"
                                 "%3 = add %2, %0 : bf16[8,16]\n"
                                 "%4 = mul %3, %3 : bf16[8,16]\n"
                                 "return %4\n");
  EXPECT_FALSE(freedomsOf(BackendKind::Inductor, switchStates(BackendKind::Inductor, std::nullopt,
                                                              strict.switchesOff, true))
                   .lowPrecisionHeldWide);
  const CaseOutcome exact = runCase(chain, jit, strict);
  EXPECT_EQ(exact.verdict, VerdictKind::Ok) << exact.summary;

  // The planted pattern-matcher bug is no freedom: strict, it stays.
  plantPatternMatcherBug(true);
  const CaseOutcome planted = runCase(parseOrFail(kViewSub), jit, strict);
  plantPatternMatcherBug(false);
  EXPECT_EQ(planted.verdict, VerdictKind::Mismatch) << planted.summary;
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

// Freezing, max-autotune and cpp_wrapper are modes users ask for: off without a
// lowering seed, drawn with one. With the first two on (sizes constant), an
// addmm whose second factor is an input a model holds as a weight
// (weightInputs) reaches Inductor as a module's frozen parameter and
// takes its C++ GEMM template, the one choice the adapter leaves
// (never timed): a patch that raises when the template renders sees it.
// At the defaults the matmul is ATen's, and with both on and no patch the
// values agree.
TEST(InductorBackend, FrozenWeightsTakeTheCppGemmTemplateUnderMaxAutotune) {
  MlirJit jit;
  std::optional<uint64_t> both;
  for (uint64_t seed = 1; seed < 256 && !both; ++seed) {
    bool freezing = false, autotune = false, constantSizes = false;
    for (const SwitchState &s : switchStates(BackendKind::Inductor, seed, {}, true)) {
      freezing |= s.id == CompilerSwitch::InductorFreezing && s.on;
      autotune |= s.id == CompilerSwitch::InductorMaxAutotune && s.on;
      constantSizes |= s.id == CompilerSwitch::InductorStaticShapes && s.on;
    }
    if (freezing && autotune && constantSizes)
      both = seed;
  }
  ASSERT_TRUE(both.has_value());
  for (const SwitchState &s : switchStates(BackendKind::Inductor, std::nullopt, {}, true))
    EXPECT_EQ(s.on, s.id != CompilerSwitch::InductorFreezing &&
                        s.id != CompilerSwitch::InductorMaxAutotune &&
                        s.id != CompilerSwitch::InductorCppWrapper)
        << switchName(s.id);

  const std::string patch =
      writtenPatch("gemm_template_seen.py",
                   "from torch._inductor.codegen.cpp_gemm_template import CppGemmTemplate\n"
                   "def render(self, *args, **kwargs):\n"
                   "    raise AssertionError('the C++ GEMM template renders')\n"
                   "CppGemmTemplate.render = render\n");
  const Case c = parseOrFail("npufuzz-case 1\n"
                             "data seed=7 edge_rate=0\n"
                             "%0 = input : f32[1,24]\n"
                             "%1 = input : f32[16,32]\n"
                             "%2 = input : f32[32,24]\n"
                             "%3 = addmm %0, %1, %2 : f32[16,24]\n"
                             "%4 = relu %3 : f32[16,24]\n"
                             "return %4\n");
  ASSERT_EQ(weightInputs(c), (std::vector<size_t>{0, 2}));
  RunConfig config = inductor();
  const CaseOutcome frozen = [&] {
    RunConfig on = config;
    on.loweringSeed = both;
    return runCase(c, jit, on);
  }();
  EXPECT_EQ(frozen.verdict, VerdictKind::Ok) << frozen.summary;

  useInductorPatch(patch);
  const CaseOutcome byDefault = runCase(c, jit, config);
  config.loweringSeed = both;
  const CaseOutcome templated = runCase(c, jit, config);
  useInductorPatch("");
  EXPECT_EQ(byDefault.verdict, VerdictKind::Ok) << byDefault.summary;
  EXPECT_EQ(templated.verdict, VerdictKind::CompileError) << templated.summary;
  EXPECT_NE(templated.summary.find("AssertionError in gemm_template_seen.render"),
            std::string::npos)
      << templated.summary;
}
