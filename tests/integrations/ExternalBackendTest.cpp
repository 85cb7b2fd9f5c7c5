//===- tests/integrations/ExternalBackendTest.cpp - The external protocol -===//
//
// Four toolchains as tiny Python commands (stdlib only): one that crashes,
// one that hangs, one that writes wrong outputs and one that computes the
// right answer independently; each must get its verdict. Then the protocol
// end to end with the real mlir-opt/mlir-runner through the adapter script.
//
//===----------------------------------------------------------------------===//
#include "driver/CaseTask.h"
#include "driver/ReduceCommand.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/OpBlame.h"
#include "shrink/Generalize.h"

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

namespace {
/// A case run isolated, as a campaign runs it, on a toolchain whose compiled
/// program segfaults when it has an op `crashIn` matches (a regular
/// expression of op names) and whose `wrong` ops' results are 1 too large
/// (commands/crash_in_op.py), then its signature generalised as a campaign
/// generalises a case signature seen first.
struct Filed {
  CaseReport report;
  Signature root;
};
Filed fileOn(const std::string &text, const std::string &crashIn, const std::string &wrong = "",
             const std::set<std::string> &known = {}) {
  setenv("NPUFUZZ", NPUFUZZ_BINARY, 1);
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 600; // a busy machine's mlir-opt is no hang
  std::vector<std::string> argv = {"python3",
                                   "-B",
                                   kDir + "/commands/crash_in_op.py",
                                   "{dir}",
                                   crashIn,
                                   "segv",
                                   kDir + "/../../tools/adapters/mlir_tools_adapter.sh"};
  if (!wrong.empty())
    argv.push_back("wrong=" + wrong);
  RunConfig config = external(argv);
  config.knownSignatures = known;
  Filed f;
  f.report = runCaseIsolated(parse(text), jit, config, limits);
  f.root = generalizeSignature({parse(text), config.pipeline}, f.report.signature,
                               isolatedRunner(jit, config, limits), config.style, config.stage);
  return f;
}

/// One op of each shape form, its result negated (neg: a unary op, which no
/// plant below touches).
const char *kRowExpandCase = R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%x = input {fill=rand} : f32[4,8]
%v = input {fill=rand} : f32[4,1]
%r = row_expand_add %x, %v : f32[4,8]
%n = neg %r : f32[4,8]
return %n
)";
const char *kColExpandCase = R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%x = input {fill=rand} : f32[4,8]
%w = input {fill=rand} : f32[1,8]
%r = col_expand_mul %x, %w : f32[4,8]
%n = neg %r : f32[4,8]
return %n
)";
const char *kBinaryCase = R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%x = input {fill=rand} : f32[4,8]
%y = input {fill=rand} : f32[4,8]
%r = mul %x, %y : f32[4,8]
%n = neg %r : f32[4,8]
return %n
)";
const std::string kBinaryOps = "add|sub|mul|div|max|min";
} // namespace

TEST(ExternalBackend, OneBugAcrossShapeFormsIsOneRootAndBugsInTwoFormsAreTwo) {
  // One bug in every row-expand, column-expand and binary op (seed 002's
  // valid shape never set, in each t-op family a ptoas regression touched):
  // each case is named by its op's shape form, and each form rebuilt in the
  // two others fails alike, so all three are one root, under any op.
  const std::string oneBug = "row_expand_\\w+|col_expand_\\w+|" + kBinaryOps;
  std::set<std::string> roots;
  for (const char *text : {kRowExpandCase, kColExpandCase, kBinaryCase}) {
    const Filed f = fileOn(text, oneBug);
    EXPECT_EQ(f.report.result.verdict, VerdictKind::Crash) << f.report.result.summary;
    EXPECT_NE(f.report.signature.text().find("| " + std::string(kUndefinedResult)),
              std::string::npos)
        << f.report.signature.text();
    EXPECT_EQ(f.root.where, kAnyOp) << f.report.signature.text();
    roots.insert(f.root.text());
  }
  EXPECT_EQ(roots.size(), 1u);
  // Two bugs, one in the row-expand ops and one in the binary ops: rebuilt
  // as a column expand, neither fails, so each keeps its form.
  const std::string twoBugs = "row_expand_\\w+|" + kBinaryOps;
  const Filed row = fileOn(kRowExpandCase, twoBugs), binary = fileOn(kBinaryCase, twoBugs);
  EXPECT_EQ(row.root.where, "row_expand_*") << row.root.text();
  EXPECT_EQ(binary.root.where, "elementwise") << binary.root.text();
}

TEST(ExternalBackend, AKnownBehaviourLendsNoNameToTheCrashAfterIt) {
  // An add whose result is grossly wrong (a known toolchain behaviour, as
  // pto-isa's INT_MIN saturation of a cast is), then a reduction where the
  // program dies of a memory error. A memory error is traced to the first
  // op whose prefix shows a gross wrong value; the known one is passed.
  const char *text = R"(npufuzz-case 1
data seed=5 edge_rate=0.1
%a = input {fill=rand} : f32[4,8]
%b = input {fill=rand} : f32[4,8]
%s = add %a, %b : f32[4,8]
%r = reduce_sum %s {axis=0} : f32[1,8]
%n = neg %r : f32[1,8]
return %n
)";
  const Signature addIsWrong{VerdictKind::Mismatch, "", "add", "value"};
  const Filed unknown = fileOn(text, "reduce_sum", "add");
  // Without the list the add's gross wrong value stands for the crash (the
  // test would pass vacuously if it did not).
  EXPECT_NE(unknown.report.signature.text().find("| elementwise | "), std::string::npos)
      << unknown.report.signature.text();
  const Filed known = fileOn(text, "reduce_sum", "add", {addIsWrong.id()});
  EXPECT_EQ(known.report.result.verdict, VerdictKind::Crash) << known.report.result.summary;
  EXPECT_NE(known.report.signature.text().find("| reduce_* | " + std::string(kUndefinedResult)),
            std::string::npos)
      << known.report.signature.text() << "; " << known.report.result.summary;
  EXPECT_NE(known.report.signature.id(), addIsWrong.id());
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
