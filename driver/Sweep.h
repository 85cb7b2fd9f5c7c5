//===- driver/Sweep.h - Generate and reference-run a batch of seeds -*- C++ -*-===//
//
// A sweep checks the foundation end to end over a range of seeds: every case
// generates, verifies, round-trips through its text and runs on the reference.
// It reports throughput and the feature histogram of what was generated.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_SWEEP_H
#define NPUFUZZ_DRIVER_SWEEP_H

#include "generators/Policy.h"
#include "oracles/CaseRunner.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace npufuzz {

struct SweepOptions {
  uint64_t seedStart = 0;
  uint64_t count = 1000;
  Policy policy = Policy::defaults();
  /// Also compile and run each case on the in-process MLIR backend and
  /// compare it with the reference.
  bool runBackend = false;
  RunConfig config;
  /// Lower each case with the plan its seed draws (as campaigns do) rather
  /// than the canonical one.
  bool seededLowering = false;
};

struct SweepResult {
  uint64_t cases = 0;
  /// Seeds whose case failed a check, with the reason.
  std::vector<std::pair<uint64_t, std::string>> failures;
  /// Feature tag -> number of cases that have it (ordered by tag).
  std::map<std::string, uint64_t> features;
  double generateSeconds = 0, referenceSeconds = 0, textSeconds = 0;
  /// With runBackend: verdict name -> count, and time per backend stage.
  std::map<std::string, uint64_t> verdicts;
  double emitSeconds = 0, passSeconds = 0, codegenSeconds = 0, executeSeconds = 0;
};

SweepResult runSweep(const SweepOptions &options);
void printSweepReport(const SweepResult &r, std::ostream &os);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_SWEEP_H
