#!/usr/bin/env python3
"""A bug of Apache TVM, as npufuzz found and reduced it.

From: corpus/upstream/tvm/full_of_infinity_primtype_dtype.npf

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


def _f2i(x, mode, lo, hi, dtype):
    # Rounds under `mode` in f64 (exact for f32 inputs), saturates, NaN -> 0.
    d = torch.nan_to_num(x.to(torch.float64), nan=0.0)
    if mode == "rne":
        r = torch.round(d)
    elif mode == "rna":
        r = torch.sign(d) * torch.floor(torch.abs(d) + 0.5)
    elif mode == "rtz":
        r = torch.trunc(d)
    elif mode == "rdn":
        r = torch.floor(d)
    else:
        r = torch.ceil(d)
    i = r.clamp(-9223372036854775808.0, 9223372036854774784.0).to(torch.int64)
    i = torch.where(r >= hi, torch.full_like(i, hi), torch.where(r <= lo, torch.full_like(i, lo), i))
    return i.to(dtype)


def _fillpad(x, rows, cols, pad):
    y = x.clone()
    y[rows:, :] = pad
    y[:, cols:] = pad
    return y


def kernel(v0):
    v1 = _fillpad(v0, 4, 1, float("-inf"))
    v2 = _f2i(v1, "rne", -2147483648, 2147483647, torch.int32)
    v3 = torch.chunk(v2, 4, dim=0)[3]
    return (v3, )


# TVM's PassContext as the finding ran it.
_PASS_CONTEXT = dict(opt_level=2, disabled_pass=["FuseOps", "FuseTIR", "StaticPlanBlockMemory"], config={"tirx.disable_storage_rewrite": True})


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
    ("float32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDQsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAA"),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%3", "i32", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAA", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoB", None),
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
