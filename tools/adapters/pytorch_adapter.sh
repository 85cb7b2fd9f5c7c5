#!/bin/sh
# pytorch_adapter.sh CASE_DIR: runs the emitted PyTorch program. Set
# NPUFUZZ_TORCH_COMPILE to a torch.compile backend (e.g. inductor, or the one
# an NPU stack registers) to compile kernel() instead of running it eagerly.
set -eu
if [ ! -f "$1/program.py" ]; then
  echo "no program.py: the PyTorch emitter refused the case" >&2
  exit 77
fi
exec "${PYTHON:-python3}" "$1/program.py" "$1"
