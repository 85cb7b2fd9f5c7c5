//===- bench/ReduceBench.cpp - Reduction time and size on planted faults --===//
//
// For each planted fault of the test plugin: the first generated case of 8+
// compute ops that fails with it under canonicalize,cse,<fault>,licm, reduced
// `runs` times with `jobs` workers. Prints the median reduction time and the
// sizes before and after (case size, compute ops, largest dim, passes).
//
//   build/bin/bench_reduce [runs] [jobs] [plugin.so]
//
//===----------------------------------------------------------------------===//
#include "bench/PlantedFaults.h"
#include "driver/ReduceCommand.h"
#include "shrink/Reducer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace npufuzz;

int main(int argc, char **argv) {
  const unsigned runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const unsigned jobs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 2;
  const std::string plugin = argc > 3 ? argv[3] : NPUFUZZ_TEST_PLUGIN;
  MlirJit jit;
  std::string error;
  if (!jit.loadPassPlugin(plugin, error)) {
    std::fprintf(stderr, "bench_reduce: cannot load %s: %s\n", plugin.c_str(), error.c_str());
    return 1;
  }
  IsolationLimits limits;
  limits.wallSeconds = 10;
  limits.addressSpaceBytes = 2ull << 30;
  const CandidateRunner run = isolatedRunner(jit, RunConfig(), limits);
  std::printf("median of %u reductions, %u jobs\n", runs, jobs);
  std::printf("%-15s %5s %15s %9s %11s %7s %6s %6s %9s\n", "fault", "seed", "size", "ops",
              "max dim", "passes", "steps", "tests", "median");
  for (const PlantedFault &fault : plantedFaults()) {
    const auto input = findFailingInput(run, fault, fault.pipeline());
    if (!input) {
      std::printf("%-15s no failing case found\n", fault.name.c_str());
      continue;
    }
    SameSignature same(input->observed.signature, run);
    ReduceOptions options;
    options.jobs = jobs;
    std::vector<double> seconds;
    ReduceResult r;
    for (unsigned i = 0; i < runs; ++i) {
      r = reduce(input->candidate, same, options);
      seconds.push_back(r.seconds);
    }
    std::sort(seconds.begin(), seconds.end());
    auto arrow = [](auto a, auto b) { return std::to_string(a) + "->" + std::to_string(b); };
    std::printf("%-15s %5llu %15s %9s %11s %7s %6u %6u %8.1fs%s\n", fault.name.c_str(),
                static_cast<unsigned long long>(input->seed),
                arrow(r.before.caseSize, r.after.caseSize).c_str(),
                arrow(r.before.computeOps, r.after.computeOps).c_str(),
                arrow(r.before.maxDim, r.after.maxDim).c_str(),
                arrow(r.before.passes, r.after.passes).c_str(), r.caseSteps + r.pipelineSteps,
                r.tests, seconds[seconds.size() / 2], r.confirmed ? "" : "  (not confirmed)");
  }
  return 0;
}
