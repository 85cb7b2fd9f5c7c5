#!/usr/bin/env bash
#===- bench/compiler_coverage_overhead.sh - What measuring the compiler costs ===#
#
# The same seeds through one backend with the compiler's coverage off and
# on (--compiler-coverage, docs/compiler-coverage.md), alternating, ROUNDS
# times, in one run on one core (--jobs 1). Inductor's caches go to a fresh
# directory for every campaign, so that no campaign is handed what an
# earlier one compiled. It prints each campaign's time and the median ratio
# on/off. Measuring costs twice: once per adapter process, which
# instruments the compiler's modules as it imports them, and per case. The
# first is measured apart (the compiler imported in a fresh Python with and
# without the instrumentation, ROUNDS times) and taken out of the second.
#
# Usage: bench/compiler_coverage_overhead.sh [BACKEND (inductor)] [CASES (30)]
#        [SEED_START (4510000)] [ROUNDS (2)]
# pytorchsim needs NPUFUZZ_PYTORCHSIM and NPUFUZZ_PYTORCHSIM_PYTHON, with
# coverage.py installed in that Python (docs/compiler-coverage.md).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${1:-inductor}
CASES=${2:-30}
START=${3:-4510000}
ROUNDS=${4:-2}
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

seconds() { # the campaign's time, from its summary
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$1/summary.json"
}
ratios=()
times=()
for round in $(seq "$ROUNDS"); do
  for mode in off on; do
    dir=$OUT/$mode-$round
    TORCHINDUCTOR_CACHE_DIR=$OUT/cache-$mode-$round "$NPUFUZZ" fuzz -o "$dir" --backend "$BACKEND" \
      --max-cases "$CASES" --seed-start "$START" --jobs 1 --no-reduce --quiet \
      --compiler-coverage "$mode" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
    eval "t_$mode=$(seconds "$dir")"
    times+=("$(seconds "$dir")")
    echo "round $round, coverage $mode: $CASES cases in $(eval echo "\$t_$mode") s"
  done
  grep -h "compiler coverage" "$OUT/on-$round.log"
  ratios+=("$(python3 -c "print($t_on / $t_off)")")
done
# The adapter's start: the compiler's package imported, measured or not.
case $BACKEND in
inductor) module=torch._inductor.compile_fx package='("torch/_inductor", compiler_coverage.package_directory("torch", "_inductor"))' ;;
tvm) module=tvm.relax package='("tvm", compiler_coverage.package_directory("tvm"))' ;;
*) module="" ;;
esac
starts=()
if [ -n "$module" ]; then
  PYTHON=${NPUFUZZ_PYTHON:-$(bash ci/install-torch.sh)}
  for round in $(seq "$ROUNDS"); do
    for mode in off on; do
      starts+=("$(NPUFUZZ_COMPILER_COVERAGE=$mode "$PYTHON" -c "
import sys, time
sys.path.insert(0, 'tools/adapters')
import compiler_coverage
t = time.time()
compiler_coverage.CompilerCoverage([$package])
import $module
print(time.time() - t)")")
    done
  done
fi
python3 - "$CASES" "${#ratios[@]}" "${ratios[@]}" "${times[@]}" "${starts[@]}" <<'PY'
import statistics, sys
cases, n = int(sys.argv[1]), int(sys.argv[2])
r = [float(x) for x in sys.argv[3:3 + n]]
t = [float(x) for x in sys.argv[3 + n:3 + 3 * n]]
s = [float(x) for x in sys.argv[3 + 3 * n:]]
print("campaign on/off per round: %s; median %.3f (%+.1f %%)" % (
    ", ".join("%.3f" % x for x in r), statistics.median(r), 100 * (statistics.median(r) - 1)))
if s:
    start = statistics.median([s[i + 1] - s[i] for i in range(0, len(s), 2)])
    print("an adapter's start: %.1f s more with the instrumentation (median of %d; imports "
          "%s)" % (start, len(s) // 2, ", ".join("%.1f" % x for x in s)))
    per_case = [(t[i + 1] - t[i] - start) / cases / (t[i] / cases) for i in range(0, len(t), 2)]
    print("per case, the start taken out: %s; median %+.1f %%" % (
        ", ".join("%+.1f %%" % (100 * x) for x in per_case), 100 * statistics.median(per_case)))
PY
