#!/usr/bin/env bash
#===- bench/time_to_bug.sh - Cases and CPU-seconds to each fault's first finding -===#
#
# The time-to-bug benchmark, as Magma and FuzzBench measure fuzzers: for
# each planted fault, RUNS independent campaigns per generator (guided by
# feedback, and blind: --guidance none), each stopped at its first finding
# or at its budget; the table gives, per fault and generator, how many runs
# found it within the budget, and the median cases and CPU-seconds (user +
# system of the campaign and its workers) to the first finding, a run that
# did not find it counting as its whole budget. Both generators run in one
# invocation, alternating, so that a ratio never compares two machines'
# states.
#
#   bash bench/time_to_bug.sh [NPUFUZZ] [RUNS] [SECONDS] [SEED] [FAULTS...]
#
# Faults: the conjunction faults of bench/bugs/ConjunctionFaults.cpp
# (npufuzz-cf-*: a rewrite that fires only on 2 to 4 features at once, the
# ones guidance was developed on; npufuzz-cfx-*: written after it was
# frozen, only measured) and, as a control, easy faults of the seed classes
# (npufuzz-bug-*). Defaults: build/bin/npufuzz, 5 runs, 20 s, seed 20000000
# (run k starts at SEED + k * 1000000; development used 7000000 to
# 9999999), every fault below.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
NPUFUZZ=${1:-build/bin/npufuzz} RUNS=${2:-5} BUDGET=${3:-20} SEED=${4:-20000000}
shift $(($# < 4 ? $# : 4))
FAULTS=("$@")
if [ ${#FAULTS[@]} -eq 0 ]; then
  FAULTS=(cf-cmpi-i8-deep cf-maximumf-f16-while cf-mulf-bf16-unrolled cf-select-i32-cmpf
    cf-reduction-f16 cf-contract-i8 cf-mask-i32-write cf-collapse-f16-rank4 cf-floordiv-i64
    cf-gather-while cfx-andi-i1-cmpf cfx-remsi-i64-tiled cfx-exp-bf16-deep cfx-minsi-i32-while
    bug-loop-overrun bug-bf16-round-half-away)
fi
if [ ! -x "$NPUFUZZ" ]; then
  echo "time_to_bug: $NPUFUZZ is not an executable" >&2
  exit 2
fi
LIB=$(dirname "$NPUFUZZ")/../lib
for p in libnpufuzz_conjunction_faults.so libnpufuzz_planted_bugs.so; do
  if [ ! -f "$LIB/$p" ]; then
    echo "time_to_bug: no $LIB/$p (build the bench plugins)" >&2
    exit 2
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One campaign: prints "FOUND CASES CPU_SECONDS".
campaign() {
  local fault=$1 guidance=$2 seed=$3 dir=$work/$1-$2-$3 plugin
  case $fault in
  cf-* | cfx-*) plugin=$LIB/libnpufuzz_conjunction_faults.so ;;
  *) plugin=$LIB/libnpufuzz_planted_bugs.so ;;
  esac
  local TIMEFORMAT='%U %S' t status
  t=$({ time { "$NPUFUZZ" fuzz -o "$dir" --pipeline "func.func(npufuzz-$fault)" \
    --load-pass-plugin "$plugin" --guidance "$guidance" --seed-start "$seed" \
    --max-findings 1 --max-time "$BUDGET" --no-reduce --quiet --jobs 2 \
    >"$dir.out" 2>&1; echo $? >"$dir.status"; }; } 2>&1)
  status=$(cat "$dir.status")
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "time_to_bug: the campaign for $fault ($guidance, seed $seed) failed:" >&2
    tail -n 5 "$dir.out" >&2
    exit 2
  fi
  local cases found=0
  cases=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cases"])' "$dir/summary.json")
  [ "$status" -eq 1 ] && found=1
  echo "$found $cases $(echo "$t" | awk '{print $1 + $2}')"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "time_to_bug: $RUNS runs per fault and generator, ${BUDGET} s each, --jobs 2, seeds from $SEED"
printf '| %-28s | %-17s | %-17s | %-9s |\n' fault "guided: found, median cases / CPU-s" \
  "blind: found, median cases / CPU-s" "CPU ratio"
printf '| --- | --- | --- | --- |\n'
for fault in "${FAULTS[@]}"; do
  : >"$work/feedback" && : >"$work/none"
  for ((k = 0; k < RUNS; k++)); do
    seed=$((SEED + k * 1000000))
    for g in feedback none; do
      campaign "$fault" "$g" "$seed" >>"$work/$g"
    done
  done
  row=()
  for g in feedback none; do
    found=$(awk '{n += $1} END {print n + 0}' "$work/$g")
    cases=$(awk '{print $2}' "$work/$g" | median)
    cpu=$(awk '{print $3}' "$work/$g" | median)
    row+=("$found/$RUNS, $cases / $(printf '%.1f' "$cpu")")
    printf -v "cpu_$g" '%s' "$cpu"
  done
  ratio=$(awk -v a="$cpu_feedback" -v b="$cpu_none" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
  printf '| %-28s | %-17s | %-17s | %-9s |\n' "$fault" "${row[0]}" "${row[1]}" "$ratio"
done
