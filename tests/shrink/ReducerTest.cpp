//===- tests/shrink/ReducerTest.cpp - Reducing planted failures -----------===//
//
// Failing cases of 8+ compute ops, planted with the test plugin, reduce to a
// few ops with lane-sized dims and to the single planted pass, keeping their
// signature; a case that can fail two ways stays with the failure asked for;
// the reducer tests no candidate twice and gives the same result every time
// and for any --jobs; an external command decides in C-Reduce style; the
// regressions under corpus/regressions replay with their verdicts.
//
//===----------------------------------------------------------------------===//
#include "shrink/Reducer.h"
#include "backend/mlir/Pipelines.h"
#include "bench/PlantedFaults.h"
#include "driver/ReduceCommand.h"
#include "ir/Text.h"
#include "ir/Verifier.h"
#include "shrink/Generalize.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace npufuzz;

namespace {

class ReducerTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(jit_.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
    limits_.wallSeconds = 60; // a candidate on a busy machine is no hang
    limits_.addressSpaceBytes = 2ull << 30;
    run_ = isolatedRunner(jit_, RunConfig(), limits_);
  }

  static ReduceOptions options(unsigned jobs = 2) {
    ReduceOptions o;
    o.maxSeconds = 1800; // never reached: these reductions end by themselves
    o.jobs = jobs;
    return o;
  }

public:
  bool hasOpPublic(const Case &c, OpKind k) { return hasOp(c, k); }

protected:
  bool hasOp(const Case &c, OpKind k) {
    for (const Op &op : c.ops)
      if (op.kind == k)
        return true;
    return false;
  }

  MlirJit jit_;
  IsolationLimits limits_;
  CandidateRunner run_;
};

/// Records every candidate it is asked about, then defers to `inner`.
class Recording final : public Interestingness {
public:
  explicit Recording(Interestingness &inner) : inner_(inner) {}
  std::vector<Answer> test(const std::vector<Candidate> &batch) override {
    for (const Candidate &c : batch)
      asked.push_back(std::to_string(caseHash(c.c)) + " " + c.pipeline);
    return inner_.test(batch);
  }
  bool testsPipeline() const override { return inner_.testsPipeline(); }
  std::vector<std::string> asked;

private:
  Interestingness &inner_;
};

/// Interesting when the candidate fails in any way: what a reducer without
/// signatures would keep.
class AnyFailure final : public Interestingness {
public:
  explicit AnyFailure(CandidateRunner run) : run_(std::move(run)) {}
  std::vector<Answer> test(const std::vector<Candidate> &batch) override {
    std::vector<Answer> out;
    for (const Observation &o : run_(batch))
      out.push_back(o.ran && o.signature.kind != VerdictKind::Ok ? Answer::Interesting
                                                                 : Answer::NotInteresting);
    return out;
  }
  bool testsPipeline() const override { return true; }

private:
  CandidateRunner run_;
};

TEST_F(ReducerTest, PlantedFaultsReduceToTheirCoreAndTheirPass) {
  for (const PlantedFault &fault : plantedFaults()) {
    SCOPED_TRACE(fault.name);
    const auto input = findFailingInput(run_, fault, fault.pipeline());
    ASSERT_TRUE(input) << "no generated case of 8+ ops fails with " << fault.name;
    SameSignature same(input->observed.signature, run_);
    const ReduceResult r = reduce(input->candidate, same, options());
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.confirmed);
    EXPECT_FALSE(r.timedOut);
    EXPECT_GE(r.before.computeOps, 8u);
    EXPECT_LE(r.after.computeOps, 3u) << printCase(r.reduced.c);
    EXPECT_LE(r.after.maxDim, 16) << printCase(r.reduced.c);
    EXPECT_LT(r.after.caseSize, r.before.caseSize);
    EXPECT_EQ(r.before.passes, 4u);
    EXPECT_EQ(r.reduced.pipeline, fault.pass());
    EXPECT_EQ(run_({r.reduced})[0].signature.id(), input->observed.signature.id());
  }
}

TEST_F(ReducerTest, TwoFailuresReduceToTheOneAskedFor) {
  // Two bugs in one case: the divf output crashes the crash pass, the addf
  // output is miscompiled. Under this pipeline the crash is what shows.
  Candidate input;
  TextError textError;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "data seed=5 edge_rate=0\n"
                        "%0 = input {fill=rand} : f32[32,64]\n"
                        "%1 = input {fill=rand} : f32[32,64]\n"
                        "%2 = div %0, %1 : f32[32,64]\n"
                        "%3 = exp %0 : f32[32,64]\n"
                        "%4 = add %3, %1 : f32[32,64]\n"
                        "return %2, %4\n",
                        input.c, textError))
      << textError.message;
  input.pipeline = "func.func(npufuzz-test-crash),func.func(npufuzz-test-miscompile)";
  const Signature target = run_({input})[0].signature;
  ASSERT_EQ(target.kind, VerdictKind::Crash) << target.text();

  SameSignature same(target, run_);
  const ReduceResult r = reduce(input, same, options());
  ASSERT_TRUE(r.confirmed) << r.error;
  EXPECT_EQ(run_({r.reduced})[0].signature.id(), target.id());
  EXPECT_EQ(r.reduced.pipeline, plantedFaults()[1].pass());
  EXPECT_TRUE(hasOp(r.reduced.c, OpKind::Div)) << printCase(r.reduced.c);
  EXPECT_FALSE(hasOp(r.reduced.c, OpKind::Add)) << printCase(r.reduced.c);

  // Asked for "any failure" instead, the same input drifts to the other
  // bug: the signature is what kept the crash.
  AnyFailure any(run_);
  const ReduceResult drift = reduce(input, any, options());
  ASSERT_TRUE(drift.confirmed) << drift.error;
  const Signature drifted = run_({drift.reduced})[0].signature;
  EXPECT_EQ(drifted.kind, VerdictKind::Mismatch) << drifted.text();
  EXPECT_EQ(drifted.pass, plantedFaults()[0].pass());
}

/// Interesting when the resolved pipeline holds `needed` in this order:
/// a pass-interaction bug, decided without running anything.
class NeedsPasses final : public Interestingness {
public:
  explicit NeedsPasses(std::vector<std::string> needed) : needed_(std::move(needed)) {}
  std::vector<Answer> test(const std::vector<Candidate> &batch) override {
    std::vector<Answer> out;
    for (const Candidate &c : batch) {
      Pipeline p;
      std::string error;
      size_t found = 0;
      if (resolvePipeline(c.pipeline, MlirStyle::Affine, p, error))
        for (const std::string &pass : p.passes)
          found += found < needed_.size() && pass == needed_[found];
      out.push_back(found == needed_.size() ? Answer::Interesting : Answer::NotInteresting);
    }
    return out;
  }
  bool testsPipeline() const override { return true; }

private:
  std::vector<std::string> needed_;
};

TEST(Reducer, NamedPipelinesExpandAndShortenToTheNeededPasses) {
  Candidate input;
  input.c = generateCase(16, Policy::defaults());
  input.pipeline = "O2";
  const std::vector<std::string> needed = {
      "func.func(affine-loop-fusion)", "func.func(affine-super-vectorize{virtual-vector-size=16})"};
  NeedsPasses fusionThenVectorize(needed);
  const ReduceResult r = reduce(input, fusionThenVectorize, ReduceOptions());
  ASSERT_TRUE(r.confirmed) << r.error;
  EXPECT_EQ(r.before.passes, 8u);
  EXPECT_EQ(r.reduced.pipeline, pipelineSpec(needed));
  EXPECT_EQ(r.after.passes, 2u);

  // A random pipeline of a few passes, reduced to its last one.
  Pipeline drawn;
  std::string error;
  for (int seed = 0; drawn.passes.size() < 3; ++seed) {
    input.pipeline = "random:" + std::to_string(seed);
    ASSERT_TRUE(resolvePipeline(input.pipeline, MlirStyle::Affine, drawn, error)) << error;
  }
  NeedsPasses last({drawn.passes.back()});
  const ReduceResult rr = reduce(input, last, ReduceOptions());
  ASSERT_TRUE(rr.confirmed) << rr.error;
  EXPECT_EQ(rr.reduced.pipeline, drawn.passes.back());
}

TEST_F(ReducerTest, CachedDeterministicAndIndependentOfJobs) {
  const PlantedFault &fault = plantedFaults()[2]; // the fastest to run
  const auto input = findFailingInput(run_, fault, fault.pipeline());
  ASSERT_TRUE(input);
  SameSignature same(input->observed.signature, run_);
  std::vector<std::string> results;
  for (unsigned jobs : {2u, 2u, 1u}) {
    Recording recording(same);
    const ReduceResult r = reduce(input->candidate, recording, options(jobs));
    ASSERT_TRUE(r.confirmed) << r.error;
    // Only the final re-check repeats a candidate.
    std::vector<std::string> asked(recording.asked.begin(), recording.asked.end() - 1);
    EXPECT_EQ(std::set<std::string>(asked.begin(), asked.end()).size(), asked.size());
    EXPECT_EQ(r.tests, recording.asked.size());
    EXPECT_GT(r.cacheHits, 0u);
    results.push_back(printCase(r.reduced.c) + r.reduced.pipeline);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

TEST_F(ReducerTest, ExternalCommandDecidesLikeCReduce) {
  Candidate input;
  input.c = generateCase(16, Policy::defaults());
  ASSERT_TRUE(hasOp(input.c, OpKind::Exp)) << "pick a seed whose case has an exp";
  // Interesting: the case still has an exp op. No shell parses the case
  // path: sh gets it as $1.
  ExternalCommand cmd({"/bin/sh", "-c", "grep -q ' = exp ' \"$1\"", "sh"}, 10);
  ASSERT_EQ(cmd.error(), "");
  const ReduceResult r = reduce(input, cmd, options());
  ASSERT_TRUE(r.confirmed) << r.error;
  EXPECT_EQ(r.after.computeOps, 1u) << printCase(r.reduced.c);
  EXPECT_TRUE(hasOp(r.reduced.c, OpKind::Exp));

  ExternalCommand slow({"/bin/sh", "-c", "sleep 5", "sh"}, 0.2);
  EXPECT_EQ(slow.test({input, input}), std::vector<Answer>({Answer::Error, Answer::Error}));
  ExternalCommand missing({"npufuzz-no-such-program"}, 1);
  EXPECT_NE(missing.error(), "");
}

TEST_F(ReducerTest, AStopAlreadyRequestedGivesTheInputAsTheBestSoFar) {
  // What SIGINT during `npufuzz reduce` does: the smallest case so far is
  // kept, here the input itself, since nothing was tested yet.
  Candidate input;
  input.c = generateCase(16, Policy::defaults());
  ExternalCommand cmd({"/bin/sh", "-c", "grep -q ' = exp ' \"$1\"", "sh"}, 10);
  std::atomic<bool> stop{true};
  ReduceOptions o = options();
  o.stop = &stop;
  const ReduceResult r = reduce(input, cmd, o);
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.confirmed);
  EXPECT_EQ(r.tests, 0u);
  EXPECT_EQ(printCase(r.reduced.c), printCase(input.c));
}

TEST_F(ReducerTest, AStopDuringTheReductionKeepsTheSmallestCaseSoFar) {
  Candidate input;
  input.c = generateCase(16, Policy::defaults());
  ASSERT_TRUE(hasOp(input.c, OpKind::Exp));
  // Interesting while the case has an exp; the stop comes during the
  // third batch of tests, whose answers must not count.
  std::atomic<bool> stop{false};
  unsigned batches = 0;
  class StopsLater : public Interestingness {
  public:
    StopsLater(std::atomic<bool> &stop, unsigned &batches, ReducerTest &t)
        : stop_(stop), batches_(batches), t_(t) {}
    std::vector<Answer> test(const std::vector<Candidate> &cs) override {
      if (++batches_ == 3)
        stop_ = true;
      std::vector<Answer> out;
      for (const Candidate &c : cs)
        out.push_back(t_.hasOpPublic(c.c, OpKind::Exp) ? Answer::Interesting
                                                       : Answer::NotInteresting);
      return out;
    }
    bool testsPipeline() const override { return false; }

  private:
    std::atomic<bool> &stop_;
    unsigned &batches_;
    ReducerTest &t_;
  } judge(stop, batches, *this);
  ReduceOptions o = options();
  o.stop = &stop;
  const ReduceResult r = reduce(input, judge, o);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(hasOp(r.reduced.c, OpKind::Exp)) << printCase(r.reduced.c);
  EXPECT_LE(r.after.caseSize, r.before.caseSize);
  EXPECT_EQ(batches, 3u);
}

TEST_F(ReducerTest, RegressionsReplayWithTheirVerdicts) {
  const fs::path dir = fs::path(npufuzz::testing::sourceDir()) / "corpus" / "regressions";
  ReplayOptions o;
  o.dir = dir.string();
  o.plugins = {NPUFUZZ_TEST_PLUGIN};
  std::ostringstream log;
  EXPECT_EQ(runReplayCommand(o, log), 0) << log.str();
  EXPECT_NE(log.str().find(" 0 changed"), std::string::npos) << log.str();

  // A regression whose expectation no longer holds fails the replay.
  const fs::path tampered =
      fs::temp_directory_path() / ("npufuzz-replay-" + std::to_string(::getpid()));
  fs::create_directories(tampered);
  size_t n = 0;
  for (const auto &e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".npf")
      continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    Expectation expect;
    std::string error;
    ASSERT_TRUE(parseExpectation(text.str(), expect, error)) << e.path() << ": " << error;
    expect.verdict = expect.verdict == VerdictKind::Ok ? VerdictKind::Crash : VerdictKind::Ok;
    expect.signatureId.clear();
    std::string body = text.str();
    const size_t at = body.find("// expect:");
    body.replace(at, body.find('\n', at) - at, expectationLine(expect));
    std::ofstream(tampered / e.path().filename()) << body;
    ++n;
  }
  EXPECT_GE(n, 3u);
  std::ostringstream tamperedLog;
  o.dir = tampered.string();
  EXPECT_EQ(runReplayCommand(o, tamperedLog), 1) << tamperedLog.str();
  fs::remove_all(tampered);
}

// A machine slower than the candidate limit: the planted slow pass sleeps
// past the limit on every function, so the input's first run, and its
// blame's, end out of time whatever the machine's speed. The reduction
// still reduces: the input runs again with four times the time, the
// candidates' limit follows what that run took, and the result keeps the
// input's signature (the slow pass, not needed, is dropped).
TEST_F(ReducerTest, ABackendSlowerThanTheCandidateLimitStillReduces) {
  const fs::path dir =
      fs::temp_directory_path() / ("npufuzz-slow-reduce-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Past the 1 s limit below, whatever the machine's speed: the input's
  // blame, whose runs each compile again, runs out of time at first.
  ::setenv("NPUFUZZ_TEST_SLOW_MS", "1200", 1);
  std::ofstream(dir / "slow.npf") << "npufuzz-case 1\n"
                                     "data seed=5 edge_rate=0\n"
                                     "%a = input {fill=rand} : f32[4,8]\n"
                                     "%b = input {fill=rand} : f32[4,8]\n"
                                     "%m = mul %a, %b : f32[4,8]\n"
                                     "%s = add %m, %b : f32[4,8]\n"
                                     "%t = sub %s, %a : f32[4,8]\n"
                                     "return %t\n";
  ReduceCommandOptions o;
  o.casePath = (dir / "slow.npf").string();
  o.outDir = (dir / "reduced").string();
  o.pipeline = "func.func(npufuzz-test-slow),func.func(npufuzz-test-miscompile)";
  o.jit = &jit_;
  o.jobs = 2;
  o.candidateTimeout = 1;
  o.maxSeconds = 1800; // never reached: the reduction ends by itself
  o.progress = false;
  std::ostringstream log;
  const int status = runReduceCommand(o, log);
  ::unsetenv("NPUFUZZ_TEST_SLOW_MS");
  ASSERT_EQ(status, 0) << log.str();
  std::ifstream in(dir / "reduced" / "report.json");
  const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(report.find("\"confirmed\": true"), std::string::npos) << report;
  EXPECT_NE(report.find("\"pipeline_after\": \"func.func(npufuzz-test-miscompile)\""),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("\"retried_out_of_time\": 0,"), std::string::npos) << report;
  EXPECT_NE(log.str().find("candidate limit: "), std::string::npos) << log.str();
  Case reduced;
  TextError error;
  std::ifstream caseIn(dir / "reduced" / "case.npf");
  const std::string caseText((std::istreambuf_iterator<char>(caseIn)),
                             std::istreambuf_iterator<char>());
  ASSERT_TRUE(parseCase(caseText, reduced, error)) << error.message;
  EXPECT_LT(reduced.numComputeOps(), 3u) << caseText;
  fs::remove_all(dir);
}

// A toolchain's memory error may show in one run and not the next: a
// regression whose verdict differs once is asked again, and says so.
TEST_F(ReducerTest, AVerdictThatDiffersOnceIsAskedAgain) {
  const fs::path dir =
      fs::temp_directory_path() / ("npufuzz-replay-once-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "state");
  ::setenv("NPUFUZZ_FLAKY_STATE", (dir / "state").c_str(), 1);
  Expectation expect;
  expect.verdict = VerdictKind::Ok;
  std::ofstream(dir / "add.npf") << expectationLine(expect) << "\n"
                                 << "npufuzz-case 1\n"
                                    "data seed=5 edge_rate=0.1\n"
                                    "%a = input {fill=rand} : f32[4,8]\n"
                                    "%b = input {fill=rand} : f32[4,8]\n"
                                    "%s = add %a, %b : f32[4,8]\n"
                                    "return %s\n";
  ReplayOptions o;
  o.dir = dir.string();
  o.backend.backend = BackendKind::External;
  o.backend.external.argv = {
      "python3", "-B", npufuzz::testing::sourceDir() + "/tests/integrations/commands/crash_once.py",
      "{dir}"};
  o.backend.external.timeoutSeconds = 120;
  o.candidateTimeout = 300; // a busy machine's python is no hang
  std::ostringstream log;
  EXPECT_EQ(runReplayCommand(o, log), 0) << log.str();
  EXPECT_NE(log.str().find("ok       add.npf: ok (once crash: "), std::string::npos) << log.str();
  ::unsetenv("NPUFUZZ_FLAKY_STATE");
  fs::remove_all(dir);
}

} // namespace

namespace {
Case parsedCase(const char *text) {
  Case c;
  TextError error;
  EXPECT_TRUE(parseCase(text, c, error)) << error.message;
  return c;
}

/// A runner under which every variant fails with a wrong value of the pass
/// `func.func(p)` shown in `where`; the variants it is given go to `seen`.
CandidateRunner failingIn(const std::string &where, std::vector<Case> &seen) {
  return [where, &seen](const std::vector<Candidate> &batch) {
    std::vector<Observation> out(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      seen.push_back(batch[k].c);
      out[k].ran = true;
      out[k].signature = {VerdictKind::Mismatch, "func.func(p)", where, ""};
    }
    return out;
  };
}

/// What generalisation makes of `where`, a wrong value of `func.func(p)`
/// in case `c`, when its variants fail in `variantsShowIn`.
std::string generalised(const Case &c, const std::string &where, const std::string &variantsShowIn,
                        std::vector<Case> &variants) {
  const Signature seen{VerdictKind::Mismatch, "func.func(p)", where, ""};
  return generalizeSignature({c, "func.func(p)"}, seen, failingIn(variantsShowIn, variants),
                             MlirStyle::Npu, PassStage::Entry)
      .where;
}
} // namespace

// Generalisation swaps the family of the op a pass's wrong value showed in.
// A variant whose first wrong value is an input's copy (named kAnyOp by op
// blame: the pass broke the loads or stores every value goes through) shows
// that the failure does not need the family; one that shows in another op
// of the case, which may be another bug of the pass, does not.
TEST(Generalize, AVariantWrongFirstInAnInputsCopyNeedsNoFamily) {
  const Case c = parsedCase(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[8,4]
%1 = set_validshape %0 : f32[8,4]{valid=3x4,dyn}
%2 = fillpad %1 {pad=zero} : f32[8,4]
return %2
)");
  std::vector<Case> variants;
  EXPECT_EQ(generalised(c, "set_validshape", kAnyOp, variants), kAnyOp);
  EXPECT_FALSE(variants.empty());
  EXPECT_EQ(generalised(c, "set_validshape", "fillpad", variants), "set_validshape");
}

// An op of two results (topk) has no swap; each result is made a neg of a
// fresh input, so a pass's bug that breaks every long loop, first seen in a
// topk's, is shown not to need topk.
TEST(Generalize, AnOpOfTwoResultsIsSubstitutedResultByResult) {
  const Case c = parsedCase(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[2,40]
%1, %2 = topk %0 {axis=1, k=20} : f32[2,20], i64[2,20]
%3 = abs %1 : f32[2,20]
return %3, %2
)");
  std::vector<Case> variants;
  EXPECT_EQ(generalised(c, "topk", "neg", variants), kAnyOp);
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_TRUE(verifyCase(variants[0]).empty()) << printCase(variants[0]);
  EXPECT_TRUE(std::none_of(variants[0].ops.begin(), variants[0].ops.end(), [](const Op &op) {
    return op.kind == OpKind::TopK;
  })) << printCase(variants[0]);
}
