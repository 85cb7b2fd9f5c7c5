//===- tests/driver/CampaignTest.cpp - Campaigns survive their workers ----===//
//
// A campaign whose pipeline holds planted passes that abort, loop forever or
// exhaust memory records each as its verdict and keeps going; npufuzz --seed
// reproduces a finding's signature; a campaign killed with SIGKILL leaves
// only complete findings and resumes where it stopped.
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/CampaignCounts.h"
#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "driver/GuidedCorpus.h"
#include "driver/ReduceCommand.h"
#include "driver/Report.h"
#include "generators/CaseGenerator.h"
#include "generators/Mutate.h"
#include "ir/Text.h"
#include "oracles/Signature.h"
#include "oracles/StoredBy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace npufuzz;

namespace {
const char *kFaultyPipeline =
    "func.func(npufuzz-test-crash),func.func(npufuzz-test-hang),func.func(npufuzz-test-oom)";

std::string freshDir(const std::string &name) {
  const fs::path dir =
      fs::temp_directory_path() / ("npufuzz-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

CampaignOptions faultyCampaign(const std::string &dir, uint64_t cases) {
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = cases;
  o.jobs = 2;
  o.config.pipeline = kFaultyPipeline;
  // Long enough for any case on a busy machine; the planted hang never
  // ends, so it reaches any limit.
  o.limits.wallSeconds = 10;
  o.limits.addressSpaceBytes = 1ull << 30;
  o.progress = false;
  o.reduce = false; // hangs would make reduction slow; reduction is tested below
  return o;
}

/// `cases` cases through `pipeline` on two workers, without progress,
/// reduction or metamorphic variants.
CampaignOptions quietCampaign(const std::string &dir, uint64_t cases, const char *pipeline) {
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = cases;
  o.jobs = 2;
  o.progress = false;
  o.reduce = false;
  o.config.metamorphicShare = 0;
  o.config.pipeline = pipeline;
  return o;
}

/// Every finding directory holds every file (none half-written).
void expectCompleteFindings(const std::string &dir) {
  for (const auto &e : fs::directory_iterator(fs::path(dir) / "findings")) {
    if (e.path().filename().string()[0] == '.')
      continue; // a temporary that never got renamed into place
    for (const char *f : {"case.npf", "kernel.mlir", "report.json", "repro.sh", "seeds.txt"})
      EXPECT_TRUE(fs::exists(e.path() / f)) << e.path() << " lacks " << f;
    EXPECT_GE(findingCount(e.path().string()), 1u);
  }
}
} // namespace

TEST(Campaign, AFindingsCaseSaysHowItFailed) {
  // Seeded lowering: a finding's case.npf alone (its expect line) gives
  // the lowering seed and pass stage that `npufuzz run case.npf` needs.
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("expect-line");
  const CampaignOptions o = quietCampaign(dir, 12, "func.func(npufuzz-test-miscompile)");
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.findings.empty());
  for (const FindingSummary &f : r.findings) {
    std::ifstream in(fs::path(dir) / "findings" / f.id / "case.npf");
    std::stringstream read;
    read << in.rdbuf();
    const std::string text = read.str();
    Expectation expect;
    ASSERT_TRUE(parseExpectation(text, expect, error)) << error << "\n" << text;
    EXPECT_EQ(expect.signatureId, f.id);
    EXPECT_EQ(expect.loweringSeed, loweringSeedFor(o, f.firstSeed)) << f.id;
    EXPECT_EQ(expect.stage, PassStage::Entry);
    EXPECT_EQ(expect.pipeline, o.config.pipeline);
    Case c;
    TextError parseError;
    EXPECT_TRUE(parseCase(text, c, parseError)) << parseError.format("case.npf");
  }
  fs::remove_all(dir);
}

TEST(Campaign, CrashHangAndOomAreVerdictsAndTheCampaignGoesOn) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("faulty");
  const CampaignResult r = runCampaign(faultyCampaign(dir, 48), jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 48u);
  EXPECT_GE(r.verdicts.count("crash") ? r.verdicts.at("crash") : 0, 1u);
  EXPECT_GE(r.verdicts.count("hang") ? r.verdicts.at("hang") : 0, 1u);
  EXPECT_GE(r.verdicts.count("oom") ? r.verdicts.at("oom") : 0, 1u);
  EXPECT_GE(r.verdicts.count("ok") ? r.verdicts.at("ok") : 0, 1u);
  expectCompleteFindings(dir);
  EXPECT_TRUE(fs::exists(fs::path(dir) / "summary.json"));
  // The IR coverage counts every case whose module reached the passes,
  // and summary.json (npufuzz stats) says the same.
  EXPECT_GE(r.irCoverage.cases, r.verdicts.at("ok"));
  EXPECT_LE(r.irCoverage.cases, 48u);
  EXPECT_EQ(r.irCoverage.ops.count("affine.for"), 1u);
  IrCoverage read;
  ASSERT_TRUE(readIrCoverage(dir, read, error)) << error;
  EXPECT_EQ(read.cases, r.irCoverage.cases);
  EXPECT_EQ(read.ops, r.irCoverage.ops);
  EXPECT_EQ(read.changedBy, r.irCoverage.changedBy);
  EXPECT_EQ(read.opNames, r.irCoverage.opNames);
  // A name counts a case once, whatever its element types.
  for (const auto &[op, n] : r.irCoverage.ops) {
    const uint64_t named = r.irCoverage.opNames.at(op.substr(0, op.find(' ')));
    EXPECT_GE(named, n) << op;
    EXPECT_LE(named, r.irCoverage.cases) << op;
  }

  // npufuzz --seed N: the same worker, the same verdict and signature.
  const FindingSummary *crash = nullptr;
  for (const FindingSummary &f : r.findings)
    if (f.id.rfind("crash-", 0) == 0)
      crash = &f;
  ASSERT_NE(crash, nullptr);
  const Case c = generateCase(crash->firstSeed, mlirPolicy());
  RunConfig config;
  config.pipeline = kFaultyPipeline;
  const CaseReport again = reportOf(runIsolated(
      [&] { return runCaseTask(c, jit, config).toJson(); }, faultyCampaign(dir, 1).limits));
  EXPECT_EQ(again.signature.id(), crash->id) << again.signature.text();
  fs::remove_all(dir);
}

TEST(Campaign, AFailureThatNeedsAUsedWorkerIsNotRecorded) {
  // The planted pass aborts only in a process that compiled two functions
  // before: in a persistent worker, never in a fresh one. The campaign must
  // re-run such a failure fresh and record what `npufuzz --seed N` would see.
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("stale");
  CampaignOptions o = faultyCampaign(dir, 8);
  o.jobs = 1;
  o.config.pipeline = "func.func(npufuzz-test-stale-state)";
  o.config.metamorphicShare = 0;
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 8u);
  EXPECT_EQ(r.verdicts.count("ok") ? r.verdicts.at("ok") : 0, 8u);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_GE(r.historyDependent, 1u);

  // One fork per case never sees it.
  const std::string fresh = freshDir("stale-fresh");
  CampaignOptions f = o;
  f.outDir = fresh;
  f.casesPerWorker = 1;
  const CampaignResult rf = runCampaign(f, jit);
  EXPECT_EQ(rf.verdicts.count("ok") ? rf.verdicts.at("ok") : 0, 8u);
  EXPECT_EQ(rf.historyDependent, 0u);
  fs::remove_all(dir);
  fs::remove_all(fresh);
}

namespace {
/// Starts the npufuzz binary with `args` (stdout and stderr into `log`).
pid_t startNpufuzz(const std::vector<std::string> &args, const std::string &log) {
  std::vector<std::string> all = {NPUFUZZ_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::vector<char *> argv;
    for (std::string &a : all)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(NPUFUZZ_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

int waitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::string slurp(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The seed (first word) of each non-empty line of `path`, in order.
std::vector<uint64_t> seedsListed(const fs::path &path) {
  std::vector<uint64_t> seeds;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      seeds.push_back(std::stoull(line.substr(0, line.find(' '))));
  return seeds;
}

uint64_t jsonCount(const std::string &json, const std::string &key) {
  const size_t at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? 0 : std::stoull(json.substr(at + key.size() + 4));
}

/// Failing cases the directory's summary counts (every verdict but ok and
/// unsupported, over every run).
uint64_t failingCounted(const std::string &dir) {
  const std::string summary = slurp(fs::path(dir) / "summary.json");
  const size_t from = summary.find("\"verdicts\": {");
  const std::string verdicts = summary.substr(from, summary.find('}', from) - from);
  uint64_t n = 0;
  for (const char *v : {"crash", "hang", "oom", "mismatch", "pass-failure", "verifier-error",
                        "compile-error", "uninitialized-read", "nondeterministic"})
    n += jsonCount(verdicts, v);
  return n;
}
} // namespace

TEST(Campaign, KilledAgainAndAgainItCountsAndListsEveryCaseOnce) {
  const std::string dir = freshDir("killed");
  const std::vector<std::string> args = {"fuzz",
                                         "-o",
                                         dir,
                                         "--jobs",
                                         "2",
                                         "--quiet",
                                         "--no-reduce",
                                         "--load-pass-plugin",
                                         NPUFUZZ_TEST_PLUGIN,
                                         "--pipeline",
                                         "func.func(npufuzz-test-crash)",
                                         "--max-cases",
                                         "250"};
  // SIGKILL at moments spread over start-up, running cases and state writes.
  for (int k = 0; k < 6; ++k) {
    const pid_t pid = startNpufuzz(args, dir + ".log");
    std::this_thread::sleep_for(std::chrono::milliseconds(700 + 450 * k));
    ::kill(pid, SIGKILL);
    waitExit(pid);
    if (fs::exists(fs::path(dir) / "findings"))
      expectCompleteFindings(dir);
  }
  // However far the killed runs got (a slow machine may not have saved any
  // state yet), the invariants below hold.
  // A last run to the end re-runs every case a kill cut off.
  ASSERT_EQ(waitExit(startNpufuzz(args, dir + ".log")), 0) << slurp(dir + ".log");
  expectCompleteFindings(dir);
  uint64_t listed = 0;
  for (const auto &e : fs::directory_iterator(fs::path(dir) / "findings")) {
    // Confirmed or filed unconfirmed (classified), each seed once.
    std::set<uint64_t> seeds;
    for (const char *list : {"seeds.txt", "classified.txt"})
      for (const uint64_t seed : seedsListed(e.path() / list)) {
        EXPECT_TRUE(seeds.insert(seed).second) << e.path() << " lists seed " << seed << " twice";
        ++listed;
      }
  }
  EXPECT_GE(listed, 1u);
  EXPECT_EQ(failingCounted(dir), listed) << slurp(fs::path(dir) / "summary.json");
  const std::string state = slurp(fs::path(dir) / "state.json");
  EXPECT_EQ(jsonCount(state, "total_cases"),
            jsonCount(state, "next") + (state.find("\"ahead\": []") == std::string::npos))
      << state;
  fs::remove_all(dir);
  fs::remove(dir + ".log");
}

// --max-cases is the campaign's total: a resumed run starts only what the
// earlier runs of the directory left of it.
TEST(Campaign, MaxCasesCountsTheWholeCampaignAcrossRuns) {
  MlirJit jit;
  const std::string dir = freshDir("max-cases-total");
  CampaignOptions o = quietCampaign(dir, 6, "O0");
  const CampaignResult first = runCampaign(o, jit);
  ASSERT_TRUE(first.error.empty()) << first.error;
  EXPECT_EQ(first.cases, 6u);
  const CampaignResult again = runCampaign(o, jit);
  ASSERT_TRUE(again.error.empty()) << again.error;
  EXPECT_EQ(again.cases, 0u);
  EXPECT_EQ(again.totalCases, 6u);
  o.maxCases = 10;
  const CampaignResult more = runCampaign(o, jit);
  ASSERT_TRUE(more.error.empty()) << more.error;
  EXPECT_EQ(more.cases, 4u);
  EXPECT_EQ(more.totalCases, 10u);
  fs::remove_all(dir);
}

// A signature the known list names by its id alone is triaged already: the
// campaign leaves it unreduced, unless asked to reduce it.
TEST(Campaign, ASignatureKnownByIdIsNotReducedUnlessAsked) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("known-unreduced");
  CampaignOptions o = quietCampaign(dir, 12, "func.func(npufuzz-test-miscompile)");
  o.maxFindings = 1;
  o.jobs = 1;
  const CampaignResult found = runCampaign(o, jit);
  ASSERT_EQ(found.findings.size(), 1u);
  const std::string id = found.findings[0].id;
  const fs::path reduced = fs::path(dir) / "findings" / id / "reduced";
  o.config.knownSignatures = {id};
  o.maxCases = found.totalCases; // no case more: only the reduction runs
  o.reduce = true;
  o.reduceSeconds = 600; // never reached: the reduction ends by itself
  const CampaignResult known = runCampaign(o, jit);
  EXPECT_EQ(known.reduced, 0u);
  EXPECT_EQ(known.knownNotReduced, 1u);
  EXPECT_FALSE(fs::exists(reduced));
  std::ostringstream summary;
  printCampaignSummary(known, summary);
  EXPECT_NE(summary.str().find("1 known by id left unreduced"), std::string::npos) << summary.str();
  o.reduceKnown = true;
  const CampaignResult asked = runCampaign(o, jit);
  EXPECT_EQ(asked.reduced, 1u);
  EXPECT_TRUE(fs::exists(reduced / "case.npf"));
  fs::remove_all(dir);
}

TEST(Campaign, AResumeThatAsksForAnotherCampaignIsRefused) {
  MlirJit jit;
  const std::string dir = freshDir("identity");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 2;
  o.progress = false;
  ASSERT_TRUE(runCampaign(o, jit).error.empty());
  CampaignOptions npu = o;
  npu.config.style = MlirStyle::Npu;
  const CampaignResult r = runCampaign(npu, jit);
  EXPECT_NE(r.error.find("holds another campaign"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("style: \"affine\""), std::string::npos) << r.error;
  EXPECT_EQ(r.cases, 0u);
  CampaignOptions o2 = o;
  o2.config.pipeline = "O2";
  EXPECT_NE(runCampaign(o2, jit).error.find("pipeline"), std::string::npos);
  CampaignOptions shifted = o;
  shifted.seedStart = 1000;
  EXPECT_NE(runCampaign(shifted, jit).error.find("--seed-start"), std::string::npos);
  CampaignOptions canonical = o;
  canonical.seededLowering = false;
  EXPECT_NE(runCampaign(canonical, jit).error.find("lowering"), std::string::npos);
  CampaignOptions staged = o;
  staged.config.stage = PassStage::Loops;
  EXPECT_NE(runCampaign(staged, jit).error.find("pass_stage"), std::string::npos);
  // The same campaign resumes; limits and time may change (and its total,
  // --max-cases).
  CampaignOptions same = o;
  same.limits.wallSeconds = 7;
  same.maxCases = 4;
  const CampaignResult resumed = runCampaign(same, jit);
  EXPECT_TRUE(resumed.error.empty()) << resumed.error;
  EXPECT_EQ(resumed.totalCases, 4u);

  // A campaign.json from before lowering plans and pass stages: its cases
  // were lowered canonically at the entry, so only that resumes.
  const fs::path identity = fs::path(dir) / "campaign.json";
  std::string text = slurp(identity);
  for (const char *key : {"\"lowering\"", "\"pass_stage\""}) {
    const size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << text;
    text.erase(at, text.find('\n', at) + 1 - at);
  }
  std::ofstream(identity) << text;
  EXPECT_NE(runCampaign(same, jit).error.find("lowering: \"canonical\""), std::string::npos);
  const CampaignResult old = runCampaign(canonical, jit);
  EXPECT_TRUE(old.error.empty()) << old.error;
  fs::remove_all(dir);
}

TEST(Campaign, AnOutsideKillOfAFreshWorkerIsConfirmedNotRecordedAsACrash) {
  // One process per case, each slow enough to be killed mid-case from
  // outside (an OOM killer, an impatient user). The kill is no property of
  // the case: a fresh re-run decides what is recorded.
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("outside-kill");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 3;
  o.jobs = 1;
  o.casesPerWorker = 1;
  o.progress = false;
  o.reduce = false;
  o.config.pipeline = "func.func(npufuzz-test-slow)";
  o.config.metamorphicShare = 0;
  // The first process to run the slow pass says so in `mark` and waits,
  // mid-case, until it is killed: the kill lands mid-case however slow
  // the machine is.
  const std::string mark = dir + ".mark";
  fs::remove(mark);
  ::setenv("NPUFUZZ_TEST_SLOW_MARK", mark.c_str(), 1);
  std::atomic<bool> done{false};
  std::atomic<int> killed{0};
  std::thread killer([&] {
    while (!done && !killed) {
      std::ifstream in(mark);
      pid_t pid = 0;
      if (in >> pid && pid > 0) {
        ::kill(pid, SIGKILL);
        ++killed;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const CampaignResult r = runCampaign(o, jit);
  done = true;
  killer.join();
  ::unsetenv("NPUFUZZ_TEST_SLOW_MARK");
  fs::remove(mark);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(killed, 1);
  EXPECT_EQ(r.runVerdicts.count("ok") ? r.runVerdicts.at("ok") : 0, 3u);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.unconfirmed, 1u);
  fs::remove_all(dir);
}

TEST(Campaign, MaxFindingsStopsAtTheFirstFailingCase) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("max-findings");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 200;
  o.jobs = 2;
  o.progress = false;
  o.reduce = false;
  o.maxFindings = 1;
  o.config.pipeline = "func.func(npufuzz-test-crash)";
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.stoppedAtMaxFindings);
  EXPECT_LT(r.cases, 200u);
  EXPECT_EQ(r.runVerdicts.count("crash") ? r.runVerdicts.at("crash") : 0, 1u);
  // On the command line it is a failing exit, for bisects and CI jobs.
  const std::string cli = freshDir("max-findings-cli");
  EXPECT_EQ(waitExit(startNpufuzz({"fuzz", "-o", cli, "--quiet", "--no-reduce",
                                   "--load-pass-plugin", NPUFUZZ_TEST_PLUGIN, "--pipeline",
                                   "func.func(npufuzz-test-crash)", "--max-findings", "1"},
                                  cli + ".log")),
            1)
      << slurp(cli + ".log");
  EXPECT_NE(slurp(cli + ".log").find("--max-findings reached"), std::string::npos);
  // Its repro line carries the plugin the finding needs.
  for (const auto &e : fs::directory_iterator(fs::path(cli) / "findings"))
    EXPECT_NE(
        slurp(e.path() / "repro.sh").find(std::string("--load-pass-plugin ") + NPUFUZZ_TEST_PLUGIN),
        std::string::npos);
  // An external backend's finding keeps the program it was given, and its
  // repro line the backend and the command, quoted for the shell.
  const std::string ext = freshDir("max-findings-external");
  EXPECT_EQ(waitExit(startNpufuzz({"fuzz", "-o", ext, "--quiet", "--no-reduce", "--backend",
                                   "external", "--cmd", "sh -c 'exit 3'", "--max-findings", "1"},
                                  ext + ".log")),
            1)
      << slurp(ext + ".log");
  for (const auto &e : fs::directory_iterator(fs::path(ext) / "findings")) {
    EXPECT_TRUE(fs::exists(e.path() / "program.py") || fs::exists(e.path() / "kernel.pto"));
    EXPECT_NE(
        slurp(e.path() / "repro.sh").find(R"(--backend external --cmd 'sh -c '\''exit 3'\''')"),
        std::string::npos)
        << slurp(e.path() / "repro.sh");
  }
  for (const std::string &d : {dir, cli, ext}) {
    fs::remove_all(d);
    fs::remove(d + ".log");
  }
}

TEST(Campaign, ABadNightFilesFailingCasesUnderTheirKnownRootWithoutConfirmingEach) {
  // Every store one past its row: nearly every case fails, all of one root
  // (the pass's bad access). After a few confirmations the cases its
  // workers see fail alike are filed under it unconfirmed, one in four
  // still confirmed; every failing case is filed exactly once, and the
  // findings are those of a campaign that confirms every case.
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  auto campaign = [&](const std::string &dir, bool classify) {
    CampaignOptions o = quietCampaign(dir, 60, "func.func(npufuzz-test-store-past-end)");
    o.classifyKnownRoots = classify;
    return runCampaign(o, jit);
  };
  const std::string dir = freshDir("bad-night"), every = freshDir("bad-night-every");
  const CampaignResult r = campaign(dir, true);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_GE(r.classified, 10u);
  uint64_t failing = 0;
  for (const auto &[verdict, n] : r.runVerdicts)
    if (verdict != "ok" && verdict != "unsupported")
      failing += n;
  uint64_t filed = 0;
  std::set<std::string> ids;
  for (const FindingSummary &f : r.findings) {
    ids.insert(f.id);
    const fs::path d = fs::path(dir) / "findings" / f.id;
    const std::vector<uint64_t> listed = seedsListed(d / "seeds.txt");
    const std::set<uint64_t> confirmed(listed.begin(), listed.end());
    for (const uint64_t seed : seedsListed(d / "classified.txt"))
      EXPECT_FALSE(confirmed.count(seed)) << seed << " is both confirmed and classified";
    filed += f.count;
  }
  EXPECT_EQ(filed, failing);
  const CampaignResult all = campaign(every, false);
  ASSERT_TRUE(all.error.empty()) << all.error;
  EXPECT_EQ(all.classified, 0u);
  std::set<std::string> allIds;
  for (const FindingSummary &f : all.findings)
    allIds.insert(f.id);
  EXPECT_EQ(ids, allIds);
  fs::remove_all(dir);
  fs::remove_all(every);
}

TEST(Campaign, AnInterruptedResumedRunReportsItsOwnCountsAndTheTotals) {
  const std::string dir = freshDir("interrupted");
  const std::vector<std::string> first = {"fuzz", "-o",      dir,           "--jobs",
                                          "1",    "--quiet", "--max-cases", "5"};
  ASSERT_EQ(waitExit(startNpufuzz(first, dir + ".log")), 0) << slurp(dir + ".log");
  // Resume with the progress line and interrupt it once it has run cases.
  const pid_t pid =
      startNpufuzz({"fuzz", "-o", dir, "--jobs", "1", "--max-cases", "100000"}, dir + ".log");
  uint64_t seen = 0;
  for (int i = 0; i < 600 && seen < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string log = slurp(dir + ".log");
    const size_t at = log.rfind("[npufuzz] ");
    seen = at == std::string::npos ? 0 : std::stoull(log.substr(at + 10));
  }
  ::kill(pid, SIGINT);
  ASSERT_EQ(waitExit(pid), 0);
  const std::string log = slurp(dir + ".log");
  // The summary table's case count, and the final progress line's.
  const size_t cases = log.rfind("cases: ");
  ASSERT_NE(cases, std::string::npos) << log;
  const uint64_t run = std::stoull(log.substr(cases + 7));
  const size_t last = log.rfind("[npufuzz] ");
  EXPECT_EQ(std::stoull(log.substr(last + 10)), run) << log;
  const std::string line = log.substr(last, log.find('\n', last) - last);
  const size_t ok = line.find("findings: none");
  EXPECT_NE(ok, std::string::npos) << line;
  EXPECT_NE(log.find("[interrupted]"), std::string::npos);
  // The report counts the directory: both runs.
  const std::string report = freshDir("interrupted-report");
  ASSERT_EQ(waitExit(startNpufuzz({"report", dir, "-o", report}, report + ".log")), 0)
      << slurp(report + ".log");
  EXPECT_NE(slurp(report + ".log").find(std::to_string(run + 5) + " cases"), std::string::npos)
      << slurp(report + ".log");
  for (const std::string &d : {dir, report})
    fs::remove_all(d);
  fs::remove(dir + ".log");
  fs::remove(report + ".log");
}

TEST(Campaign, ASignatureFirstSeenByAnUnreducedRunIsReducedWhenResumed) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("reduce-later");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 12;
  o.jobs = 2;
  o.progress = false;
  o.config.pipeline = "func.func(npufuzz-test-miscompile)";
  o.reduce = false; // as a run killed before its reduction would leave it
  const CampaignResult first = runCampaign(o, jit);
  ASSERT_GE(first.firstFiled, 1u);
  o.reduce = true;
  o.maxCases = 1;
  o.reduceSeconds = 600; // never reached: these reductions end by themselves
  const CampaignResult second = runCampaign(o, jit);
  EXPECT_EQ(second.reduced, second.findings.size());
  for (const FindingSummary &f : second.findings) {
    EXPECT_TRUE(fs::exists(fs::path(dir) / "findings" / f.id / "reduced" / "case.npf")) << f.id;
    EXPECT_TRUE(fs::exists(fs::path(dir) / "findings" / f.id / "reduce.log")) << f.id;
  }
  // Reduced once: a third run has nothing left to reduce.
  const CampaignResult third = runCampaign(o, jit);
  EXPECT_EQ(third.reduced, 0u);
  fs::remove_all(dir);
}

// "New" in a campaign's summary means what `report --known` means: not in
// the known list. A signature this run filed first is counted as that.
TEST(Campaign, ItsSummaryCallsNewWhatTheKnownListDoesNotName) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("known-new");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 12;
  o.maxFindings = 1;
  o.jobs = 1;
  o.progress = false;
  o.reduce = false;
  o.config.pipeline = "func.func(npufuzz-test-miscompile)";
  const CampaignResult unknown = runCampaign(o, jit);
  ASSERT_EQ(unknown.findings.size(), 1u);
  EXPECT_FALSE(unknown.newToKnownList); // no list given: no count
  std::ostringstream withoutList;
  printCampaignSummary(unknown, withoutList);
  EXPECT_NE(withoutList.str().find("(1 first filed in this run, 0 reduced)"), std::string::npos)
      << withoutList.str();
  fs::remove_all(dir);

  // The same campaign with its one signature known, and with another; a
  // known signature does not count toward --max-findings, so both runs get
  // the cases the first one ran and no more.
  o.maxCases = unknown.cases;
  for (const bool listed : {true, false}) {
    fs::remove_all(dir);
    o.config.knownSignatures = {listed ? unknown.findings[0].id : "crash-0123456789abcdef"};
    const CampaignResult r = runCampaign(o, jit);
    EXPECT_EQ(r.stoppedAtMaxFindings, !listed);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.firstFiled, 1u);
    ASSERT_TRUE(r.newToKnownList);
    EXPECT_EQ(*r.newToKnownList, listed ? 0u : 1u);
    std::ostringstream summary;
    printCampaignSummary(r, summary);
    const std::string expected =
        std::string(listed ? "0" : "1") + " new against the known list, 1 first filed in this run";
    EXPECT_NE(summary.str().find(expected), std::string::npos) << summary.str();
  }
  fs::remove_all(dir);
}

TEST(Campaign, ShardsCoverDisjointSeedsAndMerge) {
  MlirJit jit;
  const std::string a = freshDir("shard0"), b = freshDir("shard1"), merged = freshDir("merged");
  CampaignOptions o;
  o.maxCases = 6;
  o.progress = false;
  o.config.pipeline = "O0";
  o.shardCount = 2;
  o.outDir = a;
  o.shardIndex = 0;
  const CampaignResult r0 = runCampaign(o, jit);
  o.outDir = b;
  o.shardIndex = 1;
  const CampaignResult r1 = runCampaign(o, jit);
  EXPECT_EQ(r0.cases + r1.cases, 12u);
  std::string error;
  mergeFindings(merged, {a, b}, error);
  EXPECT_TRUE(error.empty()) << error;
  for (const std::string &d : {a, b, merged})
    fs::remove_all(d);
}

TEST(Campaign, NewSignaturesAreReducedAfterTheCampaign) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const std::string dir = freshDir("reduced");
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = 20;
  o.jobs = 2;
  o.progress = false;
  o.config.pipeline = "func.func(canonicalize),func.func(npufuzz-test-miscompile)";
  o.reduceSeconds = 600; // never reached: these reductions end by themselves
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_GE(r.firstFiled, 1u);
  EXPECT_EQ(r.reduced, r.firstFiled);
  for (const FindingSummary &f : r.findings) {
    const fs::path reduced = fs::path(dir) / "findings" / f.id / "reduced";
    ASSERT_TRUE(fs::exists(reduced / "case.npf")) << f.id;
    Case c;
    TextError err;
    ASSERT_TRUE(parseCaseFile((reduced / "case.npf").string(), c, err)) << err.format("reduced");
    EXPECT_LE(c.numComputeOps(), 3u) << f.id;
    std::ifstream report(reduced / "report.json");
    std::stringstream text;
    text << report.rdbuf();
    EXPECT_NE(text.str().find("\"pipeline_after\": \"func.func(npufuzz-test-miscompile)\""),
              std::string::npos)
        << text.str();
    // What goes upstream: the reduced kernel with its mlir-opt line
    // (npufuzz export's form for an MLIR backend).
    std::ifstream upstream(reduced / "repro.mlir");
    std::stringstream repro;
    repro << upstream.rdbuf();
    EXPECT_NE(repro.str().find("// RUN: mlir-opt --pass-pipeline='builtin.module("
                               "func.func(npufuzz-test-miscompile))'"),
              std::string::npos)
        << f.id << ":\n"
        << repro.str();
    // Its root-cause bucket: the pass and what the reduced repro holds.
    EXPECT_EQ(f.bucket.rfind("bucket-", 0), 0u) << f.bucket;
    EXPECT_EQ(f.bucketKey.rfind("mismatch | func.func(npufuzz-test-miscompile) | ", 0), 0u)
        << f.bucketKey;
  }
  // Every signature is in exactly one bucket; the planted pass turns every
  // addf into subf, so the reduced repros of its signatures (add, and the
  // ops made of an add) mostly agree.
  const std::vector<BucketSummary> buckets = bucketsOf(r.findings);
  size_t inBuckets = 0;
  for (const BucketSummary &b : buckets)
    inBuckets += b.signatures.size();
  EXPECT_EQ(inBuckets, r.findings.size());
  EXPECT_LE(buckets.size(), r.findings.size());

  // A known list may name buckets: then each of their signatures is known.
  KnownList known;
  NightlyReport before = collectReport({dir}, known, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(before.newSignatures(), r.findings.size());
  // The report carries the campaign's IR coverage, in its JSON and HTML.
  EXPECT_EQ(before.irCoverage.cases, r.irCoverage.cases);
  EXPECT_GT(before.irCoverage.cases, 0u);
  ASSERT_TRUE(writeReport(before, dir + "/report", error)) << error;
  EXPECT_NE(slurp(fs::path(dir) / "report" / "index.html").find("id=\"ir-ops\""),
            std::string::npos);
  EXPECT_NE(slurp(fs::path(dir) / "report" / "report.json").find("\"ir_coverage\""),
            std::string::npos);
  const std::string list = dir + "/known.txt";
  {
    std::ofstream out(list);
    out << "[mlir-jit]\n";
    for (const BucketSummary &b : buckets)
      out << b.id << "  # " << b.key << "\n";
  }
  ASSERT_TRUE(readKnownList(list, known, error)) << error;
  const NightlyReport after = collectReport({dir}, known, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(after.newSignatures(), 0u);

  // A signature alone does not make a reduced finding of a pass known: a
  // new bug of that pass needs other IR. The signature with the skeleton of
  // the IR the pass was given does.
  {
    std::ofstream out(list);
    out << "[mlir-jit]\n";
    for (const ReportFinding &f : before.findings)
      out << f.id << "\n";
  }
  known = {};
  ASSERT_TRUE(readKnownList(list, known, error)) << error;
  EXPECT_EQ(collectReport({dir}, known, error).newSignatures(), r.findings.size());
  {
    std::ofstream out(list);
    out << "[mlir-jit]\n";
    for (const ReportFinding &f : before.findings) {
      EXPECT_EQ(f.skeleton.rfind("skeleton-", 0), 0u) << f.id;
      out << f.id << " " << f.skeleton << "  # with its skeleton\n";
    }
  }
  known = {};
  ASSERT_TRUE(readKnownList(list, known, error)) << error;
  EXPECT_EQ(collectReport({dir}, known, error).newSignatures(), 0u);
  // Or with a pattern of the IR its bug needs that its reduced skeleton
  // includes (here the whole skeleton: the bucket key's last part); one its
  // skeleton does not include leaves it new.
  for (const char *extra : {"", " memref.dealloc{memref.alloc}"}) {
    {
      std::ofstream out(list);
      out << "[mlir-jit]\n";
      for (const ReportFinding &f : before.findings)
        out << f.id << " contains " << f.bucketKey.substr(f.bucketKey.rfind(" | ") + 3) << extra
            << "  # the IR it needs\n";
    }
    known = {};
    ASSERT_TRUE(readKnownList(list, known, error)) << error;
    EXPECT_EQ(collectReport({dir}, known, error).newSignatures(), *extra ? r.findings.size() : 0u);
  }
  // Or as a root of its pass under any op: its verdict, its pass and a
  // pattern its reduced skeleton includes, whatever op named it. Another
  // pass's root, or another verdict's, leaves it new.
  for (const char *root : {"", "other", "crash"}) {
    {
      std::ofstream out(list);
      out << "[mlir-jit]\n";
      for (const ReportFinding &f : before.findings) {
        const std::optional<Signature> s = parseSignatureText(f.signature);
        ASSERT_TRUE(s && !s->pass.empty()) << f.signature;
        out << (std::string(root) == "crash" ? "crash" : verdictName(s->kind)) << " "
            << (std::string(root) == "other" ? "func.func(canonicalize)" : s->pass) << " contains "
            << f.bucketKey.substr(f.bucketKey.rfind(" | ") + 3) << "  # a root of the pass\n";
      }
    }
    known = {};
    ASSERT_TRUE(readKnownList(list, known, error)) << error;
    EXPECT_EQ(collectReport({dir}, known, error).newSignatures(), *root ? r.findings.size() : 0u)
        << root;
  }

  // One campaign named twice (`D` and `D/`) counts once, under its name.
  const NightlyReport twice = collectReport({dir, dir + "/"}, known, error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(twice.cases, before.cases);
  ASSERT_EQ(twice.campaigns.size(), 1u);
  EXPECT_EQ(twice.campaigns[0].name, fs::path(dir).filename().string());
  // Known means known for this compiler: the same findings, as another
  // backend's campaign would file them (one coarse id, two compilers), are
  // two findings; a list naming them for iree leaves mlir-jit's new.
  {
    const std::string other = dir + "-iree";
    fs::remove_all(other);
    fs::copy(dir, other, fs::copy_options::recursive);
    for (const ReportFinding &f : before.findings) {
      const fs::path report = fs::path(other) / "findings" / f.id / "report.json";
      std::string text = slurp(report);
      const std::string from = "\"backend\": \"mlir-jit\"";
      ASSERT_NE(text.find(from), std::string::npos) << report;
      text.replace(text.find(from), from.size(), "\"backend\": \"iree\"");
      std::ofstream(report) << text;
    }
    {
      std::ofstream out(list);
      out << "[iree]\n";
      for (const ReportFinding &f : before.findings)
        out << f.bucket << "  # an IREE bug of this id\n";
    }
    known = {};
    ASSERT_TRUE(readKnownList(list, known, error)) << error;
    const NightlyReport both = collectReport({dir, other}, known, error);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(both.findings.size(), 2 * before.findings.size());
    EXPECT_EQ(both.newSignatures(), before.findings.size());
    for (const ReportFinding &f : both.findings)
      EXPECT_EQ(f.known, f.backend == "iree") << f.id << " of " << f.backend;
    // Listed for both, both are known.
    {
      std::ofstream out(list);
      out << "[mlir-jit iree]\n";
      for (const ReportFinding &f : before.findings)
        out << f.bucket << "\n";
    }
    known = {};
    ASSERT_TRUE(readKnownList(list, known, error)) << error;
    EXPECT_EQ(collectReport({dir, other}, known, error).newSignatures(), 0u);
    fs::remove_all(other);
  }
  // A line that names no backend, or a section naming one that is not, is
  // refused: a line must say which compilers it holds for.
  for (const char *text :
       {"mismatch-0123456789abcdef\n", "[iree inductr]\nmismatch-0123456789abcdef\n",
        "[]\nmismatch-0123456789abcdef\n"}) {
    {
      std::ofstream out(list);
      out << text;
    }
    known = {};
    EXPECT_FALSE(readKnownList(list, known, error)) << text;
    EXPECT_TRUE(error.find("holds for no backend") != std::string::npos ||
                error.find("is not a backend") != std::string::npos ||
                error.find("is not a section") != std::string::npos)
        << error;
  }
  // A known line whose verdict is not one matches nothing: refused.
  {
    std::ofstream out(list);
    out << "[mlir-jit]\n";
    out << "mismatc-0123456789abcdef  # a typo\n";
  }
  known = {};
  EXPECT_FALSE(readKnownList(list, known, error));
  EXPECT_NE(error.find("is not a signature id"), std::string::npos) << error;
  // So is a pattern that is not a skeleton.
  {
    std::ofstream out(list);
    out << "[mlir-jit]\n";
    out << "mismatch-0123456789abcdef contains affine.for{affine.load(d)\n";
  }
  known = {};
  EXPECT_FALSE(readKnownList(list, known, error));
  EXPECT_NE(error.find("'contains' and an IR skeleton"), std::string::npos) << error;
  fs::remove_all(dir);
}

// A reduced finding named by a later op (a gather reading what a loop's
// tail wrote past an insert) is known when its reduced case with every
// value returned fails as a known root of the same pass; not otherwise.
TEST(Report, AFindingWhoseExposedFailureIsAKnownRootIsKnown) {
  const std::string pass = "func.func(affine-super-vectorize{virtual-vector-size=16})";
  const Signature gather{VerdictKind::Mismatch, pass, "gather", ""};
  const Signature badAccess{VerdictKind::Mismatch, pass, kBadAccess, ""};
  ReportFinding f;
  f.id = gather.id();
  f.signature = gather.text();
  f.bucket = "bucket-0123456789abcdef";
  f.skeleton = "skeleton-0123456789abcdef";
  f.bucketKey = "mismatch | " + pass + " | gather,insert | bool | func.func{memref.alloc " +
                "affine.for{affine.load(d) affine.store(d)} memref.copy}";
  const std::set<std::string> known = {badAccess.id() +
                                       " contains affine.for{affine.load(d) affine.store(d)}"};
  EXPECT_FALSE(isKnownFinding(f, known));
  f.exposedSignature = badAccess.text();
  f.exposedId = badAccess.id();
  EXPECT_TRUE(isKnownFinding(f, known));
  // The known pattern must still be in the finding's skeleton.
  EXPECT_FALSE(isKnownFinding(
      f, {badAccess.id() + " contains affine.for{affine.load(div) affine.store(d)}"}));
}

// A wrong value named by the kernel ops that computed it is known by a
// line naming the root's mechanism among them, whatever op showed it; and
// not when the ops are another root's, or the line another verdict's.
TEST(Report, AWrongValueIsKnownByTheKernelOpsThatComputedIt) {
  const std::string dir = freshDir("report-computed-by");
  fs::create_directories(dir);
  const std::string list = dir + "/known.txt";
  {
    std::ofstream out(list);
    out << "[pytorchsim]\n";
    out << "mismatch computed-by arith.extsi i1>i8  # a bool widened as -1\n";
    // Spaced loosely: words are single-spaced as the path names them.
    out << "mismatch computed-by arith.cmpf  one ,arith.extui  # NaN != NaN ordered\n";
  }
  KnownList known;
  std::string error;
  ASSERT_TRUE(readKnownList(list, known, error)) << error;
  const std::set<std::string> &lines = known.of("pytorchsim");
  auto finding = [](const std::string &where) {
    ReportFinding f;
    const Signature s{VerdictKind::Mismatch, "", where, "value"};
    f.id = s.id();
    f.signature = s.text();
    f.bucket = f.id;
    return f;
  };
  EXPECT_TRUE(
      isKnownFinding(finding("le computed by arith.cmpi sle i32, arith.extsi i1>i8"), lines));
  EXPECT_TRUE(
      isKnownFinding(finding("eq computed by arith.cmpf oeq f32, arith.extsi i1>i8"), lines));
  EXPECT_TRUE(
      isKnownFinding(finding("ne computed by arith.cmpf one f32, arith.extui i1>i8"), lines));
  // A conversion named by its source type.
  {
    const std::set<std::string> uitofp = {"computed-by mismatch arith.uitofp i32"};
    EXPECT_TRUE(isKnownFinding(finding("cast computed by arith.uitofp i32>f32"), uitofp));
    EXPECT_FALSE(isKnownFinding(finding("cast computed by arith.uitofp i1>f32"), uitofp));
    EXPECT_FALSE(isKnownFinding(finding("cast computed by arith.uitofp i32x>f32"), uitofp));
  }
  // Every op of the line must be there, with its type or predicate.
  EXPECT_FALSE(
      isKnownFinding(finding("ne computed by arith.cmpf une f32, arith.extui i1>i8"), lines));
  EXPECT_FALSE(
      isKnownFinding(finding("le computed by arith.cmpi sle i32, arith.extsi i8>i32"), lines));
  EXPECT_FALSE(isKnownFinding(finding("add computed by arith.subf f32"), lines));
  // Without the kernel's ops (a black box), the line says nothing.
  EXPECT_FALSE(isKnownFinding(finding("le"), lines));
  const Signature crash{VerdictKind::UninitializedRead, "", "le computed by arith.extsi i1>i8", ""};
  EXPECT_FALSE(knownByComputation(crash.text(), lines));
  // A line without ops is not one.
  {
    std::ofstream out(list);
    out << "[pytorchsim]\nmismatch computed-by\n";
  }
  known = {};
  EXPECT_FALSE(readKnownList(list, known, error));
  EXPECT_NE(error.find("'computed-by' and kernel ops"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(Campaign, ShardsShareASeedOnlyWhenOneRanIt) {
  // By brute force over small ranges: what merge refuses to count twice.
  auto brute = [](const SeedRange &a, const SeedRange &b) -> std::optional<uint64_t> {
    for (uint64_t i = 0; i < a.count; ++i)
      if (b.contains(a.first + i * a.step))
        return a.first + i * a.step;
    return std::nullopt;
  };
  for (uint64_t af = 0; af < 7; ++af)
    for (uint64_t as = 1; as < 6; ++as)
      for (uint64_t bf = 0; bf < 7; ++bf)
        for (uint64_t bs = 1; bs < 6; ++bs)
          for (uint64_t n : {0u, 1u, 3u, 9u}) {
            const SeedRange a{af, as, n}, b{bf, bs, 4};
            EXPECT_EQ(sharedSeed(a, b), brute(a, b)) << af << " " << as << " " << bf << " " << bs;
          }
  // Two shards of one campaign never share; a copy of one always does; and
  // ranges of billions are decided at once.
  EXPECT_FALSE(sharedSeed({1000, 4, 3000000000ull}, {1001, 4, 3000000000ull}));
  EXPECT_EQ(sharedSeed({1000, 4, 3000000000ull}, {1000, 4, 3000000000ull}), 1000u);
  EXPECT_EQ(sharedSeed({0, 1, 5000000000ull}, {4999999999ull, 7, 1}), 4999999999ull);
}

namespace {
/// Each file of DIR/corpus by name, with its text.
std::map<std::string, std::string> corpusFiles(const std::string &dir) {
  std::map<std::string, std::string> files;
  for (const auto &e : fs::directory_iterator(fs::path(dir) / "corpus"))
    files[e.path().filename().string()] = slurp(e.path());
  return files;
}

/// A guided campaign of `cases` cases on the seeds the guided tests share.
CampaignOptions guidedCampaign(const std::string &dir, uint64_t cases, unsigned jobs) {
  CampaignOptions o = quietCampaign(dir, cases, "canonicalize");
  o.guidance = Guidance::Feedback;
  o.seedStart = 4400000;
  o.jobs = jobs;
  return o;
}
} // namespace

TEST(Campaign, AGuidedCampaignMakesTheSameCasesWithAnyJobsAndKeepsItsCorpus) {
  MlirJit jit;
  const std::string one = freshDir("guided-1"), two = freshDir("guided-2");
  CampaignOptions o = guidedCampaign(one, 400, 1);
  const CampaignResult r1 = runCampaign(o, jit);
  ASSERT_TRUE(r1.error.empty()) << r1.error;
  o.outDir = two;
  o.jobs = 2;
  const CampaignResult r2 = runCampaign(o, jit);
  ASSERT_TRUE(r2.error.empty()) << r2.error;
  // Mutants of what earlier cases reached, the same ones whatever the
  // order the cases finished in.
  EXPECT_GT(r1.mutants, 50u);
  EXPECT_GT(r1.corpusCases, 10u);
  EXPECT_LT(r1.corpusCases, 400u);
  EXPECT_EQ(r1.mutants, r2.mutants);
  EXPECT_EQ(r1.corpusKeys, r2.corpusKeys);
  const std::map<std::string, std::string> kept = corpusFiles(one);
  EXPECT_EQ(kept, corpusFiles(two));
  EXPECT_EQ(kept.size(), r1.corpusCases);
  // Resumed, it goes on from its corpus: what it kept stays, and more
  // cases are mutants of it (200 more: --max-cases is the campaign's total).
  o.maxCases = 600;
  const CampaignResult resumed = runCampaign(o, jit);
  ASSERT_TRUE(resumed.error.empty()) << resumed.error;
  EXPECT_EQ(resumed.totalCases, 600u);
  EXPECT_GT(resumed.mutants, 50u);
  const std::map<std::string, std::string> after = corpusFiles(two);
  for (const auto &[name, text] : kept)
    EXPECT_EQ(after.count(name) ? after.at(name) : "", text) << name;
  EXPECT_GE(resumed.corpusCases, kept.size());
  // A campaign asked for blind generation in a guided one's directory is
  // another campaign.
  o.guidance = Guidance::None;
  EXPECT_NE(runCampaign(o, jit).error.find("guidance"), std::string::npos);
  // Merged shards keep their corpora.
  const std::string merged = freshDir("guided-merged");
  std::string error;
  ASSERT_TRUE(mergeCorpora(merged, {two}, error)) << error;
  EXPECT_EQ(corpusFiles(merged).size(), after.size());
  for (const std::string &d : {one, two, merged})
    fs::remove_all(d);
}

TEST(Campaign, ASmallerGuidanceEpochMakesItsFirstMutantsSooner) {
  MlirJit jit;
  const std::string dir = freshDir("guided-epoch"), other = freshDir("guided-epoch-default");
  CampaignOptions o = guidedCampaign(other, 48, 2);
  // The default epoch: the first mutants come at index 256.
  const CampaignResult blindStart = runCampaign(o, jit);
  ASSERT_TRUE(blindStart.error.empty()) << blindStart.error;
  EXPECT_EQ(blindStart.mutants, 0u);
  // Epochs of 8: none before index 16, about half of the cases after it.
  o.outDir = dir;
  o.guidanceEpoch = 8;
  o.maxCases = 16;
  const CampaignResult first = runCampaign(o, jit);
  ASSERT_TRUE(first.error.empty()) << first.error;
  EXPECT_EQ(first.mutants, 0u);
  o.maxCases = 48;
  const CampaignResult resumed = runCampaign(o, jit);
  ASSERT_TRUE(resumed.error.empty()) << resumed.error;
  EXPECT_GT(resumed.mutants, 4u);
  EXPECT_LT(resumed.mutants, 32u);
  // Another epoch would draw other parents: it is another campaign.
  o.guidanceEpoch = 16;
  o.maxCases = 64;
  EXPECT_NE(runCampaign(o, jit).error.find("guidance_epoch"), std::string::npos);
  for (const std::string &d : {dir, other})
    fs::remove_all(d);
}

TEST(Campaign, AMutantsFindingReproducesFromItsDirectoryAlone) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  // A mutant that the planted maxnumf rewrite gets wrong (a -0 or NaN
  // through maximumf).
  RunConfig config;
  config.pipeline = "func.func(npufuzz-test-maxnumf)";
  IsolationLimits limits;
  limits.wallSeconds = 30;
  std::optional<CaseReport> failing;
  Mutant m;
  for (uint64_t seed = 0; seed < 400 && !failing; ++seed) {
    Seedling parent;
    parent.c = generateFromChoices(seed, mlirPolicy(), {}, parent.choices);
    parent.loweringSeed = seed;
    m = mutate(parent, seed + 1, mlirPolicy(), MutationPolicy(), true);
    if (printCase(m.s.c).find(" max ") == std::string::npos)
      continue;
    config.loweringSeed = m.s.loweringSeed;
    CaseReport report = runCaseIsolated(m.s.c, jit, config, limits);
    if (report.result.verdict == VerdictKind::Mismatch)
      failing = report;
  }
  ASSERT_TRUE(failing);
  const std::string dir = freshDir("mutant-finding");
  Finding f;
  f.seed = 77;
  f.mutant = true;
  f.how = "mutant of 76 by " + m.how;
  f.caseText = printCase(m.s.c);
  f.loweringSeed = m.s.loweringSeed;
  f.report = *failing;
  f.pipeline = config.pipeline;
  f.passPlugins = {NPUFUZZ_TEST_PLUGIN};
  ASSERT_TRUE(recordFinding(dir, f, error)) << error;
  const fs::path finding = fs::path(dir) / "findings" / f.signature().id();
  EXPECT_EQ(slurp(finding / "seeds.txt"), "77 mutant\n");
  const std::string repro = slurp(finding / "repro.sh");
  EXPECT_EQ(repro.find("--seed"), std::string::npos) << repro;
  // Run from anywhere, with only the directory: its repro line prints the
  // signature.
  const std::string bin = fs::path(NPUFUZZ_BINARY).parent_path().string();
  const std::string log = dir + ".log";
  const std::string cmd =
      "cd / && PATH=" + bin + ":$PATH sh " + (finding / "repro.sh").string() + " >" + log + " 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1) << slurp(log);
  EXPECT_NE(slurp(log).find(f.report.signature.id()), std::string::npos) << slurp(log);
  fs::remove_all(dir);
  fs::remove(log);
}

// A finding blamed on a switch whose absence asks for stricter semantics
// (Inductor's default numerics) is that mode's documented freedom: never
// new, whatever the known list says. One blamed on an optimisation is.
TEST(Report, AFindingOnlyDefaultNumericsShowsIsAFreedomNotANewBug) {
  const Signature numerics{VerdictKind::Mismatch, "inductor:default_pointwise_numerics", "neg", ""};
  const Signature matcher{VerdictKind::Mismatch, "inductor:pattern_matcher", "neg", ""};
  EXPECT_TRUE(blamesCompilerFreedom(numerics.text()));
  EXPECT_TRUE(blamesCompilerFreedom(
      Signature{VerdictKind::Mismatch, "inductor:default_reduction_numerics", "sum", ""}.text()));
  EXPECT_FALSE(blamesCompilerFreedom(matcher.text()));
  // The same name as another backend's switch is no freedom of it.
  EXPECT_FALSE(blamesCompilerFreedom(
      Signature{VerdictKind::Mismatch, "iree:default_pointwise_numerics", "neg", ""}.text()));
  EXPECT_FALSE(blamesCompilerFreedom(
      Signature{VerdictKind::Mismatch, "func.func(canonicalize)", "neg", ""}.text()));
  NightlyReport r;
  ReportFinding freedom, bug;
  freedom.id = numerics.id();
  freedom.signature = numerics.text();
  freedom.freedom = blamesCompilerFreedom(freedom.signature);
  bug.id = matcher.id();
  bug.signature = matcher.text();
  bug.freedom = blamesCompilerFreedom(bug.signature);
  r.findings = {freedom, bug};
  EXPECT_EQ(r.newSignatures(), 1u);
  // A wrong value only in the sign of a zero is minor: listed apart, not
  // new; any other difference of the same op is a wrong value.
  const Signature signedZero{VerdictKind::Mismatch, "inductor:pattern_matcher", "neg",
                             "signed-zero"};
  const Signature rounding{VerdictKind::Mismatch, "inductor:pattern_matcher", "neg", "rounding"};
  EXPECT_TRUE(isSignedZeroOnly(signedZero.text()));
  EXPECT_FALSE(isSignedZeroOnly(rounding.text()));
  EXPECT_FALSE(isSignedZeroOnly(
      Signature{VerdictKind::Crash, "inductor:pattern_matcher", "neg", "signed-zero"}.text()));
  ReportFinding minor;
  minor.id = signedZero.id();
  minor.signature = signedZero.text();
  minor.minor = isSignedZeroOnly(minor.signature);
  r.findings.push_back(minor);
  EXPECT_EQ(r.newSignatures(), 1u);
  EXPECT_EQ(r.newMinor(), 1u);
}
