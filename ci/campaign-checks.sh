#===- ci/campaign-checks.sh - Campaigns that must find what is planted ----===#
#
# Sourced by ci/test.sh (short forms, in README's test command) and
# ci/nightly.sh (the long forms): each function runs npufuzz campaigns into
# $FUZZ_DIR with $JOBS workers and fails (exit 1) when one does not find,
# reduce or blame what it must, or finds what the known list does not name.
#
#===----------------------------------------------------------------------===#

# ml_campaign NAME ARGS...: a short campaign against the known list (known
# compiler behaviours, each with its triage, do not fail it; a new signature
# does).
ml_campaign() {
  local name=$1
  shift
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/$name" "$@" --jobs "$JOBS" --no-reduce --quiet \
    --known ci/known-signatures.txt || [ $? = 1 ]
  build/bin/npufuzz report "$FUZZ_DIR/$name" -o "$FUZZ_DIR/$name-report" \
    --known ci/known-signatures.txt || {
    # What is new, with how its first seed showed it, before the scratch
    # directory goes.
    python3 - "$FUZZ_DIR/$name-report/report.json" "$FUZZ_DIR/$name/findings" <<'PY'
import json, os, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f.get("new"):
        print("new:", f["id"], f["signature"])
        report = os.path.join(sys.argv[2], f["id"], "report.json")
        if os.path.exists(report):
            r = json.load(open(report))
            print("  seed", r.get("seed"), r.get("summary", "")[:400])
PY
    exit 1
  }
  # Inductor's and TVM's adapters measure the compiler's own coverage
  # (docs/compiler-coverage.md): a campaign on them must report some.
  case $name in
  inductor | tvm)
    python3 - "$FUZZ_DIR/$name/summary.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["compiler_coverage"]
if c["state"] != "on" or c["lines"] == 0 or c["branches"] == 0:
    sys.exit("npufuzz: the campaign measured no coverage of its compiler: %s" % c)
print("compiler coverage: %d lines, %d branches of %s" % (c["lines"], c["branches"],
                                                         ", ".join(c["packages"])))
PY
    ;;
  esac
}
# planted_campaign NAME ARGS...: a campaign that stops at its first finding
# not listed by id alone in the known list; it must stop there (exit 1),
# not run out of cases (0) or fail to run (2).
planted_campaign() {
  local name=$1 rc=0
  shift
  # Not measuring the compiler: each adapter would spend its first
  # seconds instrumenting it, for a coverage nothing here reads.
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/$name" "$@" --jobs "$JOBS" --quiet --max-findings 1 \
    --compiler-coverage off || rc=$?
  [ "$rc" = 1 ] || { echo "npufuzz: the bug planted in $name was not found (exit $rc)" >&2; exit 1; }
}
# planted_finding NAME: the directory of the campaign's one reduced finding
# that the known list does not name by id alone (the planted bug's).
planted_finding() {
  local f id
  for f in "$FUZZ_DIR"/$1/findings/*/; do
    id=$(basename "$f")
    grep -qE "^$id[[:space:]]*(#|$)" ci/known-signatures.txt && continue
    [ -f "$f/reduced/case.npf" ] && { echo "${f%/}"; return; }
  done
  echo "npufuzz: the bug planted in $1 was not reduced" >&2
  ls "$FUZZ_DIR/$1/findings" >&2
  exit 1
}
# planted_bug NAME PASS ARGS...: a campaign against a planted bug must find
# it, reduce it and blame it on the optimisation PASS (switch blame).
planted_bug() {
  local name=$1 pass=$2 found
  shift 2
  planted_campaign "$name" "$@"
  found=$(planted_finding "$name")
  grep -q "\"pass\": \"$pass\"" "$found/report.json" ||
    { echo "npufuzz: the bug planted in $name was not blamed on $pass" >&2; cat "$found/report.json"; exit 1; }
  echo "$name: found, reduced, blamed on $pass"
}
# planted_index_bug NAME MOST ARGS...: a campaign against a bug planted in
# index arithmetic that no switch turns off must find it as a mismatch and
# reduce it to at most MOST ops that are not inputs.
planted_index_bug() {
  local name=$1 most=$2 found ops
  shift 2
  planted_campaign "$name" "$@"
  found=$(planted_finding "$name")
  grep -q '"verdict": "mismatch"' "$found/report.json" ||
    { echo "npufuzz: the bug planted in $name was not a mismatch" >&2; cat "$found/report.json"; exit 1; }
  ops=$(grep -E '^%[0-9]+(, %[0-9]+)* = ' "$found/reduced/case.npf" | grep -vc ' = input ' || true)
  [ "$ops" -le "$most" ] ||
    { echo "npufuzz: the bug planted in $name reduced to $ops ops" >&2; cat "$found/reduced/case.npf" >&2; exit 1; }
  echo "$name: found, reduced to $ops ops"
}
# planted_chain_bug NAME VERDICT ARGS...: a campaign with a cache or layout
# bug planted (ARGS say where: a test pass, the pto harness, a ptoas
# wrapper) must give VERDICT, reduced to at most two tasks.
planted_chain_bug() {
  local name=$1 verdict=$2 dir="$FUZZ_DIR/chain-$1"
  shift 2
  build/bin/npufuzz fuzz -o "$dir" "$@" --jobs "$JOBS" --quiet --max-findings 1 &&
    { echo "npufuzz: the bug planted in $name was not found" >&2; exit 1; }
  # By the verdict of its report (a pass's memory error is filed under the
  # pass's root, not under its verdict's name).
  local reduced="" f
  for f in "$dir"/findings/*/; do
    if grep -q "\"verdict\": \"$verdict" "$f/report.json" 2>/dev/null && [ -f "$f/reduced/case.npf" ]; then
      reduced=$f/reduced/case.npf
      break
    fi
  done
  [ -n "$reduced" ] ||
    { echo "npufuzz: the bug planted in $name was not a reduced $verdict" >&2; ls "$dir/findings" >&2; exit 1; }
  [ "$(grep -c '^task ' "$reduced")" -le 2 ] ||
    { echo "npufuzz: the $verdict of $name reduced to more than two tasks" >&2; cat "$reduced" >&2; exit 1; }
  echo "chain-$name: $verdict, reduced to $(grep -c '^task ' "$reduced") task(s)"
}
# npu_chain_bug PASS VERDICT: the npu style, with a test pass planted in
# its kernels.
npu_chain_bug() {
  planted_chain_bug "$1" "$2" --style npu --max-cases 300 --seed-start 500000 \
    --load-pass-plugin build/lib/libnpufuzz_test_plugin.so \
    --pipeline "func.func(npufuzz-test-$1),canonicalize,cse"
}
# check_briefs COMPILER RUN...: each brief script the ledger holds for
# COMPILER's roots (what `npufuzz export --as report` pastes, at most 40
# lines: ci/ledger.py checks that) run as its maintainer runs it, RUN PATH
# (a hang is cut by RUN's own `timeout`), exits as the ledger says: 1 while
# the bug shows on the release here.
check_briefs() {
  local compiler=$1 list path want rc
  shift
  # Not a pipe: a ledger that cannot list them stops CI, not the loop.
  list=$(python3 ci/ledger.py briefs "$compiler")
  [ -n "$list" ] || { echo "npufuzz: the ledger lists no brief of $compiler" >&2; exit 1; }
  while read -r path want; do
    rc=0
    "$@" "$path" </dev/null >"$FUZZ_DIR/brief.out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] ||
      { echo "npufuzz: the brief $path exits $rc, not $want" >&2; tail -5 "$FUZZ_DIR/brief.out" >&2; exit 1; }
    echo "$path: exits $rc, as the ledger says ($(head -1 "$FUZZ_DIR/brief.out"))"
  done <<<"$list"
}

# A brief that is not a Python script (an MLIR file, a C++ file for
# pto-isa's CPU simulator, a shell script given ptoas and pto-isa) runs
# its `RUN:` line as lit does (%s the file, %t a scratch file) with bash
# and pipefail: 1 when it fails, as when the bug shows; 2 when a command of
# it is not there.
run_lit_brief() {
  local cmd rc=0
  cmd=$(sed -n 's/^.*RUN: //p' "$1" | head -1)
  cmd=${cmd//%s/$1}
  cmd=${cmd//%t/$FUZZ_DIR/brief-binary}
  PTOAS=${PTOAS_FOUND:-} PTO_ISA=${PTO_ISA_FOUND:-} timeout 900 bash -o pipefail -c "$cmd" || rc=$?
  case $rc in
    0) return 0 ;;
    124 | 126 | 127) return 2 ;; # out of time, or a command not there
    *) return 1 ;;
  esac
}

# check_repros DIR FORM PYTHON [RELEASES]: each case of DIR exported as FORM
# is the committed DIR/repro/NAME.py (what export writes today), and that
# script, which imports nothing of npufuzz, run with PYTHON exits as the
# ledger (corpus/upstream/ledger.json) says for the release RELEASES names
# ("torch 2.8.0+cu128": PyTorchSim's line): 1, the bug shows; 0 for a root
# fixed in that release or one outside what the compiler promises.
check_repros() {
  local dir=$1 form=$2 python=$3 releases=${4:-} f name want rc
  for f in "$dir"/*.npf; do
    name=$(basename "$f" .npf)
    # A case without a committed script is one its form cannot hold (a
    # PyTorchSim finding read from its DMAs): export must refuse it.
    if [ ! -e "$dir/repro/$name.py" ]; then
      rc=0
      build/bin/npufuzz export "$f" --as "$form" -o "$FUZZ_DIR/$name.py" >"$FUZZ_DIR/$name.log" 2>&1 || rc=$?
      [ "$rc" = 2 ] && grep -q "footprint oracle" "$FUZZ_DIR/$name.log" ||
        { echo "npufuzz: $f exports as $form with exit $rc, and $dir/repro/$name.py is not committed" >&2; exit 1; }
      echo "$f: no $form script ($(tail -1 "$FUZZ_DIR/$name.log"))"
      continue
    fi
    build/bin/npufuzz export "$f" --as "$form" -o "$FUZZ_DIR/$name.py"
    cmp -s "$FUZZ_DIR/$name.py" "$dir/repro/$name.py" ||
      { echo "npufuzz: $dir/repro/$name.py is not what 'npufuzz export $f --as $form' writes" >&2; exit 1; }
    want=$(python3 ci/ledger.py exit "$dir/repro/$name.py" "$releases")
    rc=0
    "$python" "$dir/repro/$name.py" >"$FUZZ_DIR/$name.out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] ||
      { echo "npufuzz: $dir/repro/$name.py exits $rc, not $want" >&2; tail -5 "$FUZZ_DIR/$name.out" >&2; exit 1; }
    echo "$dir/repro/$name.py: exits $rc ($([ "$want" = 0 ] && echo "fixed or outside the promise" || echo the bug shows), as the ledger says)"
  done
  # A script whose case npufuzz's programs no longer reach (kept as export
  # wrote it then, the bug still live) is run as it is.
  for f in "$dir"/repro/*.py; do
    name=$(basename "$f" .py)
    [ -e "$dir/$name.npf" ] && continue
    want=$(python3 ci/ledger.py exit "$f" "$releases")
    rc=0
    "$python" "$f" >"$FUZZ_DIR/$name.out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] ||
      { echo "npufuzz: $f exits $rc, not $want" >&2; tail -5 "$FUZZ_DIR/$name.out" >&2; exit 1; }
    echo "$f: exits $rc, as the ledger says (its case is no longer generated)"
  done
}
