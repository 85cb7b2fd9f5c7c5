#!/usr/bin/env bash
#===- bench/chain_bugs.sh - How fast npu chains show each planted bug ----===#
#
# For each bug a test pass plants in the npu style's chains
# (npufuzz-test-drop-flush: seed 004's missing tail flush, a stale-read;
# npufuzz-test-pack-shares: per-block outputs packed into shared lines, a
# lost-write; npufuzz-test-drop-fence: the dsb after the flush dropped, a
# stale-read no test or development run saw; npufuzz-test-tile-past-spad:
# every tile moved past the scratchpad's end, seed 004's UB layout bug, an
# out-of-bounds read or write), one campaign of CASES cases from SEED: how many cases show
# the bug's verdict, the lowest seed that does, and how many signatures it
# gives; and how many tasks its reduced repro keeps.
#
#   bash bench/chain_bugs.sh [NPUFUZZ] [CASES] [SEED] [JOBS]
#
# Defaults: build/bin/npufuzz, 500 cases, seed 1200000 (a range held out
# from development: the tests and ci/test.sh use 500000 and below), 2 jobs.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
NPUFUZZ=${1:-build/bin/npufuzz} CASES=${2:-500} SEED=${3:-1200000} JOBS=${4:-2}
if [ ! -x "$NPUFUZZ" ]; then
  echo "chain_bugs: $NPUFUZZ is not an executable" >&2
  exit 2
fi
PLUGIN=$(dirname "$NPUFUZZ")/../lib/libnpufuzz_test_plugin.so
if [ ! -f "$PLUGIN" ]; then
  echo "chain_bugs: no test plugin at $PLUGIN (build npufuzz_test_plugin)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-14s %-13s %8s %11s %11s %6s\n' bug verdict cases "first seed" signatures tasks
for row in "drop-flush stale-read" "pack-shares lost-write" "drop-fence stale-read" \
  "tile-past-spad out-of-bounds"; do
  read -r pass verdict <<<"$row"
  dir="$work/$pass"
  "$NPUFUZZ" fuzz -o "$dir" --style npu --max-cases "$CASES" --seed-start "$SEED" --jobs "$JOBS" \
    --load-pass-plugin "$PLUGIN" --pipeline "func.func(npufuzz-test-$pass),canonicalize,cse" \
    --quiet >/dev/null 2>&1 || [ $? = 1 ]
  python3 - "$dir" "$pass" "$verdict" <<'PY'
import glob, json, os, sys
d, name, verdict = sys.argv[1:4]
s = json.load(open(os.path.join(d, "summary.json")))
# A verdict, or the verdicts it starts (out-of-bounds: -read and -write).
shown = sum(n for v, n in s["verdicts"].items() if v == verdict or v.startswith(verdict + "-"))
# Findings by their verdict, not their name: a memory error a pass made is
# filed under the pass's root (`mismatch | PASS | bad access`).
def verdict_of(f):
    return json.load(open(os.path.join(d, "findings", f, "report.json"))).get("verdict", "")
sigs = [f for f in os.listdir(os.path.join(d, "findings"))
        if verdict_of(f) == verdict or verdict_of(f).startswith(verdict + "-")]
first, tasks = None, []
for f in sigs:
    # The lowest seed of every case filed under it (seeds.txt: SEED [mutant]).
    for line in open(os.path.join(d, "findings", f, "seeds.txt")):
        if line.split() and line.split()[0].isdigit():
            seed = int(line.split()[0])
            first = seed if first is None else min(first, seed)
    for c in glob.glob(os.path.join(d, "findings", f, "reduced", "case.npf")):
        tasks.append(sum(1 for l in open(c) if l.startswith("task ")))
print(f"{name:<14} {verdict:<13} {shown:>8} {str(first):>11} {len(sigs):>11} {max(tasks) if tasks else '-':>6}")
PY
done
