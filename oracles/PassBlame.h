//===- oracles/PassBlame.h - The first pass after which results go wrong -*- C++ -*-===//
//
// Differential by pass: execute the IR after each prefix of the optimisation
// passes, finished with the trusted lowering tail, and blame the first pass
// after which the result disagrees with the expectation: the reference for a
// case, or the tail-only execution for an arbitrary MLIR module.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_PASSBLAME_H
#define NPUFUZZ_ORACLES_PASSBLAME_H

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "oracles/Verdict.h"

#include <functional>
#include <string>

namespace npufuzz {

struct PassBlame {
  bool found = false;
  int passIndex = -1;   ///< position in Pipeline::passes
  std::string passName;
  VerdictKind verdict = VerdictKind::Ok; ///< what the first bad prefix gave
  std::string detail;
};

/// For a case: the first optimisation pass whose prefix (+ tail) makes the
/// case's outputs disagree with the reference.
PassBlame blameCasePass(const Case &c, MlirJit &jit, const Pipeline &pipeline,
                        MlirStyle style, const JitOptions &options);

/// Applies pass elements to module text; the result's `mlir` is the output
/// (in process: MlirJit::transform; out of process: MlirTool::transform).
using ModuleTransform =
    std::function<BackendRun(const std::string &text, const std::vector<std::string> &)>;

/// For a module whose `entry` takes static memrefs: buffers filled from
/// `dataSeed` are run through the tail alone (the expectation) and after
/// each prefix of the passes, applied by `transform` and finished with the
/// in-process tail; the first prefix whose buffers differ is blamed. Floats
/// compare within the Approx tolerance, since vectorised math may round
/// differently without being wrong.
PassBlame blameModulePass(const std::string &text, const std::string &entry, MlirJit &jit,
                          const Pipeline &pipeline, const ModuleTransform &transform,
                          uint64_t dataSeed, const JitOptions &options, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_PASSBLAME_H
