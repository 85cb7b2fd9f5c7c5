#!/usr/bin/env bash
#===- bench/nnsmith_beside.sh - npufuzz and NNSmith on the same Inductor ---===#
#
# NNSmith (ise-uiuc/nnsmith, its `pt2` backend: torch.compile with Inductor
# on the CPU) and npufuzz (--backend inductor) on torch 2.15's Inductor,
# one after the other, for the same wall time, each on one core (npufuzz
# --jobs 1; NNSmith is one process), with Inductor's caches in a fresh
# directory for each and compiles on one thread. Both are measured by the
# same tool over the same package: SlipCover with branches over
# torch/_inductor (tools/adapters/compiler_coverage.py; NNSmith runs under
# bench/measure_compiler.py). It prints, for each: lines and branches of
# torch/_inductor reached, those only it reached, cases run, and what each
# reported as a bug (triaged by hand: docs/benchmarks.md).
#
#   bash bench/nnsmith_beside.sh [SECONDS (240)] [SEED (4600000)]
#
# NNSMITH_PYTHON: a Python with NNSmith installed beside the project and
# torch 2.15 importable (docs/benchmarks.md#beside-nnsmith says how); npufuzz
# uses the torch that ci/install-torch.sh installs. Run NNSmith once before
# (its first run tests every op's dtypes and caches the result).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-240}
SEED=${2:-4600000}
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
: "${NNSMITH_PYTHON:?set NNSMITH_PYTHON to the Python NNSmith is installed in}"
"$NNSMITH_PYTHON" -c "import nnsmith, torch, slipcover" 2>/dev/null || {
  echo "nnsmith_beside: $NNSMITH_PYTHON cannot import nnsmith, torch and slipcover" >&2
  exit 2
}
OUT=${NPUFUZZ_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 TORCHINDUCTOR_COMPILE_THREADS=1

start=$(date +%s.%N)
TORCHINDUCTOR_CACHE_DIR=$OUT/cache-npufuzz "$NPUFUZZ" fuzz -o "$OUT/npufuzz" --backend inductor \
  --max-time "$SECONDS_EACH" --seed-start "$SEED" --jobs 1 --no-reduce \
  --known ci/known-signatures.txt >"$OUT/npufuzz.log" 2>&1 || [ $? -eq 1 ]
npufuzz_wall=$(python3 -c "import time; print(round(time.time() - $start, 1))")

start=$(date +%s.%N)
TORCHINDUCTOR_CACHE_DIR=$OUT/cache-nnsmith "$NNSMITH_PYTHON" bench/measure_compiler.py \
  "$OUT/nnsmith-coverage.json" inductor -m nnsmith.cli.fuzz fuzz.time="$SECONDS_EACH" \
  fuzz.root="$OUT/nnsmith" fuzz.seed="$SEED" mgen.seed="$SEED" model.type=torch \
  backend.type=pt2 hydra.run.dir="$OUT/nnsmith-hydra" >"$OUT/nnsmith.log" 2>&1
nnsmith_wall=$(python3 -c "import time; print(round(time.time() - $start, 1))")

python3 - "$OUT" "$npufuzz_wall" "$nnsmith_wall" <<'PY'
import json, os, re, sys
out, walls = sys.argv[1], {"npufuzz": sys.argv[2], "NNSmith": sys.argv[3]}

def sets(path):
    d = json.load(open(path))
    lines = {(f, l) for f, v in d["files"].items() for l in v.get("lines", [])}
    branches = {(f, tuple(b)) for f, v in d["files"].items() for b in v.get("branches", [])}
    return lines, branches

n_lines, n_branches = sets(os.path.join(out, "npufuzz", "compiler-coverage.json"))
s_lines, s_branches = sets(os.path.join(out, "nnsmith-coverage.json"))
summary = json.load(open(os.path.join(out, "npufuzz", "summary.json")))
findings = sorted(os.listdir(os.path.join(out, "npufuzz", "findings")))
log = open(os.path.join(out, "nnsmith.log"), errors="replace").read()
cases = re.findall(r"Total (\d+) testcases generated", log)
bugs = re.findall(r"Total (\d+) bugs found", log)
rows = [("npufuzz", len(n_lines), len(n_lines - s_lines), len(n_branches),
         len(n_branches - s_branches), summary["cases"],
         "%d signatures (%s new against the known list)" % (
             len(findings), summary.get("new_against_known_list", "?"))),
        ("NNSmith", len(s_lines), len(s_lines - n_lines), len(s_branches),
         len(s_branches - n_branches), cases[-1] if cases else "?",
         "%s bug reports" % (bugs[-1] if bugs else "?"))]
print("| tool | wall s | lines of torch/_inductor | only it | branches | only it | cases | reported |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    print("| %s | %s | %d | %d | %d | %d | %s | %s |" % (r[0], walls[r[0]], *r[1:]))
print("lines npufuzz/NNSmith: %.2f; branches: %.2f" % (
    len(n_lines) / max(1, len(s_lines)), len(n_branches) / max(1, len(s_branches))))
print("outputs kept in %s" % out)
PY
