//===- tests/integrations/ExternalBackendTest.cpp - The external protocol -===//
//
// Four toolchains as tiny Python commands (stdlib only): one that crashes,
// one that hangs, one that writes wrong outputs and one that computes the
// right answer independently; each must get its verdict. Then the protocol
// end to end with the real mlir-opt/mlir-runner through the adapter script.
//
//===----------------------------------------------------------------------===//
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/OpBlame.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace npufuzz;

namespace {
const std::string kDir = NPUFUZZ_INTEGRATIONS_DIR;

const char *kAddCase = R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%a = input {fill=rand} : f32[4,8]
%b = input {fill=rand} : f32[4,8]
%s = add %a, %b : f32[4,8]
return %s
)";

Case parse(const std::string &text) {
  Case c;
  TextError error;
  EXPECT_TRUE(parseCase(text, c, error)) << error.message;
  return c;
}

RunConfig external(const std::vector<std::string> &argv) {
  RunConfig config;
  config.backend = BackendKind::External;
  config.external.argv = argv;
  config.external.timeoutSeconds = 120; // a busy machine's python is no hang
  return config;
}

RunConfig script(const char *name) {
  // -B: no __pycache__ in the source tree.
  return external({"python3", "-B", kDir + "/commands/" + name, "{dir}"});
}

CommandEnd exited(int code, const std::string &err) {
  CommandEnd e;
  e.exitCode = code;
  e.stderrText = err;
  return e;
}
} // namespace

TEST(ExternalBackend, CrashingCommandIsACrashWithItsAssertion) {
  MlirJit jit;
  const Case c = parse(kAddCase);
  const CaseOutcome out = runCase(c, jit, script("crash.py"));
  EXPECT_EQ(out.verdict, VerdictKind::Crash) << out.summary;
  EXPECT_NE(out.summary.find("Assertion `validRow > 0' failed"), std::string::npos);
  // Through an isolated worker, as a campaign runs it: the signature names
  // the assertion, not the worker.
  const RunConfig config = script("crash.py");
  const CaseReport report = reportOf(
      runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, IsolationLimits()));
  EXPECT_EQ(report.signature.kind, VerdictKind::Crash);
  EXPECT_NE(report.signature.where.find("validRow"), std::string::npos) << report.signature.text();
}

TEST(ExternalBackend, HangingCommandIsAHang) {
  MlirJit jit;
  RunConfig config = script("hang.py");
  config.external.timeoutSeconds = 1;
  const CaseOutcome out = runCase(parse(kAddCase), jit, config);
  EXPECT_EQ(out.verdict, VerdictKind::Hang) << out.summary;
  EXPECT_GE(out.run.executeSeconds, 1); // not sooner than its limit
}

TEST(ExternalBackend, WrongOutputsAreAMismatch) {
  MlirJit jit;
  const CaseOutcome out = runCase(parse(kAddCase), jit, script("wrong.py"));
  EXPECT_EQ(out.verdict, VerdictKind::Mismatch) << out.summary;
}

TEST(ExternalBackend, ACutThatFailsOnceIsNoRootOfAWrongValue) {
  // Wrong values, and an abort the first time the toolchain sees each cut
  // program op blame runs: the wrong value is the finding, not an op whose
  // prefix failed by the backend's luck.
  const std::string state = ::testing::TempDir() + "npufuzz-flaky-" + std::to_string(::getpid());
  std::filesystem::create_directories(state);
  ::setenv("NPUFUZZ_FLAKY_STATE", state.c_str(), 1);
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 300; // a busy machine's python is no hang
  const CaseReport out = runCaseIsolated(parse(R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%a = input {fill=rand} : f32[4,8]
%b = input {fill=rand} : f32[4,8]
%s = add %a, %b : f32[4,8]
%e = exp %s : f32[4,8]
return %e
)"),
                                         jit, script("flaky_cuts.py"), limits);
  ::unsetenv("NPUFUZZ_FLAKY_STATE");
  std::filesystem::remove_all(state);
  EXPECT_EQ(out.result.verdict, VerdictKind::Mismatch) << out.result.summary;
  EXPECT_EQ(out.result.summary.find("its prefix fails"), std::string::npos) << out.result.summary;
  EXPECT_EQ(out.signature.text().find(kUndefinedResult), std::string::npos) << out.signature.text();
}

namespace {
/// The case run, isolated as a campaign runs it, by a toolchain whose
/// compiled program dies of a memory error in its exp, as `how` says
/// (commands/crash_in_op.py).
CaseReport runWhereExpDies(const char *how) {
  setenv("NPUFUZZ", NPUFUZZ_BINARY, 1);
  const Case c = parse(R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%a = input {fill=rand} : f32[4,8]
%b = input {fill=rand} : f32[4,8]
%s = add %a, %b : f32[4,8]
%e = exp %s : f32[4,8]
%n = neg %e : f32[4,8]
%m = abs %n : f32[4,8]
return %m
)");
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 600; // a busy machine's mlir-opt is no hang
  RunConfig config = external({"python3", "-B", kDir + "/commands/crash_in_op.py", "{dir}", "exp",
                               how, kDir + "/../../tools/adapters/mlir_tools_adapter.sh"});
  config.external.timeoutSeconds = 120;
  return runCaseIsolated(c, jit, config, limits);
}
} // namespace

TEST(ExternalBackend, AProgramThatDiesOfAMemoryErrorIsNamedByItsOpHoweverItDied) {
  // The compiled program dies in an exp, fed by an add it got right: a
  // segfault in one run and glibc's heap check in another are one finding,
  // named by the op whose prefix first dies, not by the signal.
  auto signatureWhenItDies = [&](const char *how) {
    const CaseReport out = runWhereExpDies(how);
    EXPECT_EQ(out.result.verdict, VerdictKind::Crash) << how << ": " << out.result.summary;
    if (std::string(how) != "compiler")
      EXPECT_NE(out.result.summary.find("= exp: its prefix fails"), std::string::npos)
          << how << ": " << out.result.summary;
    return out.signature.text();
  };
  const std::string segv = signatureWhenItDies("segv");
  // An undefined result is named by its op's shape form (blamedOpName).
  EXPECT_NE(segv.find("| elementwise | " + std::string(kUndefinedResult)), std::string::npos)
      << segv;
  EXPECT_EQ(signatureWhenItDies("heap"), segv);
  // A compiler that segfaults has no op to blame: its crash, by the
  // memory error, not by which signal showed it.
  const std::string compiler = signatureWhenItDies("compiler");
  EXPECT_NE(compiler.find("died of a memory error"), std::string::npos) << compiler;
  EXPECT_EQ(compiler.find("exp"), std::string::npos) << compiler;
}

TEST(ExternalBackend, AMemoryErrorNoticedLateIsNamedByTheOpThatCorruptedMemory) {
  // The exp's kernel corrupts its result, and the heap check that notices
  // is the next op's: the program dies in the neg's prefix, not the exp's,
  // which shows the corruption as a wrong value. The exp is blamed (an IREE
  // module's aliased buffers: wrong indices in one run, glibc's abort at a
  // later op in the next), as it is when the exp's own prefix dies.
  const CaseReport out = runWhereExpDies("late");
  EXPECT_EQ(out.result.verdict, VerdictKind::Crash) << out.result.summary;
  EXPECT_NE(out.result.summary.find("= exp: its prefix fails, mismatch"), std::string::npos)
      << out.result.summary;
  EXPECT_EQ(out.signature.text(), runWhereExpDies("segv").signature.text());
}

TEST(ExternalBackend, IndependentCorrectImplementationIsOk) {
  MlirJit jit;
  const CaseOutcome out = runCase(parse(kAddCase), jit, script("correct.py"));
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

TEST(ExternalBackend, MissingOutputIsAProtocolError) {
  MlirJit jit;
  const CaseOutcome out = runCase(parse(kAddCase), jit, external({"true"}));
  EXPECT_EQ(out.run.status, BackendRun::Status::RuntimeError);
  EXPECT_NE(out.run.message.find("out0.npy was not written"), std::string::npos);
}

TEST(ExternalBackend, CaseDirectoryHoldsTheProtocolFiles) {
  MlirJit jit;
  // The command checks the files itself: a missing one fails the run.
  const CaseOutcome out = runCase(
      parse(kAddCase), jit,
      external({"sh", "-c",
                "cd \"$0\" && test -f case.npf && test -f kernel.mlir && test -f program.py && "
                "test -f kernel.pto && test -f in0.npy && test -f in1.npy && "
                "grep -q '\"out0.npy\"' manifest.json && exit 77",
                "{dir}"}));
  EXPECT_EQ(out.verdict, VerdictKind::Unsupported) << out.run.message;
}

TEST(ExternalBackend, StderrPatternsMapToStatuses) {
  std::string m;
  EXPECT_EQ(classifyEnd(exited(1, "k.mlir:3:5: error: 'memref.load' op bad\n"), m),
            BackendRun::Status::CompileError);
  EXPECT_EQ(m.substr(0, m.find('\n')), "k.mlir:3:5: error: 'memref.load' op bad");
  EXPECT_EQ(classifyEnd(exited(1, "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n"), m),
            BackendRun::Status::Crashed);
  const std::string tb = "Traceback (most recent call last):\n  File \"p.py\", line 3\n";
  EXPECT_EQ(classifyEnd(exited(1, tb + "ValueError: bad shape\n"), m),
            BackendRun::Status::RuntimeError);
  EXPECT_EQ(m.substr(0, m.find('\n')), "python: ValueError: bad shape");
  EXPECT_EQ(classifyEnd(exited(1, tb + "NotImplementedError: cast rounding rtz\n"), m),
            BackendRun::Status::Unsupported);
  EXPECT_EQ(classifyEnd(exited(1, tb + "MemoryError\n"), m), BackendRun::Status::OutOfMemory);
  EXPECT_EQ(classifyEnd(exited(77, "no tile op for topk\n"), m), BackendRun::Status::Unsupported);
  EXPECT_EQ(classifyEnd(exited(79, "dma: 5-d descriptor\n"), m),
            BackendRun::Status::SimulatorFault);
  EXPECT_EQ(classifyEnd(exited(139, ""), m), BackendRun::Status::Crashed);
  EXPECT_EQ(m.substr(0, m.find('\n')), "external command died of a memory error (signal 11)");
  // The same memory error caught by glibc's heap checks: a memory error too.
  EXPECT_EQ(classifyEnd(exited(134, "Fatal glibc error: malloc assertion failure in "
                                    "__libc_calloc: !mem\n"),
                        m),
            BackendRun::Status::Crashed);
  EXPECT_EQ(m.substr(0, m.find('\n')), "external command died of a memory error (signal 6)");
  // An abort of anything else is no memory error.
  EXPECT_EQ(classifyEnd(exited(134, "terminate called after throwing\n"), m),
            BackendRun::Status::Crashed);
  EXPECT_EQ(m.substr(0, m.find('\n')), "external command exited with 134 (signal 6)");
  EXPECT_EQ(classifyEnd(exited(3, ""), m), BackendRun::Status::RuntimeError);
}

TEST(ExternalBackend, MemoryLimitIsAnOom) {
  MlirJit jit;
  RunConfig config = external({"python3", "-c", "x = bytearray(1 << 31)"});
  config.external.addressSpaceBytes = 512ull << 20;
  const CaseOutcome out = runCase(parse(kAddCase), jit, config);
  EXPECT_EQ(out.verdict, VerdictKind::Oom) << out.summary << "\n" << out.run.message;
}

TEST(ExternalBackend, MlirToolsAdapterRunsTheSeedCorpus) {
  setenv("NPUFUZZ", NPUFUZZ_BINARY, 1);
  MlirJit jit;
  const RunConfig config =
      external({"sh", kDir + "/../../tools/adapters/mlir_tools_adapter.sh", "{dir}"});
  for (const char *name : {"bf16_rne_cast", "floormod_views", "moe_expert_mask",
                           "rowexpand_validshape_fillpad", "swiglu_chunk_prologue"}) {
    Case c;
    TextError error;
    const std::string path = kDir + "/../../corpus/seeds/" + name + ".npf";
    ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
    RunConfig withTime = config;
    withTime.external.timeoutSeconds = 120;
    const CaseOutcome out = runCase(c, jit, withTime);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << name << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}
