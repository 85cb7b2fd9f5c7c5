#!/usr/bin/env bash
#===- bench/verify_pipeline_length.sh - verify-pipeline against its length -===#
#
# `npufuzz verify-pipeline` on a 4-element affine.for with N x `cse`, for
# N = 500, 1,000, 3,000 and 10,000 (or the Ns given), each build given, in
# one run: the time should grow linearly with N, and a pass that leaves
# the IR as it was costs no execution.
#
# Usage: bench/verify_pipeline_length.sh [NPUFUZZ...] [-- N...]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#builds[@]} -gt 0 ] || builds=(build/bin/npufuzz)
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(500 1000 3000 10000)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cat >"$OUT/k.mlir" <<'MLIR'
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %x = affine.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %b[%i] : memref<4xf32>
  }
  return
}
MLIR
for n in "${ns[@]}"; do
  pipeline=$(printf 'cse%.0s,' $(seq "$n"))
  for b in "${builds[@]}"; do
    t0=$(date +%s.%N)
    "$b" verify-pipeline "$OUT/k.mlir" --pipeline "${pipeline%,}" >/dev/null
    t1=$(date +%s.%N)
    awk -v n="$n" -v b="$b" -v a="$t0" -v c="$t1" 'BEGIN { printf "%6d passes  %7.2f s  %s\n", n, c - a, b }'
  done
done
