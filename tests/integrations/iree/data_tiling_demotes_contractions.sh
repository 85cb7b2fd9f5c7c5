#!/bin/sh
# A bug planted in IREE for npufuzz's tests, given as --iree-compile (never
# otherwise): with data tiling on, the compiler also runs IREE's own
# iree-global-opt-demote-contraction-inputs pass (to bf16) before its
# global optimisations, so an f32 matmul loses precision: a rounding bug of
# seed 005's class, tied to one optimisation, which switch blame must name
# (iree:data-tiling). $NPUFUZZ_REAL_IREE_COMPILE is the iree-compile it
# wraps.
real=${NPUFUZZ_REAL_IREE_COMPILE:?set NPUFUZZ_REAL_IREE_COMPILE to the iree-compile to wrap}
for arg in "$@"; do
  if [ "$arg" = "--iree-opt-data-tiling=true" ]; then
    exec "$real" "$@" "--iree-preprocessing-pass-pipeline=builtin.module(util.func(iree-global-opt-demote-contraction-inputs{operation=all type=bf16}))"
  fi
done
exec "$real" "$@"
