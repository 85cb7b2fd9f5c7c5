#!/usr/bin/env bash
#===- bench/coverage_blind_guided.sh - The compiler's coverage, blind and guided ===#
#
# One blind campaign (--guidance none) and one guided by feedback that
# includes the compiler's own lines and branches (--guidance feedback;
# docs/compiler-coverage.md#guidance-by-it), on the same backend, seeds
# and machine, side by side (JOBS workers each), each with a fresh
# Inductor cache. It
# prints each one's lines and branches of the compiler after a quarter,
# half, three quarters and all of CASES cases, and after the same
# fractions of the blind campaign's time, and how many cases the guided
# one needed to reach what blind reached in CASES (the issue's target: at
# most half).
#
#   bash bench/coverage_blind_guided.sh [BACKEND (inductor)] [CASES (768)] [SEED (4700000)] [JOBS (1)] [EPOCH (128)]
#
# EPOCH: the guided campaign's --guidance-epoch; its first mutants come at
# case 2 * EPOCH, before which both campaigns run the same cases.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${1:-inductor}
CASES=${2:-768}
SEED=${3:-4700000}
JOBS=${4:-1}
EPOCH=${5:-128}
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
OUT=${NPUFUZZ_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
for g in none feedback; do
  extra=()
  [ "$g" = feedback ] && extra=(--guidance-epoch "$EPOCH")
  (TORCHINDUCTOR_CACHE_DIR=$OUT/cache-$g "$NPUFUZZ" fuzz -o "$OUT/$g" --backend "$BACKEND" \
    --guidance "$g" "${extra[@]}" --max-cases "$CASES" --seed-start "$SEED" --jobs "$JOBS" --no-reduce \
    --quiet >"$OUT/$g.log" 2>&1 || [ $? -eq 1 ]) &
done
wait
grep -h "compiler coverage\|guidance:" "$OUT/none.log" "$OUT/feedback.log"
python3 - "$OUT" "$CASES" <<'PY'
import json, os, sys
out, cases = sys.argv[1], int(sys.argv[2])
growth = {g: json.load(open(os.path.join(out, g, "compiler-coverage.json")))["growth"]
          for g in ("none", "feedback")}

def at(g, column, limit):
    """The last growth point of `g` whose cases (column 0) or seconds (1)
    are at most `limit`."""
    return ([[0, 0, 0, 0]] + [p for p in growth[g] if p[column] <= limit])[-1]

def at_cases(g, n):
    return at(g, 0, n)

def at_seconds(g, t):
    return at(g, 1, t)

blind_time = growth["none"][-1][1]
print("| after | blind lines / branches | guided lines / branches |")
print("| --- | --- | --- |")
for f in (0.25, 0.5, 0.75, 1.0):
    n = int(cases * f)
    b, g = at_cases("none", n), at_cases("feedback", n)
    print("| %d cases | %d / %d | %d / %d |" % (n, b[2], b[3], g[2], g[3]))
for f in (0.25, 0.5, 0.75, 1.0):
    t = blind_time * f
    b, g = at_seconds("none", t), at_seconds("feedback", t)
    print("| %.0f s | %d / %d | %d / %d |" % (t, b[2], b[3], g[2], g[3]))
target = at_cases("none", cases)
reached = [p[0] for p in growth["feedback"] if p[2] >= target[2]]
print("guided reached blind's %d lines after %s cases (blind: %d)" % (
    target[2], reached[0] if reached else "more than %d" % growth["feedback"][-1][0], cases))
reached = [p[0] for p in growth["feedback"] if p[3] >= target[3]]
print("guided reached blind's %d branches after %s cases" % (
    target[3], reached[0] if reached else "more than %d" % growth["feedback"][-1][0]))
print("outputs kept in %s" % out)
PY
