#!/usr/bin/env bash
#===- bench/inductor_overhead.sh - npufuzz's cost over bare torch.compile -===#
#
# The same emitted programs, on the same data, two ways in one run, one
# core, with Inductor's caches off in both (each program compiles afresh):
#   bare     one Python process that runs each program's kernel under
#            torch.compile(fullgraph=True, dynamic=False) and saves its
#            outputs, nothing else (bench/inductor_bare.py);
#   npufuzz  `fuzz --backend inductor --jobs 1 --metamorphic-share 0`: the
#            reference, the case directory, the persistent adapter, the
#            comparison, a campaign's bookkeeping.
# It prints both times and npufuzz's overhead over bare (target: at most
# 15%). The programs are collected first by an external one-shot command
# that keeps each case directory and answers "unsupported".
#
# Usage: bench/inductor_overhead.sh [CASES (40)] [SEED_START (960000)]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${1:-40}
START=${2:-960000}
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
PYTHON=${NPUFUZZ_PYTHON:-$(bash ci/install-torch.sh)}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export TORCHINDUCTOR_FORCE_DISABLE_CACHES=1
# inductor's default policy (generators/Policy.cpp), so that the programs
# collected by the external command are the ones --backend inductor runs.
POLICY=$OUT/inductor.policy
printf 'max_dim = 64\nmax_tensor_elements = 4096\nmax_case_elements = 16384\npattern_rate = 0.4\n' >"$POLICY"
common=(--quiet --no-reduce --jobs 1 --metamorphic-share 0 --max-cases "$CASES" --seed-start "$START"
  --policy "$POLICY")

mkdir -p "$OUT/cases"
"$NPUFUZZ" fuzz -o "$OUT/collect" "${common[@]}" --backend external \
  --cmd "sh bench/keep_case.sh {dir} $OUT/cases" >/dev/null

t0=$(date +%s.%N)
"$PYTHON" bench/inductor_bare.py "$OUT/cases"
t1=$(date +%s.%N)
"$NPUFUZZ" fuzz -o "$OUT/npufuzz" "${common[@]}" --backend inductor >/dev/null || [ $? = 1 ]
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$(ls "$OUT/cases" | wc -l)" 'BEGIN {
  printf "bare torch.compile: %.1f s for %d programs\n", b - a, n
  printf "npufuzz inductor:   %.1f s for the same cases\n", c - b
  printf "overhead: %.1f%%\n", 100 * ((c - b) / (b - a) - 1) }'
