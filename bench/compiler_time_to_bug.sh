#!/usr/bin/env bash
#===- bench/compiler_time_to_bug.sh - Cases to a bug planted in a real compiler ===#
#
# Time-to-bug, blind against guided by the compiler's own coverage, on a bug
# planted in Inductor, TVM or PyTorchSim (bench/plants/: written for this benchmark
# after guidance was built, never run on its seeds before it was
# measured). Run k of RUNS starts at SEED + k * 100000; in each, a blind
# campaign (--guidance none) and a guided one (--guidance feedback, epochs
# of EPOCH cases, so its first mutants come at case 2 * EPOCH) run side by
# side, one worker each, until the planted bug's first finding or BUDGET
# cases.
#
# A campaign also stops at a real bug of the compiler that
# ci/known-signatures.txt does not list. A finding is the plant's when it
# is a mismatch (the plants give wrong values) and its case runs clean on
# the same compiler without the plant (npufuzz run);
# otherwise its signature joins the run's own known list and the campaign
# resumes, without counting a case twice. The case of the plant's finding
# is its first seed's index (seeds.txt and classified.txt), the same with
# any number of workers; a run that did not find it counts as its budget.
#
#   bash bench/compiler_time_to_bug.sh BACKEND PLANT [RUNS (5)] [BUDGET (128)] [SEED] [EPOCH (16)]
#
# BACKEND: inductor, tvm or pytorchsim (found as npufuzz finds it:
# NPUFUZZ_PYTORCHSIM and NPUFUZZ_PYTORCHSIM_PYTHON, or its toolchains.json).
# PLANT: a file of bench/plants/. SEED: a held-out range (default 50000000). Prints a line per campaign and a
# table: runs that found the bug, the median, least and most cases to it.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: bash bench/compiler_time_to_bug.sh inductor|tvm|pytorchsim PLANT.py [RUNS] [BUDGET] [SEED] [EPOCH]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
BACKEND=$1 PLANT=$2 RUNS=${3:-5} BUDGET=${4:-128} SEED=${5:-50000000} EPOCH=${6:-16}
case $BACKEND in
inductor) PATCH_VAR=NPUFUZZ_INDUCTOR_PATCH ;;
tvm) PATCH_VAR=NPUFUZZ_TVM_PATCH ;;
pytorchsim) PATCH_VAR=NPUFUZZ_PYTORCHSIM_PATCH ;;
*) usage ;;
esac
[ -f "$PLANT" ] || { echo "compiler_time_to_bug: no plant $PLANT" >&2; exit 2; }
PLANT=$(realpath "$PLANT")
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
[ -x "$NPUFUZZ" ] || { echo "compiler_time_to_bug: $NPUFUZZ is not an executable" >&2; exit 2; }
OUT=${NPUFUZZ_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$OUT"

# listed_alone KNOWN ID: whether KNOWN lists ID by itself (no skeleton)
# under a section that names BACKEND, as `fuzz --known` reads it: an id
# listed for another backend only is another compiler's bug.
listed_alone() {
  awk -v backend="$BACKEND" -v id="$2" '
    /^\[/ { names = " " substr($0, 2, length($0) - 2) " "; here = index(names, " " backend " ") > 0; next }
    here && $1 == id && ($2 == "" || $2 ~ /^#/) { found = 1 }
    END { exit !found }' "$1"
}

# first_plant_case DIR SEED KNOWN: the index (from 1) of the campaign's
# first case of any of the plant's findings, or nothing; a finding that is
# a real bug's has its signature added to KNOWN.
first_plant_case() {
  local dir=$1 seed=$2 known=$3 f id first rc
  for f in "$dir"/findings/*/; do
    [ -d "$f" ] || continue
    id=$(basename "$f")
    listed_alone "$known" "$id" && continue
    # The plants give wrong values; a timeout of a loaded machine, or any
    # other verdict, is not theirs even if its case then runs clean.
    if [[ $id != mismatch-* ]]; then
      printf '[%s]\n%s  # not a mismatch, found while measuring\n' "$BACKEND" "$id" >>"$known"
      continue
    fi
    rc=0
    env -u "$PATCH_VAR" "$NPUFUZZ" run "$f/case.npf" --backend "$BACKEND" >"$f/without-plant.txt" 2>&1 || rc=$?
    [ "$rc" -le 1 ] || { echo "compiler_time_to_bug: cannot rerun $f without the plant" >&2; exit 2; }
    # Clean means values computed and right: an ok of PyTorchSim's that
    # computed no values clears nothing.
    if [ "$rc" -eq 0 ] && ! grep -q '^values not computed' "$f/without-plant.txt"; then
      cat "$f/seeds.txt" "$f/classified.txt" 2>/dev/null | grep -oE '^[0-9]+' >>"$dir.plant-seeds"
      continue
    fi
    printf '[%s]\n%s  # a real bug, found while measuring\n' "$BACKEND" "$id" >>"$known"
  done
  # The earliest over every finding of the plant (a resumed campaign may
  # hold several signatures of it).
  [ -s "$dir.plant-seeds" ] || return 0
  first=$(sort -n "$dir.plant-seeds" | head -1)
  echo $((first - seed + 1))
}

# campaign GUIDANCE SEED: prints "GUIDANCE SEED CASES FOUND" (CASES: to the
# plant's finding, or the budget).
campaign() {
  local g=$1 seed=$2 dir="$OUT/$1-$2" known="$OUT/$1-$2.known" rc found="" extra=()
  cp ci/known-signatures.txt "$known"
  [ "$g" = feedback ] && extra=(--guidance-epoch "$EPOCH")
  while :; do
    rc=0
    env "$PATCH_VAR=$PLANT" TORCHINDUCTOR_CACHE_DIR="$OUT/cache-$g-$seed" "$NPUFUZZ" fuzz \
      -o "$dir" --backend "$BACKEND" --guidance "$g" "${extra[@]}" --seed-start "$seed" \
      --max-cases "$BUDGET" --max-findings 1 --known "$known" --no-reduce --quiet --jobs 1 \
      >>"$dir.log" 2>&1 || rc=$?
    [ "$rc" -le 1 ] || { echo "compiler_time_to_bug: $g campaign at $seed failed:" >&2; tail -5 "$dir.log" >&2; exit 2; }
    found=$(first_plant_case "$dir" "$seed" "$known")
    [ -n "$found" ] && { echo "$g $seed $found 1"; return; }
    [ "$rc" -eq 0 ] && { echo "$g $seed $BUDGET 0"; return; }
  done
}

echo "compiler_time_to_bug: $BACKEND, $(basename "$PLANT"), $RUNS runs of at most $BUDGET cases, seeds from $SEED, guided epochs of $EPOCH"
: >"$OUT/results"
for ((k = 0; k < RUNS; k++)); do
  seed=$((SEED + k * 100000))
  campaign none "$seed" >"$OUT/none-$seed.result" &
  campaign feedback "$seed" >"$OUT/feedback-$seed.result" &
  wait
  for g in none feedback; do
    [ -s "$OUT/$g-$seed.result" ] || { echo "compiler_time_to_bug: no result of the $g run at $seed" >&2; exit 2; }
  done
  cat "$OUT/none-$seed.result" "$OUT/feedback-$seed.result" | tee -a "$OUT/results"
done
python3 - "$OUT/results" "$RUNS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
print("| generator | found | median cases | least | most | per run |")
print("| --- | --- | --- | --- | --- | --- |")
for g, name in (("none", "blind"), ("feedback", "guided")):
    runs = [(int(r[2]), r[3] == "1") for r in rows if r[0] == g]
    cases = [c for c, _ in runs]
    print("| %s | %d/%s | %g | %d | %d | %s |" % (
        name, sum(f for _, f in runs), sys.argv[2], statistics.median(cases), min(cases),
        max(cases), ", ".join("%d%s" % (c, "" if f else "+") for c, f in runs)))
PY
echo "(+: not found within the budget; counted as the budget)"
