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

/// Compares every output of `run` with the reference's, by exactness class.
Judgement judgeRun(const Case &c, const RefRun &ref, const BackendRun &run);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DIFFERENTIAL_H
