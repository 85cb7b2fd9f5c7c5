#!/usr/bin/env bash
#===- bench/simpler_cost.sh - What a case costs on simpler against the pto harness -===#
#
# The same pto-policy cases through --backend pto (npufuzz's harness on
# pto-isa's simulator) and --backend simpler (each task a kernel of the
# user's simpler runtime on a2a3sim), one after the other in one run, so
# that load falls on both alike: cases per second each, the ratio, and
# whether both filed the same signatures.
#
#   bash bench/simpler_cost.sh [NPUFUZZ] [CASES] [SEED] [JOBS]
#
# Both toolchains are the ones `npufuzz fuzz` discovers (docs/toolchains.md).
# Defaults: build/bin/npufuzz, 20 cases, seed 48000000, 2 jobs.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
NPUFUZZ=${1:-build/bin/npufuzz} CASES=${2:-20} SEED=${3:-48000000} JOBS=${4:-2}
if [ ! -x "$NPUFUZZ" ]; then
  echo "simpler_cost: $NPUFUZZ is not an executable" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A seconds=() signatures=()
for backend in pto simpler; do
  t0=$(date +%s.%N)
  "$NPUFUZZ" fuzz -o "$work/$backend" --backend "$backend" --max-cases "$CASES" \
    --seed-start "$SEED" --jobs "$JOBS" --no-reduce --quiet >"$work/$backend.log" 2>&1 ||
    [ $? -eq 1 ] || { cat "$work/$backend.log" >&2; exit 2; } # 1: findings
  t1=$(date +%s.%N)
  seconds[$backend]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
  signatures[$backend]=$(ls "$work/$backend/findings" 2>/dev/null | sort | tr '\n' ' ')
  rate=$(awk -v n="$CASES" -v s="${seconds[$backend]}" 'BEGIN { printf "%.3f", n / s }')
  printf '%-8s %8s cases/s  %s\n' "$backend" "$rate" "$(grep -E '^verdicts:' "$work/$backend.log" || true)"
done
awk -v p="${seconds[pto]}" -v s="${seconds[simpler]}" 'BEGIN { printf "simpler / pto time: %.1f\n", s / p }'
if [ "${signatures[pto]}" = "${signatures[simpler]}" ]; then
  echo "the same signatures: ${signatures[pto]:-none}"
else
  echo "pto:     ${signatures[pto]:-none}"
  echo "simpler: ${signatures[simpler]:-none}"
fi
