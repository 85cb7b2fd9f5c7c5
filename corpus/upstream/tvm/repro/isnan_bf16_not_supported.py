#!/usr/bin/env python3
"""A bug of Apache TVM, as npufuzz found and reduced it.

From: corpus/upstream/tvm/isnan_bf16_not_supported.npf

Run it with python3 (it needs torch and numpy, and apache-tvm).
kernel() below is the case's program; its inputs are embedded. The
script runs kernel() compiled, compares each output with the expected
one embedded (the program's semantics, as npufuzz's reference computes
them; elements outside an output's valid region are not compared) and
exits 1 when they differ or the compiler fails, 0 when they agree
(2 when a module it needs is not installed).
A value the compiler may round otherwise (a fused low-precision
intermediate) is compared within its type's tolerance; one it may
decide otherwise is not compared, nor one a signed i32/i64 overflow
reaches (the compiler's is undefined, as in C),
nor one an x - x of an infinite or NaN x reaches (TVM folds x - x
to 0 by design).
"""
import base64
import io
import traceback
import os
import sys

try:
    import numpy as np
    import torch
    import tvm  # noqa: F401
except ImportError as e:  # nothing to show without them
    print("a module the script needs is not installed (%s)" % e)
    sys.exit(2)


def _rmin(x, axis, fmin):
    # The minimum as the maximum of the order reversed: -x for a float
    # (exact), ~x for an integer (-x would wrap at its minimum) or a bool.
    if not fmin:
        return ~(~x).max(axis, keepdim=True).values
    r = -(-x).max(axis, keepdim=True).values
    a = torch.abs(r)  # -0 if a -0 is there, else +0
    r = torch.where(r == 0, torch.where(((x == 0) & (1 / x < 0)).any(axis, keepdim=True), -a, a), r)
    return torch.where(torch.isnan(x).any(axis, keepdim=True), x.sum(axis, keepdim=True), r)


def _argmax(x, axis):
    # The first maximum; NaN counts as the maximum; -0 == +0. Of the
    # elements that win, the first is the one with the most after it.
    n = x.shape[axis]
    nan = torch.isnan(x)
    top = torch.where(nan.any(axis, keepdim=True), nan, x == x.max(axis, keepdim=True).values)
    after = n - _along(n, axis, x.dim())
    return n - (top * after).max(axis, keepdim=True).values


def _along(n, axis, rank):
    # arange(n) laid along dimension `axis` of `rank` dimensions.
    return torch.arange(n).reshape([n if d == axis else 1 for d in range(rank)])


def kernel(v0):
    v1 = _argmax(v0, 0)
    v2 = _rmin(v1, 1, False)
    return (v2, )


# TVM's PassContext as the finding ran it.
_PASS_CONTEXT = dict(opt_level=0, disabled_pass=[], config={})


def _compile(kernel):
    # torch.export, Relax's torch frontend, its "zero" pipeline (as TVM's
    # end-to-end tutorial optimises a model), tvm.compile for llvm.
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    class Kernel(torch.nn.Module):
        def forward(self, *inputs):
            return kernel(*inputs)

    def run(*args):
        module = from_exported_program(torch.export.export(Kernel(), tuple(args)))
        with tvm.transform.PassContext(**_PASS_CONTEXT):
            executable = tvm.compile(relax.get_pipeline("zero")(module), target="llvm")
        vm = relax.VirtualMachine(executable, tvm.cpu())
        # TVM takes storage aligned as torch's allocator aligns it.
        results = vm["main"](*[tvm.runtime.from_dlpack(torch.empty(a.shape, dtype=a.dtype).copy_(a)) for a in args])
        return tuple(torch.from_dlpack(r).clone() for r in results)
    return run


# (dtype, the .npy bytes; bf16 as f32, exact)
_INPUTS = [
    ("bfloat16", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAA"),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%2", "i64", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAA==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoB", None),
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
