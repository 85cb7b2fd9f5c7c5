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
# Each run adds 1000 cases to the campaign in out/quickstart (--max-cases is
# a campaign's total, earlier runs' cases included), unless the arguments
# give --max-cases themselves.
args=("$@")
if ! printf '%s\n' "$@" | grep -q -- '^-\{1,2\}max-cases'; then
  total=0
  if [ -f out/quickstart/state.json ]; then
    total=$(sed -n 's/.*"total_cases": *\([0-9]*\).*/\1/p' out/quickstart/state.json | head -n 1)
  fi
  args+=(--max-cases "$((${total:-0} + 1000))")
fi
exec build/bin/npufuzz fuzz -o out/quickstart "${args[@]}"
