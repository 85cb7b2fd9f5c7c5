//===- tests/driver/CampaignTest.cpp - Campaigns survive their workers ----===//
//
// A campaign whose pipeline holds planted passes that abort, loop forever or
// exhaust memory records each as its verdict and keeps going; npufuzz --seed
// reproduces a finding's signature; a campaign killed with SIGKILL leaves
// only complete findings and resumes where it stopped.
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "generators/CaseGenerator.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
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
  const fs::path dir = fs::temp_directory_path() / ("npufuzz-test-" + name + "-" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

CampaignOptions faultyCampaign(const std::string &dir, uint64_t cases) {
  CampaignOptions o;
  o.outDir = dir;
  o.maxCases = cases;
  o.jobs = 2;
  o.config.pipeline = kFaultyPipeline;
  o.limits.wallSeconds = 2;
  o.limits.addressSpaceBytes = 1ull << 30;
  o.progress = false;
  o.reduce = false; // hangs would make reduction slow; reduction is tested below
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

  // npufuzz --seed N: the same worker, the same verdict and signature.
  const FindingSummary *crash = nullptr;
  for (const FindingSummary &f : r.findings)
    if (f.id.rfind("crash-", 0) == 0)
      crash = &f;
  ASSERT_NE(crash, nullptr);
  const Case c = generateCase(crash->firstSeed, Policy::defaults());
  RunConfig config;
  config.pipeline = kFaultyPipeline;
  const CaseReport again =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); },
                           faultyCampaign(dir, 1).limits));
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

TEST(Campaign, KillNineLosesNoFindingAndResumes) {
  const std::string dir = freshDir("killed");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(NPUFUZZ_BINARY, NPUFUZZ_BINARY, "fuzz", "-o", dir.c_str(), "--jobs", "2",
            "--timeout", "2", "--memory-mb", "1024", "--quiet", "--no-reduce", "--load-pass-plugin",
            NPUFUZZ_TEST_PLUGIN, "--pipeline", kFaultyPipeline, static_cast<char *>(nullptr));
    ::_exit(127);
  }
  // Let it record a few findings, then kill it without warning.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  size_t findings = 0;
  while (std::chrono::steady_clock::now() < deadline && findings < 3) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    findings = 0;
    if (fs::exists(fs::path(dir) / "findings"))
      for (const auto &e : fs::directory_iterator(fs::path(dir) / "findings"))
        findings += e.path().filename().string()[0] != '.';
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500)); // a state write
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_GE(findings, 3u) << "the campaign found too little before the deadline";
  expectCompleteFindings(dir);

  // Resume: the state file says how far it got; the next run starts there.
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const CampaignResult r = runCampaign(faultyCampaign(dir, 4), jit);
  EXPECT_EQ(r.cases, 4u);
  EXPECT_GT(r.totalCases, r.cases) << "resumed campaigns keep their totals";
  expectCompleteFindings(dir);
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
  o.reduceSeconds = 30;
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_GE(r.newFindings, 1u);
  EXPECT_EQ(r.reduced, r.newFindings);
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
  }
  fs::remove_all(dir);
}
