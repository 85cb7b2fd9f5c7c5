//===- backend/external/CaseDirMlirTools.h - The mlir-tools adapter -*- C++ -*-===//
//
// The other side of the external protocol for upstream MLIR: reads a case
// directory (manifest.json, kernel.mlir, inK.npy), runs kernel.mlir through
// mlir-opt and mlir-runner exactly as MlirTool::run does, and writes outK.npy.
// `npufuzz external-mlir DIR` calls it, so that CI can drive the protocol end
// to end with real binaries (tools/adapters/mlir_tools_adapter.sh).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EXTERNAL_CASEDIRMLIRTOOLS_H
#define NPUFUZZ_BACKEND_EXTERNAL_CASEDIRMLIRTOOLS_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirTools.h"

#include <string>

namespace npufuzz {

/// Runs the case directory `dir`. The result's status says how it failed;
/// on success the outputs have been written to `dir`.
BackendRun runCaseDirectoryWithMlirTools(const std::string &dir, const MlirTool &tool);

/// The exit code the adapter reports for `run` (docs/external-backends.md):
/// 0 ok, 77 unsupported, 78 compile errors, 79 simulator faults, 1 otherwise.
int adapterExitCode(const BackendRun &run);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EXTERNAL_CASEDIRMLIRTOOLS_H
