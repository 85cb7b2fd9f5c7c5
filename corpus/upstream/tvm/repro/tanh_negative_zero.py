#!/usr/bin/env python3
"""A bug of Apache TVM, as npufuzz found and reduced it.

From: corpus/upstream/tvm/tanh_negative_zero.npf

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


def kernel(v0):
    v1 = ((torch.tanh(v0.double())).float()).to(torch.float16)
    return (v1, )


# TVM's PassContext as the finding ran it.
_PASS_CONTEXT = dict(opt_level=0, disabled_pass=["FuseOps", "FuseTIR", "FoldConstant"], config={})


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
    ("float16", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGYyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE2LCAxMSwgMSwgMSksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArTK3U3L7rkNye89jBWw4dCU7fwttLBy7W2w98ow0HYOr1CCcF5QzG+SkOew749+ULPQNfCS6l/MXG1lD6twUBDxjxqLH89J0L4NzBCTD2EMGVDZr+pPeK2AQA9w2zCZkHqvE3BBbF3vJPB9LkcQYQynjS9w5VCp8HQsXBCmMIlQiw8yEIbOc07W0JoPjHDI8IEvLC7CzvYwynBzTwhQJI9N0ODQvXCFrQhwwAE8LkDOM3DqD+zv1sy2rxrvFm2hbwBALo/P8N6QL25vkHsPIy7B0IAAKXDABQoO5Y8i8JfQxlDtUDVPHfBqTkGPvlDXMEAADbAXkGUQ9K4f74WQTazaLU+O2RCUjw6Qbw+p8N1QMPAm78Kw2DBQD0dPM48KMIbvJRBZr7QNwCAT8FoPmvAubzavLdAnzveu0JBVUO3wiy98Tz/9/a8Ljxrw4k6WkGavsSwqkMcvVpBajahwDdA"),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%1", "f16", ("approx", 0.00390625, 0.001), "k05VTVBZAQB2AHsnZGVzY3InOiAnPGYyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE2LCAxMSwgMSwgMSksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArRK/Y2MLlPNzi67DD9u/o72raItvS7jbX+u94o8zuNOfs75rv+O0+7/Tv+uyQ7/DvfO/y7SqlxMT61bTvyu/07pzpoLAk79ztfN/g78Tp8MP07nbscO322AQD9u/m77ju9uuy7+7BzuvG7DrnnO20yfjT+u/o78rvAsfk7+rv3Ozw6+zuCOAI6+TtgO/2797sbuvW5pzn+u+m7qzq/OxI7/Tv6O/y7ALT9uwAEC7lqN/67qTuru0Yys7prugm2fboBAKw7/bvSO+y48zu+OuW59jsAAP67ABS2OYg6+rv9O/072zuwOu+73zhAO/877bsAAMS77Tv+O1C4Z7vnOxezNrXAOfk7WTrqO3c7/rvRO927p7v8u+276zowOqw697suuvE7X7s/NwCA7LtgO8+7n7qzutw77jkJuus7/Tv7u+G6wToAvMS6PTr+u2M57Ttuu7uw/jvZuu07FzbYu8Q7", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE2LCAxMSwgMSwgMSksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==", None),
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
