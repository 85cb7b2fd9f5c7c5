#!/usr/bin/env bash
#===- ci/test.sh - Build npufuzz and run every test ------------------------===#
#
# README's test command and what .ci/run calls. Two builds:
#   build/       the full tool (clang-22, links libLLVM/libMLIR), all tests;
#   build-asan/  the LLVM-free core under AddressSanitizer + UBSan, its tests
#                (generators, reference, parser properties).
# Then the toolchains found (docs/toolchains.md), a short campaign on real
# PyTorch, one on the user's ptoas + pto-isa where they are found, and the
# regression corpus. Tests that need a toolchain that is not here are
# skipped by name, with the reason.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh

# torch 2 from PyPI for --backend torch and inductor, cached outside the
# clone where discovery finds it (docs/toolchains.md#torch).
TORCH_PYTHON=$(bash ci/install-torch.sh)
# IREE's compiler and runtime from PyPI for --backend iree, the same way
# (docs/toolchains.md#iree-compile).
IREE_PYTHON=$(bash ci/install-iree.sh)

COMMON=(-G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DNPUFUZZ_WERROR=ON)
JOBS=${NPUFUZZ_JOBS:-$(nproc)}

cmake -S . -B build "${COMMON[@]}"
cmake --build build -j "$JOBS"

cmake -S . -B build-asan "${COMMON[@]}" -DNPUFUZZ_CORE_ONLY=ON -DNPUFUZZ_SANITIZE=ON \
  -DNPUFUZZ_FUZZERS=ON -DNPUFUZZ_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j "$JOBS"

echo "== sanitizer build (ASan + UBSan): core tests"
ctest --test-dir build-asan --output-on-failure -j "$JOBS"
echo "== libFuzzer targets (ASan + UBSan)"
FUZZ_DIR=$(mktemp -d)
trap 'rm -rf "$FUZZ_DIR"' EXIT
# run_fuzzer NAME SECONDS BINARY [SEED_DIR...]: fuzzing into a scratch corpus
# (libFuzzer writes to the first directory; seed directories stay read-only).
# On a finding it prints the report and fails.
run_fuzzer() {
  local name=$1 seconds=$2 binary=$3
  shift 3
  mkdir -p "$FUZZ_DIR/$name"
  if ! "$binary" -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 \
      "$FUZZ_DIR/$name" "$@" >"$FUZZ_DIR/$name.log" 2>&1; then
    tail -n 60 "$FUZZ_DIR/$name.log"
    echo "npufuzz: $name found a problem (decode its input with npufuzz from-bytes)" >&2
    exit 1
  fi
  echo "$name: $(grep -E '^stat::number_of_executed_units' "$FUZZ_DIR/$name.log")"
}
run_fuzzer parser 30 build-asan/bin/npufuzz_parser_fuzzer corpus/seeds
run_fuzzer npy 20 build-asan/bin/npufuzz_npy_fuzzer corpus/fuzz/npy
run_fuzzer case 60 build-asan/bin/npufuzz_case_fuzzer
echo "== ClusterFuzzLite build (.clusterfuzzlite/build.sh), as the service runs it"
# The service's variables, with Debian's clang-22 and its libFuzzer in place
# of the build image's; then each target it put in $OUT fuzzes for a while.
CFL=$FUZZ_DIR/clusterfuzzlite
mkdir -p "$CFL/out" "$CFL/work"
CFL_FLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize=fuzzer-no-link"
env SRC="$PWD/.." NPUFUZZ_SOURCE="$PWD" OUT="$CFL/out" WORK="$CFL/work" \
  CC=clang-22 CXX=clang++-22 CFLAGS="$CFL_FLAGS" CXXFLAGS="$CFL_FLAGS" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer bash .clusterfuzzlite/build.sh >"$CFL/build.log" 2>&1 || {
  tail -n 40 "$CFL/build.log"
  echo "npufuzz: .clusterfuzzlite/build.sh failed" >&2
  exit 1
}
for t in npufuzz_parser_fuzzer npufuzz_npy_fuzzer npufuzz_case_fuzzer; do
  mkdir -p "$CFL/corpus-$t"
  [ -f "$CFL/out/${t}_seed_corpus.zip" ] && unzip -q -o "$CFL/out/${t}_seed_corpus.zip" -d "$CFL/corpus-$t"
  run_fuzzer "cflite-$t" 5 "$CFL/out/$t" "$CFL/corpus-$t"
done
echo "== the toolchains npufuzz drives (docs/toolchains.md): found, or why not"
# A toolchain the user named that fails its canary stops CI here (exit 2).
build/bin/npufuzz toolchains
PTO_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require pto-isa >/dev/null 2>&1 &&
  PTO_FOUND=1
SIMPLER_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require simpler >/dev/null 2>&1 &&
  SIMPLER_FOUND=1
PYTORCHSIM_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require pytorchsim --require pytorchsim-python \
  >/dev/null 2>&1 && PYTORCHSIM_FOUND=1
echo "== full build: all tests"
ctest --test-dir build --output-on-failure -j "$JOBS"
echo "== real PyTorch: a campaign through --backend torch ($("$TORCH_PYTHON" -c 'import torch; print("torch", torch.__version__)'))"
# Any failing case stops it with exit 1 and fails CI; its finding is printed.
build/bin/npufuzz fuzz -o "$FUZZ_DIR/torch" --backend torch --max-cases 400 --jobs "$JOBS" \
  --no-reduce --quiet --max-findings 1 || {
  cat "$FUZZ_DIR"/torch/findings/*/repro.sh "$FUZZ_DIR"/torch/findings/*/stderr.txt 2>/dev/null
  exit 1
}
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
}
# planted_campaign NAME ARGS...: a campaign that stops at its first finding
# not listed by id alone in the known list; it must stop there (exit 1),
# not run out of cases (0) or fail to run (2).
planted_campaign() {
  local name=$1 rc=0
  shift
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/$name" "$@" --jobs "$JOBS" --quiet --max-findings 1 || rc=$?
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
echo "== seed 004 on the npu style: a dropped tail flush, packed shares and a tile past the scratchpad's end planted in it"
npu_chain_bug drop-flush stale-read
npu_chain_bug pack-shares lost-write
npu_chain_bug tile-past-spad out-of-bounds
echo "== torch.compile: a campaign through --backend inductor, and a bug planted in it"
ml_campaign inductor --backend inductor --max-cases 60
NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/sub_swaps_view_operands.py \
  planted_bug inductor-planted inductor:pattern_matcher --backend inductor --max-cases 200 \
  --policy tests/integrations/inductor/views-into-sub.policy
echo "== torch.compile: bugs planted in Inductor's floor division and in its reshape of a permuted view (docs/view-chains.md)"
NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/vec_floordiv_skips_remainder_test.py \
  planted_bug inductor-floordiv inductor:cpp_vectorization --backend inductor --max-cases 150 \
  --policy tests/integrations/inductor/int-division.policy --known ci/known-signatures.txt
NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/reshape_merges_permuted_dims_backwards.py \
  planted_index_bug inductor-reshape 4 --backend inductor --max-cases 150 \
  --policy tests/integrations/inductor/view-chains.policy --known ci/known-signatures.txt
echo "== Apache TVM: a campaign through --backend tvm, and a bug planted in its floor division ($("$TORCH_PYTHON" -c 'import tvm; print("tvm", tvm.__version__)'))"
ml_campaign tvm --backend tvm --max-cases 60
# Inductor's policy of small integer divisions serves TVM's plant as well.
NPUFUZZ_TVM_PATCH=tests/integrations/tvm/fused_floordiv_skips_remainder.py \
  planted_bug tvm-floordiv tvm:fuse-ops --backend tvm --max-cases 150 \
  --policy tests/integrations/inductor/int-division.policy --known ci/known-signatures.txt
echo "== IREE: a campaign through --backend iree, and a bug planted in it ($("$IREE_PYTHON" -c 'import importlib.metadata as m; print("iree", m.version("iree-base-compiler"))'))"
ml_campaign iree --backend iree --max-cases 150
NPUFUZZ_REAL_IREE_COMPILE=$(dirname "$IREE_PYTHON")/iree-compile \
  planted_bug iree-planted iree:data-tiling --backend iree --max-cases 200 \
  --iree-compile tests/integrations/iree/data_tiling_demotes_contractions.sh \
  --policy tests/integrations/iree/contractions.policy
if [ "$PTO_FOUND" = 1 ]; then
  echo "== the user's ptoas + pto-isa: a campaign through --backend pto"
  # Known toolchain behaviours (ci/known-signatures.txt, each with its triage)
  # do not fail it; a new signature does.
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/pto" --backend pto --max-cases 120 --jobs "$JOBS" \
    --no-reduce --quiet
  build/bin/npufuzz report "$FUZZ_DIR/pto" -o "$FUZZ_DIR/pto-report" --known ci/known-signatures.txt
  echo "== chains through ptoas: the cache bugs planted in the harness that runs them"
  for row in "drop-flush stale-read" "pack-shares lost-write" "drop-fence stale-read"; do
    read -r bug verdict <<<"$row"
    planted_chain_bug "pto-$bug" "$verdict" --backend pto --pto-harness-bug "$bug" \
      --policy tests/integrations/pto/chains.policy --max-cases 100 --seed-start 500000
  done
  echo "== ptoas with seed 004's layout bug planted: a tile past the end of UB"
  # The ptoas that discovery found, which the wrapper runs.
  NPUFUZZ_REAL_PTOAS=$(build/bin/npufuzz toolchains --no-canary-case |
    sed -n 's/^ptoas  *ok  *[^;]*; \([^ ]*\) (from .*/\1/p')
  [ -x "$NPUFUZZ_REAL_PTOAS" ] ||
    { echo "npufuzz: cannot read ptoas's path off 'npufuzz toolchains'" >&2; exit 1; }
  export NPUFUZZ_REAL_PTOAS
  planted_chain_bug pto-ub-overflow out-of-bounds --backend pto \
    --ptoas tests/integrations/pto/ub_overflow_ptoas.sh --max-cases 100 --seed-start 500000
else
  echo "== pto campaign: skipped (no ptoas and pto-isa found; docs/toolchains.md says how to point npufuzz at yours)"
fi
if [ "$SIMPLER_FOUND" = 1 ]; then
  echo "== the user's simpler: ptoas's kernels as tasks of its runtime (--backend simpler)"
  # About 6 s a case (simpler builds a kernel per task); a new signature
  # fails it, as for pto.
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/simpler" --backend simpler --max-cases 20 --jobs "$JOBS" \
    --no-reduce --quiet
  build/bin/npufuzz report "$FUZZ_DIR/simpler" -o "$FUZZ_DIR/simpler-report" \
    --known ci/known-signatures.txt
else
  echo "== simpler campaign: skipped (no simpler and ptoas found; docs/toolchains.md#simpler)"
fi
if [ "$PYTORCHSIM_FOUND" = 1 ]; then
  echo "== the user's PyTorchSim: its MLIR code generation (--backend pytorchsim)"
  # Its bugs found so far keep their verdicts, and a short campaign finds
  # no signature outside the known list (docs/pytorchsim.md#findings).
  build/bin/npufuzz replay corpus/upstream/pytorchsim --backend pytorchsim
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/pytorchsim" --backend pytorchsim --max-cases 60 \
    --jobs "$JOBS" --seed-start 64000000 --no-reduce --quiet
  build/bin/npufuzz report "$FUZZ_DIR/pytorchsim" -o "$FUZZ_DIR/pytorchsim-report" \
    --known ci/known-signatures.txt
else
  echo "== PyTorchSim: skipped (no PyTorchSim checkout and its Python found; docs/toolchains.md#pytorchsim)"
fi
echo "== Inductor, TVM and IREE bugs found: each reduced repro keeps its verdict (corpus/upstream/)"
build/bin/npufuzz replay corpus/upstream/inductor --backend inductor
build/bin/npufuzz replay corpus/upstream/tvm --backend tvm
build/bin/npufuzz replay corpus/upstream/iree --backend iree
# check_repros DIR FORM PYTHON: each case of DIR exported as FORM is the
# committed DIR/repro/NAME.py (what export writes today), and that script,
# which imports nothing of npufuzz, run with PYTHON exits 1: the bug shows.
# A bug its expect line says a release fixed (fixed=, up to the pinned
# torch) exits 0.
check_repros() {
  local dir=$1 form=$2 python=$3 f name want rc
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
    want=1
    if grep -q '^// expect:.* fixed=' "$f"; then want=0; fi
    rc=0
    "$python" "$dir/repro/$name.py" >"$FUZZ_DIR/$name.out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] ||
      { echo "npufuzz: $dir/repro/$name.py exits $rc, not $want" >&2; tail -5 "$FUZZ_DIR/$name.out" >&2; exit 1; }
    echo "$dir/repro/$name.py: exits $rc ($([ "$want" = 0 ] && echo fixed || echo the bug shows))"
  done
  # A script whose case npufuzz's programs no longer reach (kept as export
  # wrote it then, the bug still live) is run as it is.
  for f in "$dir"/repro/*.py; do
    name=$(basename "$f" .py)
    [ -e "$dir/$name.npf" ] && continue
    rc=0
    "$python" "$f" >"$FUZZ_DIR/$name.out" 2>&1 || rc=$?
    [ "$rc" = 1 ] ||
      { echo "npufuzz: $f exits $rc, not 1" >&2; tail -5 "$FUZZ_DIR/$name.out" >&2; exit 1; }
    echo "$f: exits 1 (the bug shows; its case is no longer generated)"
  done
}
echo "== the standalone reproducers of those bugs, as their trackers take them"
check_repros corpus/upstream/inductor torch "$TORCH_PYTHON"
check_repros corpus/upstream/tvm tvm "$TORCH_PYTHON"
check_repros corpus/upstream/iree iree "$IREE_PYTHON"
if [ "$PYTORCHSIM_FOUND" = 1 ]; then
  # The scripts name the checkout by TORCHSIM_DIR, as PyTorchSim does, and
  # verify with the mlir-opt npufuzz found.
  TORCHSIM_DIR=$(build/bin/npufuzz toolchains --no-canary-case --where pytorchsim)
  MLIR_OPT=$(build/bin/npufuzz toolchains --no-canary-case --where mlir-opt)
  PYTORCHSIM_PYTHON=$(build/bin/npufuzz toolchains --no-canary-case --where pytorchsim-python)
  export TORCHSIM_DIR MLIR_OPT
  check_repros corpus/upstream/pytorchsim pytorchsim "$PYTORCHSIM_PYTHON"
fi
echo "== upstream MLIR bugs found as cases: each reduced repro keeps its verdict (corpus/upstream/mlir/)"
build/bin/npufuzz replay corpus/upstream/mlir
echo "== regression corpus: every reduced repro keeps its verdict"
build/bin/npufuzz replay corpus/regressions --load-pass-plugin build/lib/libnpufuzz_test_plugin.so
