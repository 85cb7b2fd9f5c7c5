#!/bin/sh
# pytorch_adapter.sh CASE_DIR: runs the emitted PyTorch program. Set
# NPUFUZZ_TORCH_COMPILE to a torch.compile backend (e.g. inductor, or the one
# an NPU stack registers) to compile kernel() instead of running it eagerly.
set -eu
if [ ! -f "$1/program.py" ]; then
  echo "no program.py: the PyTorch emitter refused the case" >&2
  exit 77
fi
# Debian's python3 has python3-torch; a python3 earlier on PATH may not.
exec "${PYTHON:-${NPUFUZZ_PYTHON:-/usr/bin/python3}}" "$1/program.py" "$1"
