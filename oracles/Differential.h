//===- oracles/Differential.h - Judge a backend run against the reference -*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_DIFFERENTIAL_H
#define NPUFUZZ_ORACLES_DIFFERENTIAL_H

#include "backend/BackendRun.h"
#include "oracles/Compare.h"
#include "oracles/Verdict.h"
#include "reference/Executor.h"

#include <string>
#include <vector>

namespace npufuzz {

struct Judgement {
  VerdictKind verdict = VerdictKind::Ok;
  /// One line: the first mismatch, the failing pass, ...
  std::string summary;
  std::vector<Comparison> comparisons; ///< per output, when the run succeeded
};

/// The verdict a failed backend status maps to.
VerdictKind verdictOf(BackendRun::Status s);

struct RaceFinding;
/// The verdict of a finding of the race oracle.
VerdictKind syncVerdict(const RaceFinding &f);
/// race, sync-deadlock, sync-misuse, unflushed-store.
bool isSyncVerdict(VerdictKind v);

/// Compares every output of `run` with the reference's, by exactness class;
/// a run whose values agree and whose pipe trace shows a race or a sync
/// error takes that verdict (oracles/RaceAnalysis.h).
Judgement judgeRun(const Case &c, const RefRun &ref, const BackendRun &run);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DIFFERENTIAL_H
