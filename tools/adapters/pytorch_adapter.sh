#!/bin/sh
# pytorch_adapter.sh CASE_DIR: runs the emitted PyTorch program. Set
# NPUFUZZ_TORCH_COMPILE to a torch.compile backend (e.g. inductor, or the one
# an NPU stack registers) to compile kernel() instead of running it eagerly.
set -eu
if [ ! -f "$1/program.py" ]; then
  echo "no program.py: the PyTorch emitter refused the case" >&2
  exit 77
fi
# The python of ci/install-torch.sh unless one is given (docs/toolchains.md#torch).
exec "${PYTHON:-${NPUFUZZ_PYTHON:-${NPUFUZZ_CACHE:-$HOME/.cache/npufuzz}/torch-2.8.0/bin/python}}" \
  "$1/program.py" "$1"
