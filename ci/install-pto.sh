#!/usr/bin/env bash
#===- ci/install-pto.sh - Build ptoas and unpack pto-isa, cached -----------===#
#
# The real PTO toolchain for `--backend pto`: ptoas (the PTO tile assembler,
# MLIR 19 based) built from the source snapshot in ../shared/third_party, and
# pto-isa's header-only CPU simulator. Everything goes to a cache outside the
# clone, keyed by the snapshots' checksums, so the 30-minute ptoas build runs
# once per machine; a second run takes a second.
#
# MLIR 19 cannot be installed with apt beside MLIR 22 (the -dev packages
# conflict), so its three packages are downloaded and unpacked into the
# cache instead; LLVM 19 itself installs beside LLVM 22.
#
# Prints the two paths npufuzz needs as shell assignments on its last lines:
#   NPUFUZZ_PTOAS=...     NPUFUZZ_PTO_ISA=...
# which `ci/test.sh` evaluates. Users with their own ptoas and pto-isa pass
# `--ptoas PATH --pto-isa DIR` instead.
#
# Environment: NPUFUZZ_THIRD_PARTY (the snapshots; default
# ../shared/third_party), NPUFUZZ_CACHE (default ~/.cache/npufuzz).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

THIRD_PARTY=${NPUFUZZ_THIRD_PARTY:-$(cd .. && pwd)/shared/third_party}
PTOAS_TAR=$(ls "$THIRD_PARTY"/PTOAS-*.tar.gz 2>/dev/null | head -n1 || true)
ISA_TAR=$(ls "$THIRD_PARTY"/pto-isa-*.tar.gz 2>/dev/null | head -n1 || true)
if [ -z "$PTOAS_TAR" ] || [ -z "$ISA_TAR" ]; then
  echo "npufuzz: no PTOAS-*.tar.gz and pto-isa-*.tar.gz in $THIRD_PARTY" \
       "(set NPUFUZZ_THIRD_PARTY)" >&2
  exit 2
fi
KEY=$(cat "$PTOAS_TAR" "$ISA_TAR" | sha256sum | cut -c1-16)
CACHE=${NPUFUZZ_CACHE:-$HOME/.cache/npufuzz}/pto-$KEY
PTOAS=$CACHE/bin/ptoas
ISA=$CACHE/pto-isa/include

report() {
  echo "NPUFUZZ_PTOAS=$PTOAS"
  echo "NPUFUZZ_PTO_ISA=$ISA"
}

need_runtime() {
  # ptoas needs libLLVM 19 at run time; a cache carried to a new machine
  # may lack it.
  dpkg-query -W -f='${Status}' libllvm19 2>/dev/null | grep -q "install ok installed"
}

if [ -x "$PTOAS" ] && [ -f "$ISA/pto/pto-inst.hpp" ] && [ -f "$CACHE/done" ] && need_runtime; then
  report
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "npufuzz: need root (or sudo) to install LLVM 19" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
LLVM19=(llvm-19-dev libllvm19 llvm-19-tools)
missing=()
for p in "${LLVM19[@]}" cmake ninja-build ccache g++; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "npufuzz: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$CACHE"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# MLIR 19 into the cache, not into the system.
if [ ! -f "$CACHE/mlir19/usr/lib/llvm-19/lib/cmake/mlir/MLIRConfig.cmake" ]; then
  echo "npufuzz: unpacking MLIR 19 into $CACHE/mlir19" >&2
  (cd "$WORK" && apt-get download libmlir-19-dev libmlir-19 mlir-19-tools >/dev/null 2>&1) || {
    $SUDO apt-get update -qq
    (cd "$WORK" && apt-get download libmlir-19-dev libmlir-19 mlir-19-tools)
  }
  rm -rf "$CACHE/mlir19"
  for deb in "$WORK"/*.deb; do
    dpkg -x "$deb" "$CACHE/mlir19"
  done
fi

if [ ! -x "$PTOAS" ]; then
  echo "npufuzz: building ptoas from $(basename "$PTOAS_TAR") (about 30 minutes on 2 cores, once)" >&2
  rm -rf "$CACHE/src" "$CACHE/build"
  mkdir -p "$CACHE/src"
  tar xzf "$PTOAS_TAR" -C "$CACHE/src"
  cmake -G Ninja -S "$CACHE/src/PTOAS" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm \
    -DMLIR_DIR="$CACHE/mlir19/usr/lib/llvm-19/lib/cmake/mlir" \
    -DPTO_ENABLE_PYTHON_BINDING=OFF -DBUILD_TESTING=OFF
  ninja -C "$CACHE/build" -j "${NPUFUZZ_JOBS:-$(nproc)}" ptoas
  mkdir -p "$CACHE/bin"
  cp "$CACHE/build/tools/ptoas/ptoas" "$PTOAS.tmp"
  mv "$PTOAS.tmp" "$PTOAS"
  rm -rf "$CACHE/build" "$CACHE/src"
fi

if [ ! -f "$ISA/pto/pto-inst.hpp" ]; then
  rm -rf "$CACHE/pto-isa"
  tar xzf "$ISA_TAR" -C "$CACHE"
fi

"$PTOAS" --version >/dev/null 2>&1 || {
  echo "npufuzz: $PTOAS was built but does not run" >&2
  exit 1
}
touch "$CACHE/done"
report
