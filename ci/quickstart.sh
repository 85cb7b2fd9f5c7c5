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
cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
cmake --build build --target npufuzz
# A short campaign: 1000 seeds through the MLIR backend at O0 in isolated
# workers, each compared with the reference. Findings and the summary go to
# out/quickstart/.
exec build/bin/npufuzz fuzz -o out/quickstart --max-cases 1000 "$@"
