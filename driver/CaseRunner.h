//===- driver/CaseRunner.h - Run one case against the reference -*- C++ -*-===//
//
// One case end to end in this process: reference run, codegen, passes, JIT
// execution, comparison of every output, and a verdict.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_CASERUNNER_H
#define NPUFUZZ_DRIVER_CASERUNNER_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/MlirJit.h"
#include "oracles/Compare.h"
#include "oracles/Verdict.h"
#include "reference/Executor.h"

#include <string>
#include <vector>

namespace npufuzz {

struct RunConfig {
  MlirStyle style = MlirStyle::Affine;
  std::string pipeline = "O0";
  JitOptions jit;
};

struct CaseOutcome {
  VerdictKind verdict = VerdictKind::Ok;
  /// One line: what happened (the first mismatch, the failing pass, ...).
  std::string summary;
  BackendRun run;
  std::vector<Comparison> comparisons; ///< per output
  RefRun reference;                    ///< inputs and expected outputs
  MlirKernel kernel;                   ///< what was compiled
  double referenceSeconds = 0;
};

CaseOutcome runCase(const Case &c, MlirJit &jit, const RunConfig &config);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_CASERUNNER_H
