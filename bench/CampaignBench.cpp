//===- bench/CampaignBench.cpp - What isolation costs a campaign ----------===//
//
// Cases per second on one core for the same seeds and the same per-case
// work (generation, the run, every oracle of `runCaseTask`), measured in one
// run three ways:
//   in process           a loop in this process, no isolation;
//   persistent workers   `runCampaign` with --jobs 1 (a fork per 500 cases);
//   fork per case        `runCampaign` with --jobs 1 --cases-per-worker 1.
// The ratios to the in-process loop are the cost of isolation.
//
//   build/bin/bench_campaign [count] [metamorphic-share]
//
// The in-process loop has no isolation, so the seeds must all run cleanly
// (the default policy at O0 does).
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "generators/CaseGenerator.h"

#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace npufuzz;

namespace {
double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
} // namespace

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
  const double share = argc > 2 ? std::strtod(argv[2], nullptr) : 0.25;
  RunConfig config;
  config.metamorphicShare = share;
  const Policy policy = Policy::defaults();
  std::printf("%llu seeds from 0, style affine, O0, metamorphic share %.2f, one worker\n",
              static_cast<unsigned long long>(count), share);

  // The in-process loop gets its own JIT; the campaigns' parent JIT stays
  // unused, as in `npufuzz fuzz`.
  MlirJit local;
  uint64_t failed = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = 0; seed < count; ++seed) {
    const TaskResult t = runCaseTask(generateCase(seed, policy), local, config);
    failed += t.verdict != VerdictKind::Ok;
  }
  const double inProcess = seconds(t0);

  MlirJit parent;
  auto campaign = [&](unsigned casesPerWorker, CampaignResult &r) {
    llvm::SmallString<128> dir;
    if (llvm::sys::fs::createUniqueDirectory("npufuzz-bench", dir)) {
      std::fprintf(stderr, "bench_campaign: cannot create a temporary directory\n");
      std::exit(1);
    }
    CampaignOptions o;
    o.outDir = dir.str().str();
    o.maxCases = count;
    o.jobs = 1;
    o.config = config;
    o.policy = policy;
    o.progress = false;
    o.reduce = false;
    o.casesPerWorker = casesPerWorker;
    const auto t = std::chrono::steady_clock::now();
    r = runCampaign(o, parent);
    const double s = seconds(t);
    std::error_code ec;
    std::filesystem::remove_all(o.outDir, ec);
    return s;
  };
  CampaignResult persistentResult, forkResult;
  const double persistent = campaign(500, persistentResult);
  const double forkPerCase = campaign(1, forkResult);

  std::printf("%-20s %8s %9s %9s %10s\n", "", "cases", "seconds", "cases/s", "vs loop");
  auto row = [&](const char *name, uint64_t cases, double s) {
    std::printf("%-20s %8llu %9.1f %9.1f %9.1f%%\n", name, static_cast<unsigned long long>(cases),
                s, cases / s, 100.0 * (cases / s) / (count / inProcess));
  };
  row("in process", count, inProcess);
  row("persistent workers", persistentResult.cases, persistent);
  row("fork per case", forkResult.cases, forkPerCase);
  if (failed)
    std::printf("note: %llu cases were not ok in process\n", static_cast<unsigned long long>(failed));
  return 0;
}
