//===- backend/mlir/RunningStage.h - What a dying process was doing -*- C++ -*-===//
//
// A compiler under test that crashes in process takes the worker with it,
// and a stack of `mlir::detail::walk` frames rarely names the pass. So the
// in-process MLIR runner marks what it is doing (which pass element, code
// generation, or the compiled kernel) in static storage, and an LLVM signal
// handler prints that mark on stderr when the process dies. The parent finds
// the last mark in the child's stderr and names the crash by it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_RUNNINGSTAGE_H
#define NPUFUZZ_BACKEND_MLIR_RUNNINGSTAGE_H

#include <string>

namespace npufuzz {

enum class RunningStage : unsigned char {
  None,    ///< nothing marked (not in an MLIR run)
  Pass,    ///< running pass element `passIndex`
  Codegen, ///< translating to LLVM IR and compiling it
  Kernel,  ///< executing the compiled kernel
};

/// Installs the signal handler (once per process). LLVM runs signal
/// handlers in the order they were added: installed before LLVM's stack
/// printer (npufuzz's main does so first), the mark comes before the stack
/// dump, so neither a stderr limit nor a kill during symbolization loses it.
void installRunningStageReporter();

/// Marks the current stage until the next mark or `clearRunningStage`. A
/// pass element stays marked after it returns, while the IR it left is
/// verified and printed: a crash there is its doing.
void markRunningStage(RunningStage stage, int passIndex = -1, const std::string &passName = {});
void clearRunningStage();

/// The stage a dead process last reported on `stderrText`, if any.
struct DiedIn {
  RunningStage stage = RunningStage::None;
  int passIndex = -1;
  std::string passName;
};
DiedIn diedIn(const std::string &stderrText);

/// `stderrText` without the lines the handler wrote.
std::string withoutStageMark(const std::string &stderrText);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_RUNNINGSTAGE_H
