#!/usr/bin/env bash
#===- ci/test.sh - Build npufuzz and run every test ------------------------===#
#
# README's test command and what .ci/run calls. Two builds:
#   build/       the full tool (clang-22, links libLLVM/libMLIR), all tests;
#   build-asan/  the LLVM-free core under AddressSanitizer + UBSan, its tests
#                (generators, reference, parser properties).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh

COMMON=(-G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)
JOBS=${NPUFUZZ_JOBS:-$(nproc)}

cmake -S . -B build "${COMMON[@]}" >/dev/null
cmake --build build -j "$JOBS"

cmake -S . -B build-asan "${COMMON[@]}" -DNPUFUZZ_CORE_ONLY=ON -DNPUFUZZ_SANITIZE=ON \
  -DNPUFUZZ_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j "$JOBS"

echo "== sanitizer build (ASan + UBSan): core tests"
ctest --test-dir build-asan --output-on-failure -j "$JOBS"
echo "== full build: all tests"
ctest --test-dir build --output-on-failure -j "$JOBS"
