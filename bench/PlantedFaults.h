//===- bench/PlantedFaults.h - Inputs for the reducer -*- C++ -*-===//
//
// The test plugin's planted faults as the reducer's inputs: each pass sits
// between real optimisation passes (so that pipeline shortening has work
// to do), and the input is the first generated case of 8+ compute ops that
// fails with the fault's verdict. Shared by the reducer tests and the bench.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BENCH_PLANTEDFAULTS_H
#define NPUFUZZ_BENCH_PLANTEDFAULTS_H

#include "generators/CaseGenerator.h"
#include "shrink/Interestingness.h"

#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

struct PlantedFault {
  std::string name; ///< the pass is npufuzz-test-<name>
  VerdictKind verdict;

  std::string pass() const { return "func.func(npufuzz-test-" + name + ")"; }
  std::string pipeline() const {
    return "canonicalize,cse," + pass() + ",loop-invariant-code-motion";
  }
};

inline const std::vector<PlantedFault> &plantedFaults() {
  static const std::vector<PlantedFault> faults = {
      {"miscompile", VerdictKind::Mismatch},
      {"crash", VerdictKind::Crash},
      {"break-verifier", VerdictKind::VerifierError},
  };
  return faults;
}

struct FailingInput {
  uint64_t seed = 0;
  Candidate candidate;
  Observation observed;
};

/// The first seed below `maxSeed` whose case has at least `minOps` compute
/// ops and fails with `fault`'s verdict under `pipeline`.
inline std::optional<FailingInput> findFailingInput(const CandidateRunner &run,
                                                    const PlantedFault &fault,
                                                    const std::string &pipeline, size_t minOps = 8,
                                                    uint64_t maxSeed = 400) {
  for (uint64_t seed = 0; seed < maxSeed; ++seed) {
    FailingInput in;
    in.seed = seed;
    in.candidate.c = generateCase(seed, Policy::defaults());
    in.candidate.pipeline = pipeline;
    if (in.candidate.c.numComputeOps() < minOps)
      continue;
    in.observed = run({in.candidate})[0];
    if (in.observed.signature.kind == fault.verdict)
      return in;
  }
  return std::nullopt;
}

} // namespace npufuzz

#endif // NPUFUZZ_BENCH_PLANTEDFAULTS_H
