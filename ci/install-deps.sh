#!/usr/bin/env bash
#===- ci/install-deps.sh - Install npufuzz build dependencies -------------===#
#
# Installs everything npufuzz needs on a fresh Debian machine, from Debian's
# packages only. Idempotent: when every package is already present it returns
# in well under a second without touching apt.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ pkg-config python3 python3-venv
  llvm-22-dev libmlir-22-dev mlir-22-tools clang-22
  # The format check (tests/CMakeLists.txt: format_test) pins clang-format.
  clang-format-22
  libfuzzer-22-dev libclang-rt-22-dev
  libxtensor-dev librapidcheck-dev libgtest-dev
  zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev libxml2-dev libffi-dev
  # --backend inductor compiles its kernels' C++ with g++ (above); torch
  # itself comes from PyPI (ci/install-torch.sh).
  # --backend pto: memcheck for reads of uninitialised simulator state.
  valgrind
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "npufuzz: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "npufuzz: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
