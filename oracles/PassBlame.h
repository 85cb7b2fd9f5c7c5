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
#include "reference/Executor.h"

#include <functional>
#include <string>

namespace npufuzz {

struct PassBlame {
  bool found = false;
  int passIndex = -1; ///< position in Pipeline::elements() (Pipeline::passElement)
  std::string passName;
  VerdictKind verdict = VerdictKind::Ok; ///< what the first bad prefix gave
  std::string detail;
  /// Set when the IR after the blamed pass is right by another route
  /// through the tail: the lowering or tail element that miscompiles it
  /// (the blamed pass only exposed it), and its position in
  /// Pipeline::loweringAndTail(). Also set with no pass found when the
  /// passes are innocent and the tail alone miscompiles the case.
  std::string miscompiledBy;
  int miscompiledByIndex = -1;
};

/// Elements that lower every vector transfer still in the IR to scalar
/// accesses (rank 0, fully unrolled), with the loops they make lowered to
/// control flow: inserted anywhere before the tail's convert-vector-to-llvm,
/// they give the IR's meaning by a route that avoids the tail's lowering of
/// vector memory accesses. The witness of tail blame.
const std::vector<std::string> &scalarizingWitness();

/// For a case: the first optimisation pass whose prefix (+ tail) makes the
/// case's outputs disagree with the reference. For a mismatch, then, blame
/// through the tail: if the IR after that pass gives the right outputs with
/// the scalarizing witness inserted before the tail, the witness is moved
/// later one element at a time, and the element after which it no longer
/// helps is the one that miscompiles ("exposed by the pass, miscompiled by
/// the element"). The witness must help at the start, or the pass is
/// blamed alone: no tail element is named without that evidence.
PassBlame blameCasePass(const Case &c, MlirJit &jit, const Pipeline &pipeline,
                        const MlirEmitOptions &emit, const JitOptions &options);
/// The same on given data: `ref` is the reference run on it.
PassBlame blameCasePass(const Case &c, const RefRun &ref, MlirJit &jit, const Pipeline &pipeline,
                        const MlirEmitOptions &emit, const JitOptions &options);

/// Applies pass elements to module text; the result's `mlir` is the output
/// (in process: MlirJit::transform; out of process: MlirTool::transform).
using ModuleTransform =
    std::function<BackendRun(const std::string &text, const std::vector<std::string> &)>;

/// For a function of a module, driven with buffers (MlirJit::EntryDriver):
/// every data set is run through the lowering and tail alone (the
/// expectation) and after each prefix of the passes, applied by `transform`
/// and finished in process; the first prefix whose buffers differ on some
/// data set is blamed, and for a mismatch the tail is blamed through as for
/// a case. Floats compare within the Approx tolerance, since vectorised math
/// may round differently without being wrong.
PassBlame blameModulePass(const MlirJit::EntryDriver &driver, MlirJit &jit,
                          const Pipeline &pipeline, const ModuleTransform &transform,
                          const std::vector<std::vector<TensorData>> &datasets,
                          const JitOptions &options, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_PASSBLAME_H
