//===- bench/PhaseBench.cpp - Where a campaign case's time goes -----------===//
//
// The time of a case as a campaign's worker spends it, per style, in
// milliseconds per case: generation; the first run (reference, MLIR
// emission and parsing, the style's lowering with the user's passes and the
// tail, LLVM translation and code generation, execution, and the rest of
// the run: comparison and glue); each oracle's reruns (metamorphic,
// nondeterminism, poison, op and pass blame); and what the campaign adds
// around a worker (fork, IPC, recording, IR coverage and state), the
// difference between a one-job campaign's wall time per case and the
// in-process task. The cases are the campaign's (its seeds and lowering
// plans), run in process first and then by the campaign.
//
//   build/bin/bench_phases [cases (200)] [seed-start (0)] [styles...]
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "generators/CaseGenerator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

using namespace npufuzz;

namespace {
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Milliseconds per case of `seconds` over `cases`.
double perCase(double seconds, uint64_t cases) { return cases ? 1000.0 * seconds / cases : 0; }
} // namespace

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200;
  const uint64_t start = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  std::vector<std::string> styles;
  for (int i = 3; i < argc; ++i)
    styles.push_back(argv[i]);
  if (styles.empty())
    styles = {"affine", "tensor", "npu"};
  if (count == 0) {
    std::fprintf(stderr, "bench_phases: give a case count above 0\n");
    return 2;
  }
  std::printf("%llu cases from seed %llu at O0, one core; milliseconds per case\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(start));
  MlirJit jit;
  for (const std::string &name : styles) {
    CampaignOptions o;
    if (!parseMlirStyle(name, o.config.style)) {
      std::fprintf(stderr, "bench_phases: unknown style '%s'\n", name.c_str());
      return 2;
    }
    o.seedStart = start;
    o.maxCases = count;
    o.jobs = 1;
    o.reduce = false;
    o.progress = false;
    o.limits.wallSeconds = 60;
    // As a campaign's worker runs a case: no blame and the trusted elements
    // verified per group (a failure is run again in a fresh child, rare).
    RunConfig config = o.config;
    config.blame = false;
    config.jit.verifyTrustedElements = false;
    double generate = 0, task = 0, reference = 0, emit = 0, passes = 0, codegen = 0, execute = 0,
           first = 0;
    std::map<std::string, double> oracles;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t seed = start + i;
      auto t0 = Clock::now();
      const Case c = generateCase(seed, o.policy);
      generate += since(t0);
      RunConfig caseConfig = config;
      caseConfig.loweringSeed = loweringSeedFor(o, seed);
      t0 = Clock::now();
      const TaskResult r = runCaseTask(c, jit, caseConfig);
      task += since(t0);
      reference += r.referenceSeconds;
      emit += r.emitSeconds;
      passes += r.passSeconds;
      codegen += r.codegenSeconds;
      execute += r.executeSeconds;
      first += r.firstRunSeconds;
      for (const auto &[oracle, seconds] : r.oracleSeconds)
        oracles[oracle] += seconds;
    }
    // The same cases through a one-job campaign: what the worker, its fork
    // and IPC, and the campaign's bookkeeping add.
    o.outDir = (std::filesystem::temp_directory_path() /
                ("npufuzz-bench-phases-" + name + "-" + std::to_string(::getpid())))
                   .string();
    std::filesystem::remove_all(o.outDir);
    const CampaignResult campaign = runCampaign(o, jit);
    std::filesystem::remove_all(o.outDir);
    if (!campaign.error.empty()) {
      std::fprintf(stderr, "bench_phases: %s\n", campaign.error.c_str());
      return 1;
    }
    double oracleSum = 0;
    for (const auto &[oracle, seconds] : oracles)
      oracleSum += seconds;
    const double rest = first - reference - emit - passes - codegen - execute;
    std::printf("\n%s: in process %.1f cases/s, campaign %.1f cases/s\n", name.c_str(),
                count / (generate + task), campaign.cases / campaign.seconds);
    auto row = [&](const char *what, double seconds) {
      std::printf("  %-34s %8.2f ms  %5.1f %%\n", what, perCase(seconds, count),
                  100.0 * seconds / campaign.seconds);
    };
    row("generation", generate);
    row("reference", reference);
    row("MLIR emission and parsing", emit);
    row("lowering, user's passes, tail", passes);
    row("LLVM translation and codegen", codegen);
    row("execution", execute);
    row("comparison and the run's glue", rest);
    for (const auto &[oracle, seconds] : oracles)
      row(("oracle " + oracle).c_str(), seconds);
    row("task glue", task - first - oracleSum);
    row("worker, fork, IPC, recording", campaign.seconds - generate - task);
    row("campaign total", campaign.seconds);
  }
  return 0;
}
