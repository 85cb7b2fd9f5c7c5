#!/usr/bin/env bash
#===- bench/pto_race_oracle.sh - What the PTO race oracle costs a campaign --===#
#
# Cases per second of the same pto campaign with the kernel trace (the
# default: the race oracle and, for chains, the cache-coherency oracle read
# it) and without it (--pto-no-race-oracle), alternated in one run so that
# load falls on both alike, and the ratio on / off.
#
#   bash bench/pto_race_oracle.sh [NPUFUZZ] [CASES] [ROUNDS] [JOBS]
#
# Each round runs `fuzz --backend pto --max-cases CASES --jobs JOBS
# --no-reduce` from seed 0 both ways (the order alternates between
# rounds); the rate is CASES over the summed wall time. The toolchain is the one
# that `npufuzz fuzz --backend pto` discovers (docs/toolchains.md).
# Defaults: build/bin/npufuzz, 150 cases, 2 rounds, 2 jobs.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
NPUFUZZ=${1:-build/bin/npufuzz} CASES=${2:-150} ROUNDS=${3:-2} JOBS=${4:-2}
if [ ! -x "$NPUFUZZ" ]; then
  echo "pto_race_oracle: $NPUFUZZ is not an executable" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A seconds=([on]=0 [off]=0) findings=()
run() { # run MODE ROUND
  local mode=$1 dir="$work/$1-$2" flags=()
  [ "$mode" = off ] && flags=(--pto-no-race-oracle)
  local t0 t1
  t0=$(date +%s.%N)
  "$NPUFUZZ" fuzz -o "$dir" --backend pto --max-cases "$CASES" --jobs "$JOBS" --no-reduce \
    --quiet "${flags[@]}" >"$dir.log" 2>&1 || [ $? -eq 1 ] # 1: findings
  t1=$(date +%s.%N)
  seconds[$mode]=$(awk -v a="${seconds[$mode]}" -v b="$t0" -v c="$t1" 'BEGIN { print a + c - b }')
  findings[$mode]=$(grep -E '^verdicts:' "$dir.log" || true)
}
for ((r = 0; r < ROUNDS; r++)); do
  if ((r % 2 == 0)); then run on "$r"; run off "$r"; else run off "$r"; run on "$r"; fi
done
for mode in on off; do
  rate=$(awk -v n=$((CASES * ROUNDS)) -v s="${seconds[$mode]}" 'BEGIN { printf "%.2f", n / s }')
  printf 'race oracle %-3s %6s cases/s  (%s)\n' "$mode" "$rate" "${findings[$mode]}"
done
awk -v on="${seconds[on]}" -v off="${seconds[off]}" 'BEGIN { printf "on / off: %.3f\n", off / on }'
