#!/usr/bin/env python3
"""A bug of torch.compile (Inductor), as npufuzz found and reduced it.

From: corpus/upstream/inductor/neg_int_min_then_minimum.npf

Run it with python3 (it needs torch and numpy).
kernel() below is the case's program; its inputs are embedded. The
script runs kernel() compiled, compares each output with the expected
one embedded (the program's semantics, as npufuzz's reference computes
them; elements outside an output's valid region are not compared) and
exits 1 when they differ or the compiler fails, 0 when they agree.
A value the compiler may round otherwise (a fused low-precision
intermediate) is compared within its type's tolerance; one it may
decide otherwise is not compared.
"""
import base64
import io
import traceback
import os
import sys

import numpy as np
import torch


def kernel(v0):
    v1 = -v0
    v2 = v1[0:1:1, 0:1:1]
    v3 = v1[1:2:1, 0:1:1]
    v4 = torch.minimum(v2, v3)
    return (v4, )


# Inductor's config as the finding ran it (the rest at its defaults).
_CONFIG = {"prologue_fusion": True, "epilogue_fusion": True, "pattern_matcher": True, "loop_ordering_after_fusion": True, "max_fusion_size": 64, "cpp.simdlen": None, "split_reductions": True}


def _compile(kernel):
    import torch._inductor.config as config
    compiled = torch.compile(kernel, backend="inductor", fullgraph=True, dynamic=False)

    def run(*args):
        with config.patch(_CONFIG):
            return compiled(*args)
    return run


# (dtype, the .npy bytes; bf16 as f32, exact)
_INPUTS = [
    ("int32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAACA/////w=="),
]

# (value, dtype, how compared, expected .npy, its defined elements)
_OUTPUTS = [
    ("%4", "i32", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAACA", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoB"),
]


def _array(text):
    return np.load(io.BytesIO(base64.b64decode(text)))


def _mismatches(got, want, defined, dtype, how):
    """Indices of the defined elements where `got` is not `want`: exactly
    (a NaN equals a NaN; the sign of a zero counts), or within `how`'s
    tolerance for a value the compiler may round otherwise."""
    g = (got.float() if got.dtype == torch.bfloat16 else got).detach().numpy()
    g = g.astype(want.dtype).reshape(want.shape)
    if how == "unstable":
        return []
    if want.dtype.kind != "f":
        bad = g != want
    else:
        both_nan = np.isnan(g) & np.isnan(want)
        if how == "exact":
            same = (g == want) & (np.signbit(g) == np.signbit(want))
        else:
            rtol, atol = how
            with np.errstate(invalid="ignore", over="ignore"):
                near = np.abs(g.astype(np.float64) - want) <= atol + rtol * np.abs(want)
            zero_sign = (want != 0) | (g != 0) | (np.signbit(g) == np.signbit(want))
            same = ((g == want) | near) & zero_sign
        bad = ~(same | both_nan)
    return [tuple(int(i) for i in idx) for idx in np.argwhere(bad & defined)]


def main():
    args = [torch.from_numpy(_array(data)).to(getattr(torch, dtype)) for dtype, data in _INPUTS]
    try:
        outs = _compile(kernel)(*args)
    except Exception:
        traceback.print_exc()
        print("the compiler failed: the bug shows")
        return 1
    eager = kernel(*args)
    failed = False
    for k, (name, dtype, how, values, mask) in enumerate(_OUTPUTS):
        want, defined = _array(values), _array(mask).astype(bool)
        bad = _mismatches(outs[k], want, defined, dtype, how)
        if not bad:
            continue
        failed = True
        first = bad[0]
        got = outs[k].float() if outs[k].dtype == torch.bfloat16 else outs[k]
        e = eager[k].float() if eager[k].dtype == torch.bfloat16 else eager[k]
        print("output %d (%s, %s): %d of %d elements differ; first %s: expected %r, got %r "
              "(eager torch: %r)" % (k, name, dtype, len(bad), int(defined.sum()), list(first),
                                     want[first].item(), got[first].item(), e[first].item()))
    print("the bug shows" if failed else "no difference: the bug does not show")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
