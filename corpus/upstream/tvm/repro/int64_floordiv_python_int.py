#!/usr/bin/env python3
"""A bug of Apache TVM, as npufuzz found and reduced it.

From: corpus/upstream/tvm/int64_floordiv_python_int.npf

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


def _grids(shape):
    return [torch.arange(n).reshape([n if j == i else 1 for j in range(len(shape))])
            for i, n in enumerate(shape)]


def kernel(v0):
    d = _grids([8, 64])
    v1 = v0[torch.as_tensor(d[0]), torch.as_tensor((d[1] // 2))].expand([8, 64])
    return (v1, )


# TVM's PassContext as the finding ran it.
_PASS_CONTEXT = dict(opt_level=2, disabled_pass=[], config={})


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
    ("float32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDgsIDMyKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArkbH6+4rrev9GIX8AuwPy/liVZQLJqmb9iLBnAgh/Jvxtq5L6unfm+e2loQKexAD/tc2U/cYsTv7QfRMAvdBC/VUEFP3JDEUA4G3G/ztVHQOHRYkDR5WFAylPhvwFkJr6YClxAxM58P8ftJsCAymRA8OXjv6AQ9j/XO6i8+yhzvw2mfkB15li/hFomwFLAzD8z954/4kYAvz8yeUDVbAHA5qk+v2ula8Az9zpACfFAPqBJqT9kUw+/O2QhwOwXRcDvMzhAlPJbQG7EDUAr9EVAnYgmwCM0UL0f9VW/wkuMvzGwcT9fBVK/VCMPQBq2KEAAOypARWMGPXCZLUCbH5Q/0yQ0QKwFGMDmiSC+37Vhv/KRNUDT5sg+cp+0P2TrX8Drak1AaZ34vl3R6T96m1c+XEtgv0nHIj6tlmzAJVRSwMvaCMBTEua/7Ix/wPNEpD/QzCRA6HQbQGyCTED0/se/vawDQO/wmz/ZWCfAeAclv5XuJsB/cT8/6gIfwFPyV0C1aiJAdAdNQKt3zT6uWjvAG4u8vnrjk7+NqT/AbnIDQKPiDsDQ8nxAjdchQMKUFr9W5S3ANza0v873FMBkuBPAYEakv/MWBMALDztAslsGwDom3L4tSD7AJqJdQPxNQ0CyTdw/IiI2wA/G0T8+AHnAL28SPP5Z2r4aawnAEWbGP+0dnj8t71lAiUgnvstdyT9oO3a/RSM6QJk/UsC2WwXAiWG5v7AWaD7kEri/AiJ+QCC4HEAxG2q/Vrgbv3xdur7X28W/GGRpQFCtOsCFOl/AQ6rqvkuGpD+c0EBA/uBowPT8NsA5jy1AUhQvQN/6V8DxEEE+trHavvVeb8DOkp2/yUZnP68J1j/0QRXAyTgqwEJErz6Jyd08XLXBv/KG8z+HbVJA2+RtwK+x2j4r0xu/vZYmwD+cgj6jmxY/tGr8vz+aDMDO40vAI8QuP1BEdMA9CrA/TlK6PkBSfz8s9wpA5bhaQOLl579IzFC+aNUoQD7KacAmngdAy/kav+PqScCiHog//nrdP1kFJb+Qo26//QahvzwIsL/MIwG/3ZUWQLeNMcBptmpAniW0PwuCecDSBMo/kI4zwM2JacAik/i+I1dZwH7Zdr4FxxBAsNMAQHXrGr5pMUjApm/ivrj+V7/APdQ/7xuCP7WzNEC8xHpAEPc4QH6GW78Y0UbAwtYGQCWIUMCJ4LM/aL31PoCpmT9LEQLAnuq/P8DF/b/+7W8/jN49wPKlC0AGWve/wCoGwGvRnD6UD88/Gw+fP+/4WsCOHbs+EZl4QJg7RkATKvi/Y4o8wH+0pb7CHxvAa7doQMbnDj8pnEa/s3+Yvj+T+b+du0bAHf7svkyQjT9UfmbA"),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%1", "f32", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDgsIDY0KSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArkbH6+5Gx+vuK63r/iut6/0YhfwNGIX8AuwPy/LsD8v5YlWUCWJVlAsmqZv7Jqmb9iLBnAYiwZwIIfyb+CH8m/G2rkvhtq5L6unfm+rp35vntpaEB7aWhAp7EAP6exAD/tc2U/7XNlP3GLE79xixO/tB9EwLQfRMAvdBC/L3QQv1VBBT9VQQU/ckMRQHJDEUA4G3G/OBtxv87VR0DO1UdA4dFiQOHRYkDR5WFA0eVhQMpT4b/KU+G/AWQmvgFkJr6YClxAmApcQMTOfD/Eznw/x+0mwMftJsCAymRAgMpkQPDl47/w5eO/oBD2P6AQ9j/XO6i81zuovPsoc7/7KHO/DaZ+QA2mfkB15li/deZYv4RaJsCEWibAUsDMP1LAzD8z954/M/eeP+JGAL/iRgC/PzJ5QD8yeUDVbAHA1WwBwOapPr/mqT6/a6VrwGula8Az9zpAM/c6QAnxQD4J8UA+oEmpP6BJqT9kUw+/ZFMPvztkIcA7ZCHA7BdFwOwXRcDvMzhA7zM4QJTyW0CU8ltAbsQNQG7EDUAr9EVAK/RFQJ2IJsCdiCbAIzRQvSM0UL0f9VW/H/VVv8JLjL/CS4y/MbBxPzGwcT9fBVK/XwVSv1QjD0BUIw9AGrYoQBq2KEAAOypAADsqQEVjBj1FYwY9cJktQHCZLUCbH5Q/mx+UP9MkNEDTJDRArAUYwKwFGMDmiSC+5okgvt+1Yb/ftWG/8pE1QPKRNUDT5sg+0+bIPnKftD9yn7Q/ZOtfwGTrX8Drak1A62pNQGmd+L5pnfi+XdHpP13R6T96m1c+eptXPlxLYL9cS2C/ScciPknHIj6tlmzArZZswCVUUsAlVFLAy9oIwMvaCMBTEua/UxLmv+yMf8DsjH/A80SkP/NEpD/QzCRA0MwkQOh0G0DodBtAbIJMQGyCTED0/se/9P7Hv72sA0C9rANA7/CbP+/wmz/ZWCfA2VgnwHgHJb94ByW/le4mwJXuJsB/cT8/f3E/P+oCH8DqAh/AU/JXQFPyV0C1aiJAtWoiQHQHTUB0B01Aq3fNPqt3zT6uWjvArlo7wBuLvL4bi7y+euOTv3rjk7+NqT/Ajak/wG5yA0BucgNAo+IOwKPiDsDQ8nxA0PJ8QI3XIUCN1yFAwpQWv8KUFr9W5S3AVuUtwDc2tL83NrS/zvcUwM73FMBkuBPAZLgTwGBGpL9gRqS/8xYEwPMWBMALDztACw87QLJbBsCyWwbAOibcvjom3L4tSD7ALUg+wCaiXUAmol1A/E1DQPxNQ0CyTdw/sk3cPyIiNsAiIjbAD8bRPw/G0T8+AHnAPgB5wC9vEjwvbxI8/lnavv5Z2r4aawnAGmsJwBFmxj8RZsY/7R2eP+0dnj8t71lALe9ZQIlIJ76JSCe+y13JP8tdyT9oO3a/aDt2v0UjOkBFIzpAmT9SwJk/UsC2WwXAtlsFwIlhub+JYbm/sBZoPrAWaD7kEri/5BK4vwIifkACIn5AILgcQCC4HEAxG2q/MRtqv1a4G79WuBu/fF26vnxdur7X28W/19vFvxhkaUAYZGlAUK06wFCtOsCFOl/AhTpfwEOq6r5Dquq+S4akP0uGpD+c0EBAnNBAQP7gaMD+4GjA9Pw2wPT8NsA5jy1AOY8tQFIUL0BSFC9A3/pXwN/6V8DxEEE+8RBBPrax2r62sdq+9V5vwPVeb8DOkp2/zpKdv8lGZz/JRmc/rwnWP68J1j/0QRXA9EEVwMk4KsDJOCrAQkSvPkJErz6Jyd08icndPFy1wb9ctcG/8obzP/KG8z+HbVJAh21SQNvkbcDb5G3Ar7HaPq+x2j4r0xu/K9Mbv72WJsC9libAP5yCPj+cgj6jmxY/o5sWP7Rq/L+0avy/P5oMwD+aDMDO40vAzuNLwCPELj8jxC4/UER0wFBEdMA9CrA/PQqwP05Suj5OUro+QFJ/P0BSfz8s9wpALPcKQOW4WkDluFpA4uXnv+Ll579IzFC+SMxQvmjVKEBo1ShAPsppwD7KacAmngdAJp4HQMv5Gr/L+Rq/4+pJwOPqScCiHog/oh6IP/563T/+et0/WQUlv1kFJb+Qo26/kKNuv/0Gob/9BqG/PAiwvzwIsL/MIwG/zCMBv92VFkDdlRZAt40xwLeNMcBptmpAabZqQJ4ltD+eJbQ/C4J5wAuCecDSBMo/0gTKP5COM8CQjjPAzYlpwM2JacAik/i+IpP4viNXWcAjV1nAftl2vn7Zdr4FxxBABccQQLDTAECw0wBAdesavnXrGr5pMUjAaTFIwKZv4r6mb+K+uP5Xv7j+V7/APdQ/wD3UP+8bgj/vG4I/tbM0QLWzNEC8xHpAvMR6QBD3OEAQ9zhAfoZbv36GW78Y0UbAGNFGwMLWBkDC1gZAJYhQwCWIUMCJ4LM/ieCzP2i99T5ovfU+gKmZP4CpmT9LEQLASxECwJ7qvz+e6r8/wMX9v8DF/b/+7W8//u1vP4zePcCM3j3A8qULQPKlC0AGWve/Blr3v8AqBsDAKgbAa9GcPmvRnD6UD88/lA/PPxsPnz8bD58/7/hawO/4WsCOHbs+jh27PhGZeEARmXhAmDtGQJg7RkATKvi/Eyr4v2OKPMBjijzAf7Slvn+0pb7CHxvAwh8bwGu3aEBrt2hAxucOP8bnDj8pnEa/KZxGv7N/mL6zf5i+P5P5vz+T+b+du0bAnbtGwB3+7L4d/uy+TJCNP0yQjT9UfmbAVH5mwA==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDgsIDY0KSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==", None),
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
