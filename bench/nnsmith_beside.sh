#!/usr/bin/env bash
#===- bench/nnsmith_beside.sh - npufuzz and NNSmith on the same Inductor ---===#
#
# NNSmith (ise-uiuc/nnsmith, its `pt2` backend: torch.compile with Inductor
# on the CPU) and npufuzz (--backend inductor) on torch 2.15's Inductor,
# side by side: started together, for the same wall time, each on one core
# of its own (npufuzz --jobs 1; NNSmith is one process), with Inductor's
# caches in a fresh directory for each and compiles on one thread. Both are
# measured by the same tool over the same package: SlipCover with branches
# over torch/_inductor (tools/adapters/compiler_coverage.py; NNSmith runs
# under bench/measure_compiler.py), and so is a baseline, one op through
# torch.compile (bench/one_op_compile.py), which any compile reaches.
# It prints, for each: lines and branches of torch/_inductor reached, those
# beyond the baseline (what its cases exercise) and the ratio of the two
# tools' figures, those only it reached, cases run, what each reported as a
# bug (triaged by hand: docs/benchmarks.md), and the growth beyond the
# baseline every minute.
#
#   bash bench/nnsmith_beside.sh [SECONDS (240)] [SEED (4600000)] [GUIDANCE (none)]
#
# GUIDANCE: npufuzz's --guidance, none (blind) or feedback (guided by the
# IR forms, diagnostics and case features its cases reach, and by the
# compiler's own coverage).
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
GUIDANCE=${3:-none}
case $GUIDANCE in none | feedback) ;; *)
  echo "nnsmith_beside: GUIDANCE is none or feedback, not '$GUIDANCE'" >&2
  exit 2
  ;;
esac
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
: "${NNSMITH_PYTHON:?set NNSMITH_PYTHON to the Python NNSmith is installed in}"
"$NNSMITH_PYTHON" -c "import nnsmith, torch, slipcover" 2>/dev/null || {
  echo "nnsmith_beside: $NNSMITH_PYTHON cannot import nnsmith, torch and slipcover" >&2
  exit 2
}
OUT=${NPUFUZZ_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1 TORCHINDUCTOR_COMPILE_THREADS=1

# The baseline: one op through torch.compile, measured the same way.
[ -s "$OUT/one-op-coverage.json" ] ||
  PYTHONPATH=bench TORCHINDUCTOR_CACHE_DIR=$OUT/cache-one-op "$NNSMITH_PYTHON" \
    bench/measure_compiler.py "$OUT/one-op-coverage.json" inductor -m one_op_compile \
    >"$OUT/one-op.log" 2>&1

# Side by side: each starts now and has the same time.
(
  start=$(date +%s.%N)
  TORCHINDUCTOR_CACHE_DIR=$OUT/cache-npufuzz "$NPUFUZZ" fuzz -o "$OUT/npufuzz" --backend inductor \
    --max-time "$SECONDS_EACH" --seed-start "$SEED" --jobs 1 --no-reduce --guidance "$GUIDANCE" \
    --known ci/known-signatures.txt >"$OUT/npufuzz.log" 2>&1 || [ $? -eq 1 ]
  python3 -c "import time; print(round(time.time() - $start, 1))" >"$OUT/npufuzz.wall"
) &
NPUFUZZ_RUN=$!
(
  # NNSmith runs its cases in its own process: a crash of the compiled code
  # ends it. As a user would, it is started again (on the next seed) for
  # the time left; what each run reached is kept a minute at a time.
  start=$(date +%s.%N)
  deadline=$(($(date +%s) + SECONDS_EACH))
  run=0
  while left=$((deadline - $(date +%s))) && [ "$left" -gt 10 ]; do
    NPUFUZZ_GROWTH_SECONDS=60 NPUFUZZ_GROWTH_START=$start \
      TORCHINDUCTOR_CACHE_DIR=$OUT/cache-nnsmith "$NNSMITH_PYTHON" bench/measure_compiler.py \
      "$OUT/nnsmith-coverage.$run.json" inductor -m nnsmith.cli.fuzz fuzz.time="$left" \
      fuzz.root="$OUT/nnsmith.$run" fuzz.seed=$((SEED + run)) mgen.seed=$((SEED + run)) \
      model.type=torch backend.type=pt2 hydra.run.dir="$OUT/nnsmith-hydra.$run" \
      >>"$OUT/nnsmith.log" 2>&1 && break
    echo "NNSmith run $run ended with status $? after $(($(date +%s) - deadline + SECONDS_EACH)) s" \
      >>"$OUT/nnsmith.restarts"
    run=$((run + 1))
  done
  python3 -c "import time; print(round(time.time() - $start, 1))" >"$OUT/nnsmith.wall"
) &
NNSMITH_RUN=$!
wait "$NPUFUZZ_RUN" || { cat "$OUT/npufuzz.log" >&2; exit 2; }
wait "$NNSMITH_RUN"
npufuzz_wall=$(cat "$OUT/npufuzz.wall")
nnsmith_wall=$(cat "$OUT/nnsmith.wall")

python3 - "$OUT" "$npufuzz_wall" "$nnsmith_wall" <<'PY'
import json, os, re, sys
out, walls = sys.argv[1], {"npufuzz": sys.argv[2], "NNSmith": sys.argv[3]}

def sets(path):
    d = json.load(open(path))
    lines = {(f, l) for f, v in d["files"].items() for l in v.get("lines", [])}
    branches = {(f, tuple(b)) for f, v in d["files"].items() for b in v.get("branches", [])}
    return lines, branches

n_lines, n_branches = sets(os.path.join(out, "npufuzz", "compiler-coverage.json"))
import glob


def nnsmith_sets():
    # Every run's final file, and its snapshots (all a crashed run left).
    lines, branches = set(), set()
    for path in glob.glob(os.path.join(out, "nnsmith-coverage.*.json")):
        more = sets(path)
        lines |= more[0]
        branches |= more[1]
    for path in glob.glob(os.path.join(out, "nnsmith-coverage.*.json.growth.jsonl")):
        for line in open(path):
            files = json.loads(line)["files"]
            lines |= {(f, l) for f, v in files.items() for l in v.get("lines", [])}
            branches |= {(f, tuple(b)) for f, v in files.items() for b in v.get("branches", [])}
    return lines, branches


s_lines, s_branches = nnsmith_sets()
b_lines, b_branches = sets(os.path.join(out, "one-op-coverage.json"))
summary = json.load(open(os.path.join(out, "npufuzz", "summary.json")))
findings = sorted(os.listdir(os.path.join(out, "npufuzz", "findings")))
log = open(os.path.join(out, "nnsmith.log"), errors="replace").read()
# NNSmith prints a timing line a test case, and its bugs' total when a run
# ends (a run that crashed prints none).
cases = [len(re.findall(r"Timing: gen", log))]
bugs = [sum(int(x) for x in re.findall(r"Total (\d+) bugs found", log))]
rows = [("npufuzz", n_lines, n_branches, s_lines, s_branches, summary["cases"],
         "%d signatures (%s new against the known list)" % (
             len(findings), summary.get("new_against_known_list", "?"))),
        ("NNSmith", s_lines, s_branches, n_lines, n_branches, cases[-1] if cases else "?",
         "%s bug reports" % (bugs[-1] if bugs else "?"))]
print("baseline (one op through torch.compile): %d lines, %d branches" % (
    len(b_lines), len(b_branches)))
print("| tool | wall s | lines | beyond baseline | only it | branches | beyond baseline | only it "
      "| cases | reported |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for name, lines, branches, other_lines, other_branches, n, said in rows:
    print("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s |" % (
        name, walls[name], len(lines), len(lines - b_lines), len(lines - other_lines),
        len(branches), len(branches - b_branches), len(branches - other_branches), n, said))
print("beyond the baseline, npufuzz/NNSmith: lines %.2f, branches %.2f" % (
    len(n_lines - b_lines) / max(1, len(s_lines - b_lines)),
    len(n_branches - b_branches) / max(1, len(s_branches - b_branches))))

# Growth beyond the baseline, a row a minute. NNSmith's snapshots are sets:
# exact. npufuzz's campaign records counts a case: its lines at t less the
# baseline's lines it holds by the end (any compile reaches them in its
# first seconds, so this is exact after the first case).
shared_with_baseline = len(n_lines & b_lines)
npufuzz_growth = [(g[1], g[2] - shared_with_baseline)
                  for g in summary.get("compiler_coverage", {}).get("growth", [])]
nnsmith_growth, seen, snaps = [], set(), []
for path in glob.glob(os.path.join(out, "nnsmith-coverage.*.json.growth.jsonl")):
    snaps += [json.loads(line) for line in open(path)]
for snap in sorted(snaps, key=lambda x: x["seconds"]):
    seen |= {(f, l) for f, v in snap["files"].items() for l in v.get("lines", [])}
    nnsmith_growth.append((snap["seconds"], len(seen - b_lines)))
restarts = os.path.join(out, "nnsmith.restarts")
if os.path.exists(restarts):
    print("NNSmith restarted after its process ended early:")
    print(open(restarts).read().rstrip())

def at(growth, t):
    # A snapshot taken a little after its minute counts for it.
    got = [v for s, v in growth if s <= t + 5]
    return got[-1] if got else 0

print("| seconds | npufuzz beyond baseline (lines) | NNSmith | ratio |")
print("| --- | --- | --- | --- |")
for t in range(60, int(float(max(walls.values()))) + 60, 60):
    a, b = at(npufuzz_growth, t), at(nnsmith_growth, t)
    print("| %d | %d | %d | %s |" % (t, a, b, "%.2f" % (a / b) if b else "-"))
print("outputs kept in %s" % out)
PY
