#!/usr/bin/env bash
#===- ci/install-iree.sh - IREE's compiler and runtime from PyPI -----------===#
#
# --backend iree compiles with the user's iree-compile and runs with IREE's
# runtime; this installs the release npufuzz is tested with, pinned, from
# PyPI into a virtual environment outside the clone, and prints its python on
# the last line (iree-compile sits beside it):
#
#   export NPUFUZZ_IREE_PYTHON=$(bash ci/install-iree.sh)
#
# IREE 3.13.0: the newest release when the backend was written; its compiler
# bundles its own MLIR, so what it accepts is its own dialects' and not
# Debian's MLIR 22's. The environment is small (docs/toolchains.md#iree) and
# is kept in the cache and reused, so a second run takes a second.
#
# Environment: NPUFUZZ_CACHE (default ~/.cache/npufuzz), NPUFUZZ_BASE_PYTHON
# (the interpreter the environment is made from; default python3 on PATH).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

IREE=3.13.0
NUMPY=2.2.6
CACHE=${NPUFUZZ_CACHE:-$HOME/.cache/npufuzz}
. "$(dirname "$0")/python-env.sh"

python_env "IREE $IREE" "$CACHE/iree-$IREE" \
  '"$PYTHON" -c "import numpy, iree.runtime, iree.compiler" 2>/dev/null &&
   "$(dirname "$PYTHON")/iree-compile" --version 2>/dev/null | grep -q "$IREE"' \
  "iree-base-compiler==$IREE" "iree-base-runtime==$IREE" "numpy==$NUMPY"
