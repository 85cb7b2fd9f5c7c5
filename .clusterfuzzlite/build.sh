#!/bin/bash -eu
#===- .clusterfuzzlite/build.sh - Build the fuzz targets for the service ---===#
#
# ClusterFuzzLite and OSS-Fuzz run this in their build image with $CC, $CXX,
# $CFLAGS, $CXXFLAGS (sanitizer and coverage flags), $LIB_FUZZING_ENGINE (the
# engine to link), $SRC, $WORK and $OUT set. It builds the LLVM-free core's
# libFuzzer targets with exactly those, and puts each in $OUT with its seed
# corpus. ci/test.sh runs it locally with Debian's clang-22 to keep it working.
#
#===----------------------------------------------------------------------===#
SOURCE=${NPUFUZZ_SOURCE:-$SRC/npufuzz}
BUILD=$WORK/npufuzz-build
TARGETS=(npufuzz_parser_fuzzer npufuzz_npy_fuzzer npufuzz_case_fuzzer)

# The project's own sanitizer option stays off: the service's flags are the
# whole instrumentation.
cmake -S "$SOURCE" -B "$BUILD" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNPUFUZZ_CORE_ONLY=ON -DNPUFUZZ_FUZZERS=ON -DNPUFUZZ_SANITIZE=OFF \
  -DNPUFUZZ_BUILD_TESTS=OFF -DNPUFUZZ_BUILD_BENCH=OFF
cmake --build "$BUILD" --target "${TARGETS[@]}"

# seed_corpus TARGET DIR: the files of DIR as TARGET's seed corpus, the
# zip the service unpacks next to the target.
seed_corpus() {
  local zip=$OUT/$1_seed_corpus.zip
  rm -f "$zip"
  (cd "$2" && find . -maxdepth 1 -type f -print0 | sort -z | xargs -0 zip -q -j "$zip")
}
for t in "${TARGETS[@]}"; do
  cp "$BUILD/bin/$t" "$OUT/"
done
seed_corpus npufuzz_parser_fuzzer "$SOURCE/corpus/seeds"
seed_corpus npufuzz_npy_fuzzer "$SOURCE/corpus/fuzz/npy"
