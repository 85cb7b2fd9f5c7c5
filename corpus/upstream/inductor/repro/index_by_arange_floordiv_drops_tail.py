#!/usr/bin/env python3
"""A bug of torch.compile (Inductor), as npufuzz found and reduced it.

From: corpus/upstream/inductor/index_by_arange_floordiv_drops_tail.npf

Run it with python3 (it needs torch and numpy).
kernel() below is the case's program; its inputs are embedded. The
script runs kernel() compiled, compares each output with the expected
one embedded (the program's semantics, as npufuzz's reference computes
them; elements outside an output's valid region are not compared) and
exits 1 when they differ or the compiler fails, 0 when they agree
(2 when a module it needs is not installed).
A value the compiler may round otherwise (a fused low-precision
intermediate) is compared within its type's tolerance; one it may
decide otherwise is not compared, nor one a negation of an i32/i64
minimum reaches (undefined in Inductor's C++).
"""
import base64
import io
import traceback
import os
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # nothing to show without them
    print("a module the script needs is not installed (%s)" % e)
    sys.exit(2)


def _grids(shape):
    return [torch.arange(n).reshape([n if j == i else 1 for j in range(len(shape))])
            for i, n in enumerate(shape)]


def kernel(v0):
    d = _grids([2, 64])
    v1 = v0[torch.as_tensor(0), torch.as_tensor((d[1] // 22))].expand([2, 64])
    return (v1, )


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
    ("float32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDMpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArkbH6+4rrev9GIX8A="),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%1", "f32", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDY0KSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArkbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev9GIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuRsfr7kbH6+5Gx+vuK63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/iut6/4rrev+K63r/RiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwNGIX8DRiF/A0YhfwA==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDY0KSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==", None),
]


def _array(text):
    return np.load(io.BytesIO(base64.b64decode(text)))


def _mismatches(g, want, defined, how, bound, tiny=0.0):
    """Indices of the defined elements where `g` is not `want`: exactly (a
    NaN equals a NaN; the sign of a zero counts), within `how`'s tolerance
    for a value the compiler may round otherwise ("approx"; two non-finite
    values match, as formulas differ at overflow), or within that and
    `bound` for a sum it may add in another order ("reordered"; any value
    where the bound is infinite). Below `tiny`, a value and the zero of its
    sign are one (a CPU that flushes subnormals)."""
    g = g.astype(want.dtype).reshape(want.shape)
    if how == "unstable" or (how[0] == "reordered" and bound is None):
        return []
    if want.dtype.kind != "f":
        bad = g != want
    else:
        g64, w64 = g.astype(np.float64), want.astype(np.float64)
        same_sign = np.signbit(g64) == np.signbit(w64)
        same = (np.isnan(g64) & np.isnan(w64)) | ((np.abs(g64) < tiny) & (np.abs(w64) < tiny) & same_sign)
        if how == "exact":
            same |= (g64 == w64) & same_sign
        else:
            kind, rtol, atol = how
            extra = bound.astype(np.float64).reshape(want.shape) if kind == "reordered" else 0.0
            with np.errstate(invalid="ignore", over="ignore"):
                near = np.abs(g64 - w64) <= atol + rtol * np.abs(w64) + extra
            close = (g64 == w64) | (near & np.isfinite(g64) & np.isfinite(w64))
            if kind == "approx":  # a zero has a definite sign even so
                same |= close & ((w64 != 0) | (g64 != 0) | same_sign)
                same |= ~np.isfinite(g64) & ~np.isfinite(w64)
            else:
                same |= close | ~np.isfinite(extra)
        bad = ~same
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
    for k, (name, dtype, how, values, mask, bound) in enumerate(_OUTPUTS):
        want, defined = _array(values), _array(mask).astype(bool)
        got = outs[k].float() if outs[k].dtype == torch.bfloat16 else outs[k]
        bad = _mismatches(got.detach().numpy(), want, defined, how,
                          _array(bound) if bound else None)
        if not bad:
            continue
        failed = True
        first = bad[0]
        e = eager[k].float() if eager[k].dtype == torch.bfloat16 else eager[k]
        print("output %d (%s, %s): %d of %d elements differ; first %s: expected %r, got %r "
              "(eager torch: %r)" % (k, name, dtype, len(bad), int(defined.sum()), list(first),
                                     want[first].item(), got[first].item(), e[first].item()))
    print("the bug shows" if failed else "no difference: the bug does not show")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
