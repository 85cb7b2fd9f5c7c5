//===- bench/CampaignBench.cpp - What isolation costs a campaign ----------===//
//
// Cases per second on one core for the same seeds and the same per-case
// work (generation, the run, every oracle of `runCaseTask`), measured in one
// run three ways, in interleaved rounds:
//   in process           a loop in this process, no isolation;
//   persistent workers   `runCampaign` with --jobs 1 (a fork per 500 cases);
//   fork per case        `runCampaign` with --jobs 1 --cases-per-worker 1.
// The ratios to the in-process loop are the cost of isolation.
//
//   build/bin/bench_campaign [count] [metamorphic-share] [rounds]
//
// The in-process loop has no isolation between its cases, so the seeds must
// all run cleanly (the default policy at O0 does).
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "generators/CaseGenerator.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

using namespace npufuzz;

namespace {
double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
} // namespace

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 600;
  const double share = argc > 2 ? std::strtod(argv[2], nullptr) : 0.25;
  const unsigned rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  RunConfig config;
  config.metamorphicShare = share;
  const Policy policy = mlirPolicy();
  std::printf("%llu seeds from 0, style affine, O0, metamorphic share %.2f, one worker, "
              "%u interleaved rounds\n",
              static_cast<unsigned long long>(count), share, rounds);

  // This process stays as small as a campaign's parent: its JIT is never
  // used here, and the in-process loop runs in a child of its own (one
  // process for all cases, no isolation between them).
  MlirJit jit;
  uint64_t failed = 0, lost = 0;
  auto inProcess = [&] {
    IsolationLimits limits;
    limits.wallSeconds = 3600;
    const ChildOutcome o = runIsolated(
        [&] {
          uint64_t notOk = 0;
          const auto t = std::chrono::steady_clock::now();
          for (uint64_t seed = 0; seed < count; ++seed)
            notOk +=
                runCaseTask(generateCase(seed, policy), jit, config).verdict != VerdictKind::Ok;
          return std::to_string(count / seconds(t)) + " " + std::to_string(notOk);
        },
        limits);
    if (o.end != ChildOutcome::End::Returned) {
      std::fprintf(stderr, "bench_campaign: the in-process loop died:\n%s\n", o.stderrText.c_str());
      std::exit(1);
    }
    double rate = 0;
    unsigned long long notOk = 0;
    std::sscanf(o.payload.c_str(), "%lf %llu", &rate, &notOk);
    failed += notOk;
    return rate;
  };
  auto campaign = [&](unsigned casesPerWorker) {
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
    const CampaignResult r = runCampaign(o, jit);
    const double rate = r.cases / seconds(t);
    lost += count - r.cases;
    std::error_code ec;
    std::filesystem::remove_all(o.outDir, ec);
    return rate;
  };

  // Rounds interleave the modes, so that drift in the machine's speed hits
  // all three alike; the medians are compared.
  std::vector<double> loop, persistent, forkPerCase;
  for (unsigned k = 0; k < rounds; ++k) {
    loop.push_back(inProcess());
    persistent.push_back(campaign(500));
    forkPerCase.push_back(campaign(1));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  const double base = median(loop);
  std::printf("%-20s %14s %10s   %s\n", "", "median cases/s", "vs loop", "rounds");
  auto row = [&](const char *name, const std::vector<double> &v) {
    std::printf("%-20s %14.1f %9.1f%%  ", name, median(v), 100.0 * median(v) / base);
    for (double x : v)
      std::printf(" %.1f", x);
    std::printf("\n");
  };
  row("in process", loop);
  row("persistent workers", persistent);
  row("fork per case", forkPerCase);
  if (failed || lost)
    std::printf("note: %llu in-process runs were not ok, %llu campaign cases missing\n",
                static_cast<unsigned long long>(failed), static_cast<unsigned long long>(lost));
  return 0;
}
