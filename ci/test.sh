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
echo "== the toolchains npufuzz drives (docs/toolchains.md): found, or why not"
# A toolchain the user named that fails its canary stops CI here (exit 2).
build/bin/npufuzz toolchains
PTO_FOUND=0
build/bin/npufuzz toolchains --no-canary-case --require ptoas --require pto-isa >/dev/null 2>&1 &&
  PTO_FOUND=1
echo "== full build: all tests"
ctest --test-dir build --output-on-failure -j "$JOBS"
echo "== real PyTorch: a campaign through --backend torch ($("$TORCH_PYTHON" -c 'import torch; print("torch", torch.__version__)'))"
# Any failing case stops it with exit 1 and fails CI; its finding is printed.
build/bin/npufuzz fuzz -o "$FUZZ_DIR/torch" --backend torch --max-cases 400 --jobs "$JOBS" \
  --no-reduce --quiet --max-findings 1 || {
  cat "$FUZZ_DIR"/torch/findings/*/repro.sh "$FUZZ_DIR"/torch/findings/*/stderr.txt 2>/dev/null
  exit 1
}
if [ "$PTO_FOUND" = 1 ]; then
  echo "== the user's ptoas + pto-isa: a campaign through --backend pto"
  # Known toolchain behaviours (ci/known-signatures.txt, each with its triage)
  # do not fail it; a new signature does.
  build/bin/npufuzz fuzz -o "$FUZZ_DIR/pto" --backend pto --max-cases 120 --jobs "$JOBS" \
    --no-reduce --quiet
  build/bin/npufuzz report "$FUZZ_DIR/pto" -o "$FUZZ_DIR/pto-report" --known ci/known-signatures.txt
else
  echo "== pto campaign: skipped (no ptoas and pto-isa found; docs/toolchains.md says how to point npufuzz at yours)"
fi
echo "== regression corpus: every reduced repro keeps its verdict"
build/bin/npufuzz replay corpus/regressions --load-pass-plugin build/lib/libnpufuzz_test_plugin.so
