#!/usr/bin/env bash
#===- ci/quickstart.sh - Set up and run the main job -----------------------===#
#
# README's first command: installs what is missing, builds npufuzz, and runs
# the main job. Extra arguments go to that job.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
cmake --build build --target npufuzz
# A short campaign in this process: 1000 seeds through the MLIR backend at
# O0, each compared with the reference.
exec build/bin/npufuzz sweep --count 1000 --backend "$@"
