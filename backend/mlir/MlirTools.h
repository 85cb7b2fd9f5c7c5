//===- backend/mlir/MlirTools.h - Drive mlir-opt out of process -*- C++ -*-===//
//
// The same pipelines through an `mlir-opt` binary instead of the in-process
// PassManager, so that a user's own fork with custom passes can be driven
// the same way. No MLIR headers: processes and files only.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_MLIRTOOLS_H
#define NPUFUZZ_BACKEND_MLIR_MLIRTOOLS_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirEmitter.h"

#include <string>
#include <vector>

namespace npufuzz {

struct MlirTool {
  /// Path or name (looked up on PATH) of mlir-opt and mlir-runner.
  std::string mlirOpt = "mlir-opt-22";
  std::string mlirRunner = "mlir-runner-22";
  /// libnpufuzz_rt.so: kernel I/O, rounding helpers, the simulator.
  std::string runtimeLibrary;
  std::vector<std::string> passPlugins;
  unsigned timeoutSeconds = 60;

  /// Resolves mlirOpt (or `program`) to a path; false with an error naming
  /// what to install.
  bool find(std::string &path, std::string &error) const;
  bool find(const std::string &program, std::string &path, std::string &error) const;

  /// Runs a kernel out of process: `elements` through mlir-opt, then a
  /// generated `@main` through mlir-runner, which reads `inputs` and the
  /// poison-filled outputs from files and writes the outputs back.
  BackendRun run(const MlirKernel &kernel, const std::vector<std::string> &elements,
                 const std::vector<TensorData> &inputs, const std::vector<TensorType> &outputTypes,
                 uint32_t poison) const;

  /// Runs `elements` in one mlir-opt invocation; the result's `mlir` is the
  /// output IR.
  BackendRun transform(const std::string &text, const std::vector<std::string> &elements) const;

  /// The stepwise verifier oracle out of process: each element runs alone
  /// with verification off, then its output is parsed and verified by a
  /// second invocation, which tells a pass failure from invalid IR.
  BackendRun verifyPipeline(const std::string &text,
                            const std::vector<std::string> &elements) const;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_MLIRTOOLS_H
