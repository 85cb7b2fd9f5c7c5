#!/usr/bin/env bash
#===- ci/nightly.sh - The nightly fuzzing run -------------------------------===#
#
# A time-boxed campaign per (style, pipeline), new findings reduced, the
# regression corpus replayed, and a report (report.json, junit.xml,
# index.html) in $OUT/report. Exits non-zero only on new signatures (or on a
# regression whose verdict changed); known signatures are listed in
# ci/known-signatures.txt.
#
#   NPUFUZZ_NIGHTLY_SECONDS   total campaign budget (default 1800)
#   NPUFUZZ_SHARD             I/N to take every N-th seed (default 0/1)
#   OUT                       output directory (default out/nightly)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/nightly}
BUDGET=${NPUFUZZ_NIGHTLY_SECONDS:-1800}
SHARD=${NPUFUZZ_SHARD:-0/1}
NPUFUZZ=build/bin/npufuzz

bash ci/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
# The regression corpus replays planted faults from the test plugin.
cmake --build build --target npufuzz npufuzz_rt npufuzz_test_plugin

CONFIGS=("affine O0" "affine O2" "affine random:1" "tensor O0" "tensor O2" "npu O0" "npu O2")
PER=$((BUDGET / ${#CONFIGS[@]}))
DIRS=()
for config in "${CONFIGS[@]}"; do
  read -r style pipeline <<<"$config"
  dir="$OUT/campaigns/$style-${pipeline//:/-}"
  DIRS+=("$dir")
  "$NPUFUZZ" fuzz -o "$dir" --style "$style" --pipeline "$pipeline" --max-time "$PER" \
    --known ci/known-signatures.txt \
    --shard "$SHARD" --quiet
done

# Reduce the first case of every signature the known list does not have.
if "$NPUFUZZ" --help | grep -q " reduce "; then
  for dir in "${DIRS[@]}"; do
    for finding in "$dir"/findings/*/; do
      [ -d "$finding" ] || continue
      id=$(basename "$finding")
      grep -q "^$id\b" ci/known-signatures.txt 2>/dev/null && continue
      [ -d "$finding/reduced" ] && continue
      pipeline=$(sed -n 's/.*"pipeline": "\(.*\)",/\1/p' "$finding/report.json")
      style=$(sed -n 's/.*"style": "\(.*\)",/\1/p' "$finding/report.json")
      # The lowering seed the case failed with (null: the canonical lowering).
      lowering=$(sed -n 's/.*"lowering_seed": \([0-9][0-9]*\),/--lowering-seed \1/p' \
        "$finding/report.json")
      # shellcheck disable=SC2086 # $lowering is empty or two words
      "$NPUFUZZ" reduce "$finding/case.npf" -o "$finding/reduced" --pipeline "$pipeline" \
        --style "$style" $lowering --max-time 120 || true
    done
  done
fi

status=0
if "$NPUFUZZ" --help | grep -q " replay "; then
  "$NPUFUZZ" replay corpus/regressions \
    --load-pass-plugin build/lib/libnpufuzz_test_plugin.so || status=1
fi
"$NPUFUZZ" report "${DIRS[@]}" -o "$OUT/report" --known ci/known-signatures.txt || status=1
exit $status
