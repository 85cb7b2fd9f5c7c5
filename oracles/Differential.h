//===- oracles/Differential.h - Judge a backend run against the reference -*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_DIFFERENTIAL_H
#define NPUFUZZ_ORACLES_DIFFERENTIAL_H

#include "backend/BackendRun.h"
#include "oracles/Compare.h"
#include "oracles/Verdict.h"
#include "reference/Executor.h"

#include <optional>
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

/// What a run's kernel trace shows that its values cannot: a verdict of
/// the race oracle or of the cache-coherency oracle.
struct TraceFinding {
  VerdictKind verdict = VerdictKind::Ok;
  std::string text;  ///< one line naming what and where
  std::string where; ///< what a signature keeps: kinds, pipes or cause
};
/// The first finding of `trace`: a core's own pipes first
/// (oracles/RaceAnalysis.h), then cores' caches over GM
/// (oracles/CacheCoherency.h). Nothing when it shows neither.
std::optional<TraceFinding> firstTraceFinding(const std::vector<TraceEvent> &trace);
/// race, sync-deadlock, sync-misuse, unflushed-store, stale-read,
/// lost-write: the verdicts of a trace.
bool isTraceVerdict(VerdictKind v);

/// Compares every output of `run` with the reference's, by exactness class;
/// a run whose values agree and whose kernel trace shows a finding takes
/// its verdict (firstTraceFinding).
Judgement judgeRun(const Case &c, const RefRun &ref, const BackendRun &run);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DIFFERENTIAL_H
