//===- shrink/Reducer.h - Greedy, cached test-case reduction ----*- C++ -*-===//
//
// Reduces a failing candidate (case + pipeline) to a small one that is still
// interesting: alternately drops pipeline elements (delta-debugging style:
// halves, then quarters, ... then single passes) and walks shrinkCandidates
// greedily (the first interesting candidate wins, then start over), until a
// round changes nothing. Every candidate is tested at most once (a cache by
// case hash and pipeline). `jobs` candidates are tested at a time, and the
// first interesting one in candidate order is taken, so the result is the
// one a sequential run gives. The final candidate is tested once more.
//
// A stop flag (set by a SIGINT handler) ends the reduction at the next test
// with the best candidate so far, as C-Reduce keeps its best file when it
// is interrupted.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_SHRINK_REDUCER_H
#define NPUFUZZ_SHRINK_REDUCER_H

#include "shrink/Interestingness.h"

#include <atomic>
#include <functional>
#include <string>

namespace npufuzz {

struct ReduceOptions {
  MlirStyle style = MlirStyle::Affine; ///< how pipeline specs expand
  double maxSeconds = 0;               ///< stop reducing after this; 0: no limit
  unsigned jobs = 1;                   ///< candidates tested at once
  bool shortenPipeline = true;
  /// Test the result once more at the end (ReduceResult::confirmed); a
  /// caller that re-checks it itself turns this off.
  bool confirm = true;
  /// Called with a line after every accepted step (progress); may be empty.
  std::function<void(const std::string &)> log;
  /// When it becomes true (a signal handler sets it), reduction stops before
  /// its next test and returns the best candidate so far; answers of a batch
  /// under test when it was set are dropped, since an interrupt reaches an
  /// interestingness command too. Null: never stop.
  const std::atomic<bool> *stop = nullptr;
};

struct ReduceResult {
  Candidate reduced;
  CandidateSize before, after;
  unsigned caseSteps = 0;     ///< accepted case shrinks
  unsigned pipelineSteps = 0; ///< accepted pipeline shortenings
  unsigned tests = 0;         ///< candidates actually run
  unsigned cacheHits = 0;     ///< candidates answered from the cache
  unsigned errors = 0;        ///< tests that erred or timed out
  double seconds = 0;
  bool timedOut = false; ///< stopped by maxSeconds before a fixpoint
  /// Stopped by ReduceOptions::stop: `reduced` is the best so far (the
  /// input when no test had answered yet), not re-run (`confirmed` false).
  bool interrupted = false;
  bool confirmed = false; ///< the final candidate, re-run, is interesting
  /// Set when the input is not interesting, or when no test of it answered
  /// (out of time, or interrupted: `reduced` is then the input).
  std::string error;
};

ReduceResult reduce(const Candidate &input, Interestingness &test, const ReduceOptions &options);

/// The pipeline spec naming `passes` (a comma-separated list), or O0 when
/// there are none.
std::string pipelineSpec(const std::vector<std::string> &passes);

} // namespace npufuzz

#endif // NPUFUZZ_SHRINK_REDUCER_H
