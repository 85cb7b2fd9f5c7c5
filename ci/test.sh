#!/usr/bin/env bash
#===- ci/test.sh - Build npufuzz and run every test ------------------------===#
#
# README's test command and what .ci/run calls. Two builds:
#   build/       the full tool (clang-22, links libLLVM/libMLIR), all tests;
#   build-asan/  the LLVM-free core under AddressSanitizer + UBSan, its tests
#                (generators, reference, parser properties) and fuzz targets.
# Then, in three lanes at once (docs/testing.md#how-long-it-takes): the
# tests of both builds; short campaigns through Inductor with bugs planted
# in it; and the toolchains found (docs/toolchains.md), short campaigns on
# PyTorch, TVM and IREE with bugs planted in them, on the user's ptoas +
# pto-isa, simpler and PyTorchSim where they are found, the upstream bugs'
# cases and scripts and the regression corpus. Tests that need a toolchain
# that is not here are skipped by name, with the reason. The long forms of
# the campaigns run in ci/nightly.sh.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
# section TITLE: a heading with the minutes and seconds since the start, so
# that a slow run shows where its time went.
section() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
bash ci/install-deps.sh
FUZZ_DIR=$(mktemp -d)
trap 'rm -rf "$FUZZ_DIR"' EXIT

# torch 2 from PyPI for --backend torch, inductor and tvm, and IREE's
# compiler and runtime for --backend iree, cached outside the clone where
# discovery finds them (docs/toolchains.md#torch, #iree-compile). On a fresh
# machine their downloads run while npufuzz builds.
bash ci/install-torch.sh >"$FUZZ_DIR/torch-python" 2>"$FUZZ_DIR/install-torch.log" &
INSTALL_TORCH=$!
bash ci/install-iree.sh >"$FUZZ_DIR/iree-python" 2>"$FUZZ_DIR/install-iree.log" &
INSTALL_IREE=$!

COMMON=(-G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DNPUFUZZ_WERROR=ON)
JOBS=${NPUFUZZ_JOBS:-$(nproc)}

section "full build (build/)"
cmake -S . -B build "${COMMON[@]}"
cmake --build build -j "$JOBS"

section "sanitizer build (build-asan/)"
# Debug keeps every assert; -O1, as AddressSanitizer's own docs advise,
# keeps every check too and runs the generated cases many times faster
# than -O0 (docs/testing.md#how-long-it-takes). Built before the lanes:
# beside them it took three times as long, and the tests lane, the
# longest, waited for it.
cmake -S . -B build-asan "${COMMON[@]}" -DNPUFUZZ_CORE_ONLY=ON -DNPUFUZZ_SANITIZE=ON \
  -DNPUFUZZ_FUZZERS=ON -DNPUFUZZ_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g"
cmake --build build-asan -j "$JOBS"

section "torch, TVM and IREE from PyPI (ci/install-torch.sh, ci/install-iree.sh)"
for job in "$INSTALL_TORCH:torch" "$INSTALL_IREE:iree"; do
  wait "${job%%:*}" || { cat "$FUZZ_DIR/install-${job#*:}.log" >&2; exit 2; }
done
TORCH_PYTHON=$(tail -n 1 "$FUZZ_DIR/torch-python")
IREE_PYTHON=$(tail -n 1 "$FUZZ_DIR/iree-python")

section "the toolchains npufuzz drives (docs/toolchains.md): found, or why not"
# A toolchain the user named that fails its canary stops CI here (exit 2).
build/bin/npufuzz toolchains
PTO_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require pto-isa >/dev/null 2>&1 &&
  PTO_FOUND=1
SIMPLER_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require simpler >/dev/null 2>&1 &&
  SIMPLER_FOUND=1
PYPTO_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require pto-isa --require pypto \
  >/dev/null 2>&1 && PYPTO_FOUND=1
PYTORCHSIM_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require pytorchsim --require pytorchsim-python \
  >/dev/null 2>&1 && PYTORCHSIM_FOUND=1

. ci/campaign-checks.sh

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

# The tests of both builds and the fuzz targets (ClusterFuzzLite's build
# runs in ci/nightly.sh).
lane_tests() {
  section "sanitizer build (ASan + UBSan): core tests"
  ctest --test-dir build-asan --output-on-failure -j "$JOBS"
  section "libFuzzer targets (ASan + UBSan)"
  run_fuzzer parser 20 build-asan/bin/npufuzz_parser_fuzzer corpus/seeds
  run_fuzzer npy 10 build-asan/bin/npufuzz_npy_fuzzer corpus/fuzz/npy
  run_fuzzer case 30 build-asan/bin/npufuzz_case_fuzzer
  section "full build: all tests"
  ctest --test-dir build --output-on-failure -j "$JOBS"
}

# Inductor: a short campaign against the known list, and a bug planted in
# it, found, reduced and blamed (from a seed range where its case comes
# early), then the Inductor bugs found so far. The nightly runs this plant
# from the first seed of its policy, and two more: in Inductor's floor
# division and in its reshape of a permuted view (docs/view-chains.md).
lane_inductor() {
  section "torch.compile: a campaign through --backend inductor, and a bug planted in it"
  ml_campaign inductor --backend inductor --max-cases 20
  NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/sub_swaps_view_operands.py \
    planted_bug inductor-planted inductor:pattern_matcher --backend inductor --max-cases 200 \
    --policy tests/integrations/inductor/views-into-sub.policy --seed-start 16
  section "Inductor bugs found: each reduced repro keeps its verdict, each standalone script shows it (corpus/upstream/inductor/)"
  build/bin/npufuzz replay corpus/upstream/inductor --backend inductor
  check_repros corpus/upstream/inductor torch-harness "$TORCH_PYTHON"
  check_briefs inductor timeout 900 "$TORCH_PYTHON"
}

# Every other backend, and the bugs found so far.
lane_backends() {
  section "real PyTorch: a campaign through --backend torch ($("$TORCH_PYTHON" -c 'import torch; print("torch", torch.__version__)'))"
  # Any failing case stops it with exit 1 and fails CI; its finding is printed.
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/torch" --backend torch --max-cases 400 --jobs "$JOBS" \
    --no-reduce --quiet --max-findings 1 || {
    cat "$FUZZ_DIR"/torch/findings/*/repro.sh "$FUZZ_DIR"/torch/findings/*/stderr.txt 2>/dev/null
    exit 1
  }
  section "seed 004 on the npu style: a dropped tail flush, packed shares and a tile past the scratchpad's end planted in it"
  npu_chain_bug drop-flush stale-read
  npu_chain_bug pack-shares lost-write
  npu_chain_bug tile-past-spad out-of-bounds
  section "Apache TVM: a campaign through --backend tvm, and a bug planted in its floor division ($("$TORCH_PYTHON" -c 'import tvm; print("tvm", tvm.__version__)'))"
  ml_campaign tvm --backend tvm --max-cases 20
  # Inductor's policy of small integer divisions serves TVM's plant as well.
  NPUFUZZ_TVM_PATCH=tests/integrations/tvm/fused_floordiv_skips_remainder.py \
    planted_bug tvm-floordiv tvm:fuse-ops --backend tvm --max-cases 150 \
    --policy tests/integrations/inductor/int-division.policy --known ci/known-signatures.txt
  section "IREE: a campaign through --backend iree, and a bug planted in it ($("$IREE_PYTHON" -c 'import importlib.metadata as m; print("iree", m.version("iree-base-compiler"))'))"
  ml_campaign iree --backend iree --max-cases 40
  NPUFUZZ_REAL_IREE_COMPILE=$(dirname "$IREE_PYTHON")/iree-compile \
    planted_bug iree-planted iree:data-tiling --backend iree --max-cases 200 \
    --iree-compile tests/integrations/iree/data_tiling_demotes_contractions.sh \
    --policy tests/integrations/iree/contractions.policy
  user_toolchains
  section "TVM and IREE bugs found: each reduced repro keeps its verdict (corpus/upstream/)"
  build/bin/npufuzz replay corpus/upstream/tvm --backend tvm
  build/bin/npufuzz replay corpus/upstream/iree --backend iree
  section "the standalone reproducers of those bugs, as their trackers take them"
  check_repros corpus/upstream/tvm tvm-harness "$TORCH_PYTHON"
  check_repros corpus/upstream/iree iree-harness "$IREE_PYTHON"
  section "the brief scripts a report pastes, as their maintainers run them"
  check_briefs tvm timeout 900 "$TORCH_PYTHON"
  check_briefs iree timeout 900 "$IREE_PYTHON"
  if [ "$PYTORCHSIM_FOUND" = 1 ]; then
    # The scripts name the checkout by TORCHSIM_DIR, as PyTorchSim does, and
    # verify with the mlir-opt npufuzz found.
    TORCHSIM_DIR=$(build/bin/npufuzz toolchains --no-canary-case --where pytorchsim)
    MLIR_OPT=$(build/bin/npufuzz toolchains --no-canary-case --where mlir-opt)
    PYTORCHSIM_PYTHON=$(build/bin/npufuzz toolchains --no-canary-case --where pytorchsim-python)
    export TORCHSIM_DIR MLIR_OPT
    # Which line of PyTorchSim runs here, by the torch it runs on (master
    # v1.1.0's is 2.8): a script's exit may differ between the two.
    PYTORCHSIM_TORCH=$(TORCH_DEVICE_BACKEND_AUTOLOAD=0 "$PYTORCHSIM_PYTHON" -c \
      'import torch; print("torch", torch.__version__)')
    check_repros corpus/upstream/pytorchsim pytorchsim "$PYTORCHSIM_PYTHON" "$PYTORCHSIM_TORCH"
  fi
  section "upstream MLIR bugs found as cases: each reduced repro keeps its verdict (corpus/upstream/mlir/)"
  build/bin/npufuzz replay corpus/upstream/mlir
  section "upstream MLIR's brief reproducers: each RUN line fails while its bug shows"
  check_briefs mlir run_lit_brief
  section "regression corpus: every reduced repro keeps its verdict"
  build/bin/npufuzz replay corpus/regressions --load-pass-plugin build/lib/libnpufuzz_test_plugin.so
}

# The user's own toolchains, where they are found: ptoas + pto-isa, simpler
# and PyTorchSim.
user_toolchains() {
  if [ "$PTO_FOUND" = 1 ]; then
    section "the user's ptoas + pto-isa: a campaign through --backend pto"
    # Known toolchain behaviours (ci/known-signatures.txt, each with its triage)
    # do not fail it; a new signature does.
    build/bin/npufuzz fuzz -o "$FUZZ_DIR/pto" --backend pto --max-cases 120 --jobs "$JOBS" \
      --no-reduce --quiet
    build/bin/npufuzz report "$FUZZ_DIR/pto" -o "$FUZZ_DIR/pto-report" --known ci/known-signatures.txt
    section "chains through ptoas: the cache bugs planted in the harness that runs them"
    for row in "drop-flush stale-read" "pack-shares lost-write" "drop-fence stale-read"; do
      read -r bug verdict <<<"$row"
      planted_chain_bug "pto-$bug" "$verdict" --backend pto --pto-harness-bug "$bug" \
        --policy tests/integrations/pto/chains.policy --max-cases 100 --seed-start 500000
    done
    section "ptoas with seed 004's layout bug planted: a tile past the end of UB"
    # The ptoas that discovery found, which the wrapper runs.
    NPUFUZZ_REAL_PTOAS=$(build/bin/npufuzz toolchains --no-canary-case |
      sed -n 's/^ptoas  *ok  *[^;]*; \([^ ]*\) (from .*/\1/p')
    [ -x "$NPUFUZZ_REAL_PTOAS" ] ||
      { echo "npufuzz: cannot read ptoas's path off 'npufuzz toolchains'" >&2; exit 1; }
    export NPUFUZZ_REAL_PTOAS
    planted_chain_bug pto-ub-overflow out-of-bounds --backend pto \
      --ptoas tests/integrations/pto/ub_overflow_ptoas.sh --max-cases 100 --seed-start 500000
    section "pto-isa's bugs found: each brief shows its bug on the CPU simulator"
    PTOAS_FOUND=$(build/bin/npufuzz toolchains --no-canary-case --where ptoas)
    PTO_ISA_FOUND=$(build/bin/npufuzz toolchains --no-canary-case --where pto-isa)
    check_briefs pto-isa run_lit_brief
  else
    section "pto campaign: skipped (no ptoas and pto-isa found; docs/toolchains.md says how to point npufuzz at yours)"
  fi
  if [ "$SIMPLER_FOUND" = 1 ]; then
    section "the user's simpler: ptoas's kernels as tasks of its runtime (--backend simpler)"
    # About 6 s a case (simpler builds a kernel per task); a new signature
    # fails it, as for pto.
    build/bin/npufuzz fuzz -o "$FUZZ_DIR/simpler" --backend simpler --max-cases 20 --jobs "$JOBS" \
      --no-reduce --quiet
    build/bin/npufuzz report "$FUZZ_DIR/simpler" -o "$FUZZ_DIR/simpler-report" \
      --known ci/known-signatures.txt
  else
    section "simpler campaign: skipped (no simpler and ptoas found; docs/toolchains.md#simpler)"
  fi
  if [ "$PYPTO_FOUND" = 1 ]; then
    section "the user's PyPTO: cases as PyPTO programs, its kernels through ptoas (--backend pypto)"
    # A few seconds a case (PyPTO imports torch); a new signature fails it,
    # as for pto.
    build/bin/npufuzz fuzz -o "$FUZZ_DIR/pypto" --backend pypto --max-cases 20 --jobs "$JOBS" \
      --no-reduce --quiet
    build/bin/npufuzz report "$FUZZ_DIR/pypto" -o "$FUZZ_DIR/pypto-report" \
      --known ci/known-signatures.txt
  else
    section "pypto campaign: skipped (no PyPTO, ptoas and pto-isa found; docs/toolchains.md#pypto)"
  fi
  if [ "$PYTORCHSIM_FOUND" = 1 ]; then
    section "the user's PyTorchSim: its MLIR code generation (--backend pytorchsim)"
    # Its bugs found so far keep their verdicts, and a short campaign finds
    # no signature outside the known list (docs/pytorchsim.md#findings).
    build/bin/npufuzz replay corpus/upstream/pytorchsim --backend pytorchsim
    build/bin/npufuzz fuzz -o "$FUZZ_DIR/pytorchsim" --backend pytorchsim --max-cases 60 \
      --jobs "$JOBS" --seed-start 64000000 --no-reduce --quiet
    build/bin/npufuzz report "$FUZZ_DIR/pytorchsim" -o "$FUZZ_DIR/pytorchsim-report" \
      --known ci/known-signatures.txt
  else
    section "PyTorchSim: skipped (no PyTorchSim checkout and its Python found; docs/toolchains.md#pytorchsim)"
  fi
}

# The three lanes run at once: much of each waits on one process (a
# reduction tries a candidate at a time, a compiler under test runs on one
# core), so together they keep both cores busy. Each lane's output is shown
# whole when it ends; the first that fails fails the run.
run_lanes() {
  local name pids=() names=() failed=0 i
  for name in "$@"; do
    ( set -euo pipefail; "lane_$name" ) >"$FUZZ_DIR/lane-$name.log" 2>&1 &
    pids+=($!)
    names+=("$name")
  done
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then
      section "lane ${names[$i]}: passed"
    else
      section "lane ${names[$i]}: FAILED"
      failed=1
    fi
    cat "$FUZZ_DIR/lane-${names[$i]}.log"
  done
  return "$failed"
}
run_lanes tests inductor backends
section "passed"
