#!/usr/bin/env bash
# Triage benchmark: how many signatures one planted bug is filed under.
#
# Each row plants one bug (a pass of the planted-bug or test plugin, or a
# ptoas wrapper of tests/integrations/pto/) and runs a campaign of --cases
# cases on seeds from --seed-start, a range kept apart from the seeds
# npufuzz is developed on (990000 by default, the range of the table in
# docs/triage.md: no test, tuning or earlier measurement used it; measure a
# change on a range nothing has seen yet, and say which). The same campaign on the unmodified toolchain
# (once per style, and once for pto) gives what the bug does not: the
# row's signatures are the planted campaign's findings that the unmodified
# one has not. Printed per row: the bugs planted, the signatures, their
# ratio, the campaign's rate against the unmodified one's (a bad night),
# and at the end the signatures that two rows share (two bugs merged into
# one finding: want none). Campaigns are given the known list, as a
# nightly's are: op blame passes an op whose failure the list names. Rows
# that need a PTO toolchain are skipped, with the reason, where `npufuzz
# toolchains` finds none.
#
# With --false-new it measures the other side instead: campaigns on the
# unmodified toolchains (affine, tensor and npu at O2, affine at O0, and pto
# where a PTO toolchain is found), reduced as a nightly reduces them, and
# reported against the known list (ci/known-signatures.txt). A known root
# filed as new is triage's mistake: a nightly gone red for a bug already
# filed. Its defaults are 2,000 cases a campaign from seed 50000, issue 38's
# acceptance seeds: not used to develop triage, though the known list's
# skeleton lines for seeds 50646 and 51819 were added from them.
#
#   bench/triage.sh [--cases N] [--seed-start S] [--work DIR] [--jobs J] [ROW...]
#   bench/triage.sh --false-new [--cases N] [--seed-start S] [--work DIR] [--jobs J]
#
# ROW names rows to run (all by default). Needs a built tree (build/).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
npufuzz=${NPUFUZZ:-$here/build/bin/npufuzz}
bugs=$here/build/lib/libnpufuzz_planted_bugs.so
tests=$here/build/lib/libnpufuzz_test_plugin.so
cases=
seed=
work=
jobs=2
only=()
false_new=
while [ $# -gt 0 ]; do
  case $1 in
  --false-new) false_new=1; shift ;;
  --cases) cases=$2; shift 2 ;;
  --seed-start) seed=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  -*) echo "triage.sh: unknown option $1" >&2; exit 2 ;;
  *) only+=("$1"); shift ;;
  esac
done
if [ -n "$false_new" ]; then
  cases=${cases:-2000} seed=${seed:-50000}
  [ ${#only[@]} -eq 0 ] || { echo "triage.sh: --false-new runs no rows" >&2; exit 2; }
else
  cases=${cases:-300} seed=${seed:-990000}
fi
# Campaigns are kept and reused by directory: one per seed range and size.
work=${work:-${TMPDIR:-/tmp}/npufuzz-triage-$seed-$cases${false_new:+-false-new}}
for f in "$npufuzz" "$bugs" "$tests"; do
  [ -e "$f" ] || { echo "triage.sh: $f is missing: build the tree first" >&2; exit 2; }
done
mkdir -p "$work"
survey=$("$npufuzz" toolchains 2>/dev/null || true)
has_pto() { grep -q '^ptoas .*ok' <<<"$survey"; }
# Runs npufuzz with its arguments, its output in LOG (the first); exit 0 and
# 1 (findings) go on, anything else stops the benchmark, saying where.
run_logged() {
  local log=$1
  shift
  "$npufuzz" "$@" >"$log" 2>&1 && return 0
  local rc=$?
  [ $rc -eq 1 ] && return 0
  echo "triage.sh: npufuzz $1 exited with $rc; see $log" >&2
  exit 2
}

if [ -n "$false_new" ]; then
  campaigns=("affine-O2;--style affine --pipeline O2" "tensor-O2;--style tensor --pipeline O2"
    "npu-O2;--style npu --pipeline O2" "affine-O0;--style affine --pipeline O0")
  if has_pto; then
    campaigns+=("pto;--backend pto")
  else
    echo "pto: skipped, no PTO toolchain found (npufuzz toolchains)"
  fi
  printf '%-10s %6s %10s %4s\n' campaign cases signatures new
  total_cases=0 total_new=0
  for c in "${campaigns[@]}"; do
    IFS=';' read -r name flags <<<"$c"
    dir=$work/$name
    if [ ! -f "$dir/summary.json" ]; then
      rm -rf "$dir"
      # shellcheck disable=SC2086 # flags are words
      run_logged "$dir.log" fuzz -o "$dir" $flags --seed-start "$seed" --max-cases "$cases" \
        --jobs "$jobs"
    fi
    rm -rf "$dir.report"
    run_logged "$dir.report.log" report "$dir" -o "$dir.report" \
      --known "$here/ci/known-signatures.txt"
    read -r n sigs new < <(python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
print(s["cases"], len(s["findings"]), sum(1 for f in r["findings"] if f.get("new")))' \
      "$dir/summary.json" "$dir.report/report.json")
    printf '%-10s %6s %10s %4s\n' "$name" "$n" "$sigs" "$new"
    total_cases=$((total_cases + n))
    total_new=$((total_new + new))
  done
  echo "total: $total_cases cases, $total_new new against ci/known-signatures.txt"
  exit 0
fi

# name; class; bugs planted; style; pipeline; backend flags; env
rows=(
  "uninit-validshape;seed 002: valid shape never set;1;npu;func.func(npufuzz-bug-uninit-validshape);--load-pass-plugin $bugs;"
  "floormod-stride;seed 003: floor/mod stride;1;npu;func.func(npufuzz-bug-floormod-stride);--load-pass-plugin $bugs;"
  "drop-tail;seed 003: remainder loop dropped;1;npu;func.func(npufuzz-bug-drop-tail);--load-pass-plugin $bugs;"
  "bf16-round;seed 004: bf16 rounding;1;affine;func.func(npufuzz-bug-bf16-round-half-away);--load-pass-plugin $bugs;"
  "loop-overrun;memory: a loop one past its bound;1;affine;func.func(npufuzz-bug-loop-overrun);--load-pass-plugin $bugs;"
  "two-bugs;two bugs in one pass;2;affine;func.func(npufuzz-test-two-bugs);--load-pass-plugin $tests;"
  "pto-002-row-expand;seed 002 in ptoas: row-expand t-ops;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/bare_dst_ptoas.sh;NPUFUZZ_BARE_TOPS=TROWEXPAND[A-Z]*"
  "pto-002-binary;seed 002 in ptoas: binary t-ops;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/bare_dst_ptoas.sh;NPUFUZZ_BARE_TOPS=T(ADD|SUB|MUL|DIV|MAX|MIN)"
  "pto-002-col-expand;seed 002 in ptoas: col-expand t-ops;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/bare_dst_ptoas.sh;NPUFUZZ_BARE_TOPS=TCOLEXPAND[A-Z]*"
  "pto-002-three-forms;seed 002 in ptoas: one bug in row-expand, col-expand and binary t-ops;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/bare_dst_ptoas.sh;NPUFUZZ_BARE_TOPS=T(ROWEXPAND[A-Z]*|COLEXPAND[A-Z]*|ADD|SUB|MUL|DIV|MAX|MIN)"
  "pto-002-two-forms;two bugs: seed 002 in row-expand and in col-expand t-ops;2;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/bare_dst_ptoas.sh;NPUFUZZ_BARE_TOPS=T(ROWEXPAND|COLEXPAND)[A-Z]*"
  "pto-mul-is-add;a ptoas value bug: tmul emitted as tadd;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/mul_is_add_ptoas.sh;"
  "pto-sync-drop-wait;sync: an MTE2->V wait dropped;1;affine;O0;--backend pto --ptoas $here/tests/integrations/pto/sync_bug_ptoas.sh;NPUFUZZ_SYNC_BUG=drop-wait"
)

pto_skip=""
if ! has_pto; then
  pto_skip="no PTO toolchain found (npufuzz toolchains)"
fi
real_ptoas=$(sed -n -E 's/^ptoas .*; ([^ ]+) \(from.*/\1/p' <<<"$survey" | head -1)

# Runs a campaign into $work/$1 unless it is there; prints nothing.
campaign() {
  local dir=$work/$1 style=$2 pipeline=$3 flags=$4 env=$5
  [ -f "$dir/summary.json" ] && return 0
  rm -rf "$dir"
  (
    # The planted wrapper's settings, for this campaign only.
    export NPUFUZZ_REAL_PTOAS=$real_ptoas
    [ -z "$env" ] || export "${env?}"
    # shellcheck disable=SC2086 # flags are words
    run_logged "$dir.log" fuzz -o "$dir" --style "$style" --pipeline "$pipeline" $flags \
      --seed-start "$seed" --max-cases "$cases" --jobs "$jobs" --no-reduce \
      --known "$here/ci/known-signatures.txt"
  )
}

# The signature texts of a campaign, one a line.
signatures() {
  python3 -c 'import json,sys
for f in json.load(open(sys.argv[1]))["findings"]: print(f["signature"])' "$work/$1/summary.json"
}
rate() {
  python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["cases_per_second"])' \
    "$work/$1/summary.json"
}

# The rate of campaign $1 as a share of campaign $2's.
of_clean() {
  python3 -c 'import sys; a, b = map(float, sys.argv[1:])
print("%.0f%%" % (100 * a / b) if b else "-")' "$(rate "$1")" "$(rate "$2")"
}

printf '%-20s %-40s %4s %5s %6s %8s %8s\n' row class bugs sigs "sig/bug" "cases/s" "of clean"
: >"$work/new-signatures.txt"
for row in "${rows[@]}"; do
  IFS=';' read -r name class planted style pipeline flags env <<<"$row"
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then
    continue
  fi
  if [[ $flags == *--backend\ pto* ]]; then
    if [ -n "$pto_skip" ]; then
      printf '%-20s skipped: %s\n' "$name" "$pto_skip"
      continue
    fi
    base="unmodified-pto"
    campaign "$base" "$style" "$pipeline" "--backend pto" ""
  else
    base="unmodified-$style"
    campaign "$base" "$style" O0 "$flags" ""
  fi
  campaign "$name" "$style" "$pipeline" "$flags" "$env"
  signatures "$base" | sort -u >"$work/$base.sigs"
  signatures "$name" | sort -u | comm -23 - "$work/$base.sigs" >"$work/$name.new"
  n=$(wc -l <"$work/$name.new")
  sed "s/^/$name	/" "$work/$name.new" >>"$work/new-signatures.txt"
  printf '%-20s %-40s %4s %5s %6.2f %8s %8s\n' "$name" "$class" "$planted" "$n" \
    "$(echo "$n / $planted" | bc -l)" "$(rate "$name")" "$(of_clean "$name" "$base")"
done
echo
echo "signatures per row: $work/<row>.new; every new one: $work/new-signatures.txt"
merged=$(cut -f2 "$work/new-signatures.txt" | sort | uniq -d)
if [ -n "$merged" ]; then
  echo "merged (one signature, two rows):"
  echo "$merged"
else
  echo "merged: none"
fi
