#!/usr/bin/env bash
#===- bench/emitted_vocabulary.sh - Op shares of the emitted modules -------===#
#
# For seeds S..S+N-1 (default 0..99) and each MLIR style, the module npufuzz
# emits for the case with the lowering seed its campaign draws (`npufuzz
# --seed N` names it), and in what share of the modules each MLIR op
# appears; the memref reshape family (expand_shape or collapse_shape) gets
# its own line. Figures in docs/ir-coverage.md.
#
# Usage: bench/emitted_vocabulary.sh [NPUFUZZ] [N] [S]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
NPUFUZZ=${1:-build/bin/npufuzz}
N=${2:-100}
START=${3:-0}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
modules=0
for ((s = START; s < START + N; ++s)); do
  "$NPUFUZZ" gen --seed "$s" >"$OUT/case.npf"
  k=$("$NPUFUZZ" --seed "$s" -o "$OUT/repro" | sed -n 's/.*(--lowering-seed \([0-9]*\)).*/\1/p')
  [ -n "$k" ] || { echo "npufuzz --seed $s named no lowering seed" >&2; exit 2; }
  for style in affine tensor npu; do
    # A case a style does not support emits nothing; it is still a module
    # the campaign tried, so it counts with no ops.
    "$NPUFUZZ" run "$OUT/case.npf" --style "$style" --lowering-seed "$k" --emit-mlir \
      2>/dev/null | grep -oE '\b(arith|math|memref|vector|scf|affine|linalg|tensor|bufferization)\.[a-z_]+\b' |
      sort -u >"$OUT/ops-$s-$style" || true
    modules=$((modules + 1))
  done
done
echo "$modules modules (seeds $START-$((START + N - 1)) x affine, tensor, npu)"
cat "$OUT"/ops-* | sort | uniq -c | sort -k1,1nr -k2 |
  awk -v m="$modules" '{ printf "%-40s %5.1f %%\n", $2, 100 * $1 / m }'
reshape=$(for f in "$OUT"/ops-*; do
  if grep -qE '^memref\.(expand|collapse)_shape$' "$f"; then echo x; fi
done | wc -l)
awk -v r="$reshape" -v m="$modules" \
  'BEGIN { printf "memref.expand_shape or memref.collapse_shape: %d of %d modules, %.1f %%\n", r, m, 100 * r / m }'
