//===- tests/backend/TriageTest.cpp - One root cause, one signature --------===//
//
// A crash names the pass that was running; a pass that only exposes a bug of
// the lowering tail is not blamed for it; a kernel that reads memory it never
// wrote gives the same verdict and signature on every run.
//
//===----------------------------------------------------------------------===//
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

using namespace npufuzz;
using npufuzz::testing::kExposingPasses;
using npufuzz::testing::kI1Store;

namespace {
Case caseOf(const std::string &text) {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCase(text, c, err)) << err.format("case");
  return c;
}

void loadTestPlugin(MlirJit &jit) {
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
}

/// The case task in a forked child, as a campaign's confirmation runs it.
/// Two f32 inputs added: the addf the test plugin's miscompile rewrites.
const char *const kAdd = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = input : f32[2,3]
%2 = add %0, %1 : f32[2,3]
return %2
)";

CaseReport confirm(const Case &c, MlirJit &jit, const RunConfig &caseConfig) {
  // Generous limits for the case and for each blame (tens of JIT runs):
  // a loaded or slow machine is not a hang.
  IsolationLimits limits;
  limits.wallSeconds = 120;
  RunConfig config = caseConfig;
  limits = limitsWithBlame(limits, config);
  return reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
}
} // namespace

TEST(Triage, AnInProcessCrashNamesThePassThatWasRunning) {
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  RunConfig config;
  config.pipeline = "func.func(canonicalize),func.func(npufuzz-test-crash)";
  const CaseReport r = confirm(caseOf(R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = input : f32[2,1]
%2 = row_expand_div %0, %1 : f32[2,3]
return %2
)"),
                               jit, config);
  EXPECT_EQ(r.result.verdict, VerdictKind::Crash) << r.stderrText;
  EXPECT_EQ(r.result.passName, "func.func(npufuzz-test-crash)");
  EXPECT_EQ(r.result.passIndex, 1);
  EXPECT_EQ(r.signature.pass, "func.func(npufuzz-test-crash)");
  // It aborted without an assertion: the pass and the signal are the
  // finding, not the frames that caught it.
  EXPECT_EQ(r.signature.where, "signal 6") << r.signature.where;
}

TEST(Triage, APassThatNeverEndsIsNamedToo) {
  // Past its deadline the worker gets SIGABRT before SIGKILL, so the same
  // handler says which pass it was in.
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  RunConfig config;
  config.pipeline = "func.func(cse),func.func(npufuzz-test-hang)";
  IsolationLimits limits;
  limits.wallSeconds = 10; // the pass never ends: any limit is reached
  const Case c = caseOf(R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = input : f32[2,3]
%2 = sub %0, %1 : f32[2,3]
return %2
)");
  const CaseReport r =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
  EXPECT_EQ(r.result.verdict, VerdictKind::Hang) << r.stderrText;
  EXPECT_EQ(r.signature.pass, "func.func(npufuzz-test-hang)") << r.stderrText;
  EXPECT_EQ(r.result.passIndex, 1);
}

TEST(Triage, AKernelThatCrashesIsBlamedOnThePassThatMadeIt) {
  // The planted pass frees buffers twice: the passes and code generation
  // go through, the compiled kernel aborts. Each prefix runs in a child.
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  RunConfig config;
  config.pipeline = "func.func(cse),func.func(npufuzz-test-double-free),func.func(canonicalize)";
  const Case c = caseOf(R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = transpose %0 {perm=[1,0]} : f32[3,2]
%2 = exp %1 : f32[3,2]
return %2
)");
  IsolationLimits limits;
  limits.wallSeconds = 120; // generous: a loaded machine is not a hang
  CaseReport r = confirm(c, jit, config);
  ASSERT_EQ(r.result.verdict, VerdictKind::Crash) << r.result.summary << r.stderrText;
  EXPECT_EQ(r.signature.where, "kernel");
  blameKernelFault(c, jit, config, limits, r);
  EXPECT_EQ(r.signature.pass, "func.func(npufuzz-test-double-free)") << r.result.summary;
  EXPECT_EQ(r.result.passIndex, 1);
}

TEST(Triage, AnAccessPastABufferIsNamedByABoundsCheckedRunAndBlamedOnItsPass) {
  // The planted passes move the last subscript of every load (store) one
  // element on: the kernel reads (writes) one past the end of each row. The
  // run itself reads the redzone's poison (a wrong value that changes with
  // it), or changes a redzone; a bounds-checked run names the access, which
  // is the symptom of the pass's one bad-access root.
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  const Case c = caseOf(R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,8]
%1 = exp %0 : f32[4,8]
return %1
)");
  struct Planted {
    const char *pass;
    VerdictKind verdict;
    const char *access;
  };
  for (const Planted &p : {Planted{"func.func(npufuzz-test-load-past-end)",
                                   VerdictKind::OutOfBoundsRead, "memref.load"},
                           Planted{"func.func(npufuzz-test-store-past-end)",
                                   VerdictKind::OutOfBoundsWrite, "memref.store"}}) {
    RunConfig config;
    config.pipeline = std::string("func.func(cse),") + p.pass + ",func.func(canonicalize)";
    const CaseReport r = confirm(c, jit, config);
    EXPECT_EQ(r.result.verdict, p.verdict) << r.result.summary << r.stderrText;
    // One root of the pass whichever access it showed by (kBadAccess); the
    // access is the case's symptom.
    EXPECT_EQ(r.signature.kind, VerdictKind::Mismatch);
    EXPECT_EQ(r.signature.where, kBadAccess);
    EXPECT_EQ(r.result.symptom, std::string(verdictName(p.verdict)) + " in " + p.access);
    EXPECT_EQ(r.signature.pass, p.pass) << r.result.summary;
    EXPECT_EQ(r.signature.message, "");
    EXPECT_EQ(r.result.passIndex, 1);
    EXPECT_NE(r.result.summary.find("of dimension 1, whose size is 8"), std::string::npos)
        << r.result.summary;
  }
}

TEST(Triage, WarningsOfPassesThatSucceedAreKeptWithTheFinding) {
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  RunConfig config;
  config.pipeline = "func.func(npufuzz-test-warn),func.func(npufuzz-test-miscompile)";
  const CaseReport r = confirm(caseOf(kAdd), jit, config);
  EXPECT_EQ(r.result.verdict, VerdictKind::Mismatch);
  EXPECT_NE(r.result.passWarnings.find("after pass 0 (func.func(npufuzz-test-warn))"),
            std::string::npos)
      << r.result.passWarnings;
  EXPECT_NE(r.result.passWarnings.find("warning: npufuzz-test-warn saw this function"),
            std::string::npos)
      << r.result.passWarnings;
  // Not part of the signature.
  EXPECT_EQ(r.signature.message, "");
}

TEST(Triage, APassThatOnlyExposesATailBugIsNotBlamedForIt) {
  MlirJit jit;
  RunConfig config;
  config.pipeline = kExposingPasses;
  const CaseReport r = confirm(caseOf(kI1Store), jit, config);
  EXPECT_EQ(r.signature.pass, "convert-vector-to-llvm") << r.result.summary;
  EXPECT_EQ(r.result.exposedBy, "func.func(affine-loop-unroll{unroll-factor=2})");
  // Its position in the pipeline's elements: after the two passes.
  EXPECT_EQ(r.result.passIndex, 2 + 8);

  // Other passes that expose it give the same finding.
  config.pipeline = "func.func(affine-super-vectorize{virtual-vector-size=4}),"
                    "func.func(affine-loop-unroll{unroll-factor=4})";
  const CaseReport other = confirm(caseOf(kI1Store), jit, config);
  EXPECT_EQ(other.signature.id(), r.signature.id()) << other.result.summary;
  EXPECT_EQ(other.result.exposedBy, "func.func(affine-loop-unroll{unroll-factor=4})");

  // When the passes leave nothing for the tail to miscompile, there is no
  // finding to blame at all.
  config.pipeline = "func.func(affine-super-vectorize{virtual-vector-size=16})";
  EXPECT_EQ(confirm(caseOf(kI1Store), jit, config).result.verdict, VerdictKind::Ok);
}

TEST(Triage, ReadingAnUnwrittenTemporaryIsAnUninitializedReadEveryTime) {
  // The bytes the packed store leaves unwritten are in a temporary the
  // kernel allocates: filled with the scratch poison, not the heap's past.
  MlirJit jit;
  RunConfig config;
  config.pipeline = kExposingPasses;
  const CaseReport first = confirm(caseOf(kI1Store), jit, config);
  EXPECT_EQ(first.result.verdict, VerdictKind::UninitializedRead) << first.result.summary;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(confirm(caseOf(kI1Store), jit, config).signature.id(), first.signature.id());
  // No data values in it; and blamed on a pass, it is that pass's wrong
  // values, the signature of a mismatch.
  EXPECT_EQ(first.signature.message, "");
  EXPECT_EQ(first.signature.kind, VerdictKind::Mismatch);
}

TEST(Triage, PassesAtALaterStageAreBlamedAtTheirElement) {
  // The user's passes after the lowering to loops: the pipeline's first
  // elements are the style's, and blame names the user's pass at its own
  // position, after them.
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  RunConfig config;
  config.pipeline = "func.func(canonicalize),func.func(npufuzz-test-miscompile)";
  config.stage = PassStage::Loops;
  const CaseReport r = confirm(caseOf(kAdd), jit, config);
  EXPECT_EQ(r.result.verdict, VerdictKind::Mismatch);
  EXPECT_EQ(r.signature.pass, "func.func(npufuzz-test-miscompile)") << r.result.summary;
  Pipeline p;
  std::string error;
  ASSERT_TRUE(resolvePipeline(config.pipeline, config.style, p, error, config.stage)) << error;
  ASSERT_FALSE(p.before.empty());
  EXPECT_EQ(r.result.passIndex, static_cast<int>(p.before.size()) + 1);
}

TEST(Triage, ABlameThatRunsOutOfTimeSaysSoAndNamesNoOtherFinding) {
  // The slow pass sleeps 300 ms a function: four of them in a row sleep
  // 1.2 s, longer than the grace a child whose memory still grows gets past
  // a 0.1 s limit, so no blame finishes, however fast the machine. The
  // signature must then say that blame timed out, never name the op where
  // the wrong value showed (another signature than the finished blame's).
  MlirJit jit;
  ASSERT_NO_FATAL_FAILURE(loadTestPlugin(jit));
  std::string pipeline;
  for (int k = 0; k < 5; ++k)
    pipeline += "func.func(npufuzz-test-slow),";
  pipeline += "func.func(npufuzz-test-miscompile)";
  IsolationLimits caseLimits;
  caseLimits.wallSeconds = 120;
  RunConfig config;
  config.pipeline = pipeline;
  IsolationLimits limits = limitsWithBlame(caseLimits, config);
  config.blameSeconds = 0.1;
  const Case c = caseOf(kAdd);
  const CaseReport starved =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
  EXPECT_EQ(starved.result.verdict, VerdictKind::Mismatch) << starved.result.summary;
  EXPECT_TRUE(starved.result.blameTimedOut);
  EXPECT_EQ(starved.signature.where, "blame timed out") << starved.signature.text();
  EXPECT_NE(starved.result.summary.find("blame: timed out"), std::string::npos);
  // With time, the same case names its pass.
  RunConfig patient;
  patient.pipeline = pipeline;
  const CaseReport blamed = confirm(c, jit, patient);
  EXPECT_FALSE(blamed.result.blameTimedOut);
  EXPECT_EQ(blamed.signature.pass, "func.func(npufuzz-test-miscompile)") << blamed.signature.text();
}
