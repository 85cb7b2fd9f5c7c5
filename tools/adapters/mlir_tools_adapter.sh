#!/bin/sh
# mlir_tools_adapter.sh CASE_DIR: the external-backend protocol on upstream
# MLIR. Runs CASE_DIR/kernel.mlir with the manifest's pipeline through
# mlir-opt + mlir-runner and writes CASE_DIR/outK.npy; exit codes follow
# docs/external-backends.md (77 unsupported, 78 compile error).
# NPUFUZZ, MLIR_OPT and MLIR_RUNNER override the binaries.
set -eu
exec "${NPUFUZZ:-npufuzz}" external-mlir "$1" \
  --opt "${MLIR_OPT:-mlir-opt-22}" --runner "${MLIR_RUNNER:-mlir-runner-22}"
