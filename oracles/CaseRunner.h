//===- oracles/CaseRunner.h - Run one case against the reference -*- C++ -*-===//
//
// One case end to end in this process: reference run, codegen, passes, JIT
// execution, comparison of every output, and a verdict. This is the
// differential oracle; the others judge a case again from its run
// (oracles/Oracle.h).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_CASERUNNER_H
#define NPUFUZZ_ORACLES_CASERUNNER_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "oracles/CaseVerdict.h"
#include "oracles/Compare.h"
#include "oracles/RunConfig.h"
#include "oracles/Verdict.h"
#include "reference/Executor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// Runs case `c`'s emitted kernel on the configured backend (makeBackend).
BackendRun executeKernel(const RunConfig &config, MlirJit &jit, const MlirKernel &kernel,
                         const Pipeline &pipeline, const std::vector<TensorData> &inputs,
                         const std::vector<TensorType> &outputTypes, uint32_t poison,
                         const Case &c);

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

/// Runs `base`'s kernel (of case `c`, compiled with `pipeline`) again on
/// its inputs, with the output buffers filled with `poison`.
BackendRun rerunKernel(const Case &c, MlirJit &jit, const RunConfig &config,
                       const Pipeline &pipeline, const CaseOutcome &base, uint32_t poison);

/// The differential oracle's verdict on `base`, a run of `c`: its verdict
/// and summary, the pass a failed run names, and for a wrong result the op
/// of the first wrong output and the kind of its first difference.
CaseVerdict differentialVerdict(const Case &c, const CaseOutcome &base);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_CASERUNNER_H
