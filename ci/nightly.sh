#!/usr/bin/env bash
#===- ci/nightly.sh - The nightly fuzzing run -------------------------------===#
#
# A time-boxed campaign per (backend, style, pipeline): the MLIR styles and
# pipelines, the user's ptoas + pto-isa and PyTorch; new findings reduced, the
# regression corpus replayed, and a report (report.json, junit.xml,
# index.html) in $OUT/report. Exits non-zero only on new signatures (or on a
# regression whose verdict changed); known signatures are listed in
# ci/known-signatures.txt.
#
#   NPUFUZZ_NIGHTLY_SECONDS   total campaign budget (default 1800)
#   NPUFUZZ_SHARD             I/N to take every N-th seed (default 0/1)
#   OUT                       output directory (default out/nightly)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/nightly}
BUDGET=${NPUFUZZ_NIGHTLY_SECONDS:-1800}
SHARD=${NPUFUZZ_SHARD:-0/1}
NPUFUZZ=build/bin/npufuzz

bash ci/install-deps.sh
bash ci/install-torch.sh >/dev/null
cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
# The regression corpus replays planted faults from the test plugin.
cmake --build build --target npufuzz npufuzz_rt npufuzz_test_plugin

# The seeds' toolchains beside the MLIR pipelines: the user's ptoas +
# pto-isa and PyTorch, as discovery finds them (docs/toolchains.md). A
# backend whose toolchain is not here is left out, and says so.
"$NPUFUZZ" toolchains --no-canary-case || exit 2
# backend style pipeline
CONFIGS=("mlir-jit affine O0" "mlir-jit affine O2" "mlir-jit affine random:1"
  "mlir-jit tensor O0" "mlir-jit tensor O2" "mlir-jit npu O0" "mlir-jit npu O2")
if "$NPUFUZZ" toolchains --no-canary-case --require ptoas --require pto-isa >/dev/null 2>&1; then
  CONFIGS+=("pto affine O0")
else
  echo "nightly: no pto campaign (no PTO toolchain found; docs/toolchains.md)"
fi
if "$NPUFUZZ" toolchains --no-canary-case --require torch >/dev/null 2>&1; then
  CONFIGS+=("torch affine O0")
else
  echo "nightly: no torch campaign (no Python with torch found; docs/toolchains.md)"
fi
PER=$((BUDGET / ${#CONFIGS[@]}))
DIRS=()
for config in "${CONFIGS[@]}"; do
  read -r backend style pipeline <<<"$config"
  name="$style-${pipeline//:/-}"
  [ "$backend" = mlir-jit ] || name=$backend
  dir="$OUT/campaigns/$name"
  DIRS+=("$dir")
  "$NPUFUZZ" fuzz -o "$dir" --backend "$backend" --style "$style" --pipeline "$pipeline" \
    --max-time "$PER" --known ci/known-signatures.txt --shard "$SHARD" --quiet
done

# Reduce the first case of every signature the known list does not have.
# A finding's case.npf carries its pipeline, style, lowering seed and pass
# stage (its expect line), which `npufuzz reduce` reads; the backend is the
# campaign's.
for i in "${!CONFIGS[@]}"; do
  read -r backend _ _ <<<"${CONFIGS[$i]}"
  for finding in "${DIRS[$i]}"/findings/*/; do
    [ -d "$finding" ] || continue
    id=$(basename "$finding")
    grep -q "^$id\b" ci/known-signatures.txt 2>/dev/null && continue
    [ -d "$finding/reduced" ] && continue
    "$NPUFUZZ" reduce "$finding/case.npf" -o "$finding/reduced" --backend "$backend" \
      --known ci/known-signatures.txt --max-time 120 || true
  done
done

status=0
# The long forms of what README's test command runs short
# (ci/campaign-checks.sh): Inductor, TVM and IREE campaigns against the known
# list, and every bug planted in them found, reduced and blamed from the
# first seed of its policy.
if "$NPUFUZZ" toolchains --no-canary-case --require torch --require tvm >/dev/null 2>&1 &&
  IREE_PYTHON=$(bash ci/install-iree.sh); then
  FUZZ_DIR=$OUT/checks
  JOBS=$(nproc)
  rm -rf "$FUZZ_DIR"
  mkdir -p "$FUZZ_DIR"
  . ci/campaign-checks.sh
  # Each in a subshell: a check that fails (exit 1) fails the night, not
  # the checks after it.
  ( ml_campaign inductor --backend inductor --max-cases 300 ) || status=1
  ( NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/sub_swaps_view_operands.py \
    planted_bug inductor-planted inductor:pattern_matcher --backend inductor --max-cases 200 \
    --policy tests/integrations/inductor/views-into-sub.policy ) || status=1
  ( NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/vec_floordiv_skips_remainder_test.py \
    planted_bug inductor-floordiv inductor:cpp_vectorization --backend inductor --max-cases 150 \
    --policy tests/integrations/inductor/int-division.policy --known ci/known-signatures.txt ) ||
    status=1
  ( NPUFUZZ_INDUCTOR_PATCH=tests/integrations/inductor/reshape_merges_permuted_dims_backwards.py \
    planted_index_bug inductor-reshape 4 --backend inductor --max-cases 150 \
    --policy tests/integrations/inductor/view-chains.policy --known ci/known-signatures.txt ) ||
    status=1
  ( ml_campaign tvm --backend tvm --max-cases 300 ) || status=1
  ( NPUFUZZ_TVM_PATCH=tests/integrations/tvm/fused_floordiv_skips_remainder.py \
    planted_bug tvm-floordiv tvm:fuse-ops --backend tvm --max-cases 150 \
    --policy tests/integrations/inductor/int-division.policy --known ci/known-signatures.txt ) ||
    status=1
  ( ml_campaign iree --backend iree --max-cases 600 ) || status=1
  ( NPUFUZZ_REAL_IREE_COMPILE=$(dirname "$IREE_PYTHON")/iree-compile \
    planted_bug iree-planted iree:data-tiling --backend iree --max-cases 200 \
    --iree-compile tests/integrations/iree/data_tiling_demotes_contractions.sh \
    --policy tests/integrations/iree/contractions.policy ) || status=1
else
  echo "nightly: no Inductor, TVM or IREE checks (torch, TVM or IREE not found; docs/toolchains.md)"
fi
# ClusterFuzzLite's build (.clusterfuzzlite/build.sh) as the service runs
# it, with its variables and Debian's clang-22 and libFuzzer in place of the
# build image's; each target it puts in $OUT then fuzzes for a while. (Its
# own workflow, ci/github-actions-cflite.yml, builds it for every pull
# request where it is installed.)
CFL=$OUT/clusterfuzzlite
FLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize=fuzzer-no-link"
rm -rf "$CFL"
mkdir -p "$CFL/out" "$CFL/work"
if env SRC="$PWD/.." NPUFUZZ_SOURCE="$PWD" OUT="$CFL/out" WORK="$CFL/work" \
  CC=clang-22 CXX=clang++-22 CFLAGS="$FLAGS" CXXFLAGS="$FLAGS" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer bash .clusterfuzzlite/build.sh >"$CFL/build.log" 2>&1; then
  for t in npufuzz_parser_fuzzer npufuzz_npy_fuzzer npufuzz_case_fuzzer; do
    mkdir -p "$CFL/corpus-$t" "$CFL/new-$t"
    [ -f "$CFL/out/${t}_seed_corpus.zip" ] &&
      unzip -q -o "$CFL/out/${t}_seed_corpus.zip" -d "$CFL/corpus-$t"
    "$CFL/out/$t" -max_total_time=60 -rss_limit_mb=4096 "$CFL/new-$t" "$CFL/corpus-$t" \
      >"$CFL/$t.log" 2>&1 || { tail -n 60 "$CFL/$t.log"; status=1; }
  done
else
  tail -n 40 "$CFL/build.log"
  echo "nightly: .clusterfuzzlite/build.sh failed" >&2
  status=1
fi
if "$NPUFUZZ" --help | grep -q " replay "; then
  "$NPUFUZZ" replay corpus/regressions \
    --load-pass-plugin build/lib/libnpufuzz_test_plugin.so || status=1
fi
"$NPUFUZZ" report "${DIRS[@]}" -o "$OUT/report" --known ci/known-signatures.txt || status=1
exit $status
