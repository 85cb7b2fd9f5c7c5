#!/usr/bin/env python3
"""A bug of IREE (iree-compile for llvm-cpu, and its runtime), as npufuzz
found and reduced it.

From: corpus/upstream/iree/erf_negative_zero.npf

Run it with python3 (it needs numpy, and IREE's iree-base-compiler and
iree-base-runtime). _MLIR below is the case's program on tensors. The
script compiles it with iree-compile and the flags the finding ran with,
runs its entry on the embedded inputs with IREE's runtime on one thread,
compares each result with the expected one embedded (the program's
semantics, as npufuzz's reference computes them, on a CPU that flushes
subnormals as IREE's runtime does; elements outside an output's valid
region are not compared) and exits 1 when they differ or compiling or
running fails, 0 when they agree, 2 when numpy or IREE is not
installed. A value the compiler may round otherwise is compared within
its type's tolerance, a float sum it may add in another order within a
bound on its terms; one it may decide otherwise is not compared.
"""
import base64
import io
import os
import subprocess
import sys
import tempfile
import traceback

try:
    import numpy as np
except ImportError as e:  # nothing to show without it
    print("numpy is not installed (%s)" % e)
    sys.exit(2)

_MLIR = r'''module {
  func.func @npf_kernel(%in0: tensor<154x2xf32>) -> (tensor<154x2xf32>) attributes {llvm.emit_c_interface} {
    %c4 = arith.constant 0x3F800000 : f32
    %c5 = arith.constant 0x00000000 : f32
    // input
    // erf
    %e0 = tensor.empty() : tensor<154x2xf32>
    %ew1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in0 : tensor<154x2xf32>) outs(%e0 : tensor<154x2xf32>) {
    ^bb0(%a2: f32, %a3: f32):
      %t6 = math.erf %a2 : f32
      linalg.yield %t6 : f32
    } -> tensor<154x2xf32>
    return %ew1 : tensor<154x2xf32>
  }
}
'''

_ENTRY = "npf_kernel"

# iree-compile's flags as the finding ran it.
_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-opt-level=O0",
    "--iree-opt-data-tiling=true",
    "--iree-dispatch-creation-enable-aggressive-fusion=false",
    "--iree-dispatch-creation-fuse-multi-use=true",
    "--iree-global-opt-propagate-transposes=true",
    "--iree-llvmcpu-target-cpu=generic",
]

# The entry's arguments: ("input", dtype, the .npy bytes; bf16 as f32,
# exact), or ("valid_dim", None, a valid shape's extent).
_ARGS = [
    ("input", "f32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE1NCwgMiksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArVm7o/2wirv4Psc0CCSbg/79AawEgL774PV3LAluNevwAAAAB2nJQ//j8Bv5tQZcBFyjJA20sfv4qa0r+zoDzA94VLPwAAgLrPufi/oTdDwIH9k76khLW/G3Ttvz4zXUDrKLE+AACAOqxiGT847Ic/04cXv46LcMARwnjAdC8iwI6DSEDMSbM/8uGePrhy5L2FejvA81ttwKxBfkDJmtq/nlPjP05Djz+IGAlAlw3BP54FIkADm3hAYlEwwFutA8ByBxw9c6HGP1YfJkAcqI6/2p+8vp8/esD8gk/A4DkDQJCQPb+PU7O/YqFgwAnk8z/V4zLALTvjP9A9Vb+FtWDARldawNZjLMAM21XAAAAAAOBMD0AD4ExAA6ukP96w4b9td3BA8C4nwM63fsDQxkG+7qDhv+oppj8Wggu/AACAusUzHL8ktNO+SX2GviW7JsAySyXA5Jd9wCyIkb8QDf698IYaQIcdj7yLlCTAF7hRQIeyF8Abtsi/MHRaQLm6NEAi80fA/t05QFRZW8A8KXm/QyhrP/CNMr3/KbE/cc7Hvzrdc8Cphg5AZZQTwAQ3EcBfqVxAA1AsP/MrEsCKWWZAq2XmPZWT6r9jN5++PikMvLRWuL+2A+W/r9tXPyWETUCiP0FACDvtPyNGd0CBdQ3AopSlPujuJMA8IhxA2pwdv3xZDsCEUXlA9FI3QBNGIsAAAAAAnemgP9488z+eFlhAFuFswBBzOUCMZn9Aa292wKD0BUCvUT+/lB9qQE6DOL9O7WDA////fq/kbsDP1E/AK4duQCPHvz/yqBLAP10RwIWsecBnGOk/OZHjP5sEfr/+wpK/j7hGwFQXacD//39/6R58PiuZAcCbvijAFSNQwPWPLEA8FJI/fk0yPyjCWkDgfPO/+Px8P0rWDL+npeW/RVHCPwC+v78AgwhABDUkwEjPMkDpQFo/Hvw+QE9pJ78AAACAJ5/8v5LbK8CtP0VAYCoMQMODIcAsDVW/0H10wHy15L+4WrA/rpCAPwAAAACNdC5AxQxIPr/xUb0TpbW/4CPHvGbz8b/tcyJA2YQ/v1JxRcCicXU/yLnePmMepz5XVT/AMh8OQDRU1j8qVdk/XjoKPwAAAADexyFAUOm4P2RRfcBeZ24/RR40P/hiIEA6t2g+UohJQCPMVL+6xDXAQXiVvu21xz8QDKI/ACBvwNzcNkAAultA1uPnv16ZmT7vj3JALMtNwFk8BsCevTPAN3Jav1oGH0BWGXHA/wmdPgAAgDr9jh3Ai7YiP1jamL/nlcy/lwzfvwsgj78UyVu/ZrACQJQRgz9l1vm+gZqsvzF2e8Bat2BAWKDjPrEEyL/4Mz3AyShoQH6XHEDGIQbAxaEnQBPFgb/1QTLA7Egnv1BYfT8DuwA/Y86avhLnMcAVVrw/KmkTwBShRsB8QhnAYmhAQABYH0D/uXPAHtrvv7WGkj+jjCE/NTgJvs6DQEAOkABANNRMwB1Jvz8AAAAAnK8+v9iMcj/R/AhAcGeLP+s0CUBlA5s/Ryzkv84UXcCNYVO/AAAAAFh7RMDfQ1bA3Vciv0cUPcBw1BlAhHpgQI0o8r/aBg4/i8QZwBvBKUDynss/nAPoP4G24z5Gins/HR+5P09MRb4tlwFAwKANPw=="),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%1", "f32", ("approx", 1.0000000000000001e-05, 9.9999999999999995e-07), "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE1NCwgMiksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIArz9HU/dvJwv///fz+JUHU/HNd/v/pZ+77//3+/VSNIvwAAAADhPmY//1cGv/n/f7/l+n8/8AIfvxXjer/9/X+/Fzc9P7dukLoed36/8/5/v/Vzor7hgHS/qMV9v+//fz9BNMA+t26QOg1rGj8W6V0/O/MYv/7/f7///3+/z+l/v2L/fz8i0HM/CLCtPgBbAL7A/X+//f9/vwAAgD+F+Xu/a+x8P4T0Yj9sX38/AZJ3P4Dpfz///38/mPl/v+USf7+P+S89S8h4Pyjwfz/pj2K/KJfLvv//f7+0/3+/OQt/P5t6NL8703O/9P9/vzMyfj/x+n+/D+p8P1PeQr/0/3+/6P9/v972f7/a/3+/AAAAAOWafz+c/38/PF9uPynDfL/+/38/jPF/vwAAgL9BEli+jsF8v+YBbz9vIQ+/t26QuoyfHL9h8OG++lWUvvjwf7/77n+/AACAv7RjZL/jmQ6+I9Z/P9F4obzo7X+/xP9/P2/Lf7/GMXm/6f9/P7z7fz9Z/3+/YP1/P+v/f7/m0FS/U1tOP31ZSb2MH3M/jgR5v///f7/IlH8/Q7d/v6iof7/u/38/l6ooP92uf7/6/38//nABPiqOfb+SB66+qSYevEhUdb8SFX2/yFREP6L/fz+4/n8/hcF9P///fz/Oi3+/Aoa0PnLuf79G238/Y7cdv1iTf7///38/qPx/P/rpf78AAAAAtrBsPxoofj/i/38//f9/v0X9fz8AAIA///9/v2c2fz8AnjW//P9/P+0iMb/1/3+/AACAP/7/f7+3/3+//v9/PxtFdz/fsX+/p6l/v///f7/Cb30/VfJ8P/vmVr+hJGW/Q/9/v/z/f78AAIA/0GuLPqDtfr9k83+/uf9/vwL3fz8PumQ/M+UsP+r/fz/+K36/ZndWP989EL/RI32/Adx3P+xCd79sWH8/Ue1/v+f6fz/4pUU/Z/5/PwQbJb8AAACAv6d+v2z2f78k/38//n9/P4Tof7/iwkK///9/v9oNfb8R2nI/0zJYPwAAAABq+H8/mORePoOwbL2qinS/TangvKATfr9O6n8/Ab81vyn/f7+XKlM/wFPsPs0Vtj50/n+/dpF/P/1rez8U0Xs/6Q0OPwAAAAAK6X8/mX11PwAAgL/46U8/eCYuPy7mfz/sEYE+cv9/PySeQr8h/H+/v/yjvrb/eD8tNm0//v9/v4L8fz/s/38/DVZ9v4dBqD7//38/pf9/v2s6f79T+3+/2MBFvxLjfz/+/3+/2MurPrdukDpV33+/e5shP1ujaL9d6Hm/fHx8v8HdYr/Neka/ywF/P+43Wj8khgK/BIhxvwAAgL/1/38/aeLwPjsPeb8Z/n+/+/9/P6Hcfz/wOH+/GvJ/PzYuWb+j+n+/LgMlvymeVj+X4wU/+3+pvnb6f7/IaXY/TbZ/v0H/f7+f0X+/nP5/P9Tjfz///3+/g/B9vwMAZT9muiA/8+kZvqD+fz8k2X4/m/9/v80mdz8AAAAAMDU1v5fZUT8lXn8/u2FgP7hgfz88yWk/CgF9v+//f78v0EG/AAAAABP/f7/b/3+/FlQhvxP+f7+1038/9P9/P/sWfr8jOxE/fNN/v3b0fz+GvHk/vVh9P+728D7/2FU/oIx1Pw/nW7567X4/YeYQPw==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDE1NCwgMiksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==", None),
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


def _compiler():
    # The iree-compile binary that pip's iree-base-compiler installs, else
    # the one on PATH.
    try:
        from iree.compiler.tools.binaries import find_tool
        return find_tool("iree-compile")
    except Exception:
        return "iree-compile"


# numpy types of the kernel's ABI: bf16 travels as its bits, i1 as i8.
_ABI = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "i8": np.int8,
        "i32": np.int32, "i64": np.int64, "index": np.int64, "i1": np.int8}
# The smallest normal of each float type: IREE's CPU runtime flushes
# subnormals, so a subnormal and the zero of its sign are one value.
_TINY = {"f32": 2.0 ** -126, "bf16": 2.0 ** -126, "f16": 2.0 ** -14}


def _argument(kind, dtype, value):
    if kind == "valid_dim":
        return int(value)
    a = _array(value)
    if dtype == "bf16":  # the upper half of f32's bits
        a = np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16
    return np.ascontiguousarray(a.astype(_ABI[dtype]))


def _result(dtype, a):
    a = np.asarray(a)
    if dtype == "i1":
        return a != 0
    if dtype == "bf16":
        return (a.astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a


def _run(vmfb, out_dir):
    from iree import runtime
    # One thread (local-sync), as npufuzz ran it.
    context = runtime.SystemContext(config=runtime.Config("local-sync"))
    with open(vmfb, "rb") as f:
        context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, f.read()))
    results = context.modules.module[_ENTRY](*[_argument(*a) for a in _ARGS])
    if not isinstance(results, (list, tuple)):
        results = [results]
    for k, r in enumerate(results):
        np.save(os.path.join(out_dir, "out%d.npy" % k),
                np.asarray(r.to_host() if hasattr(r, "to_host") else r))


def main():
    # Without IREE there is nothing to show: exit 2, never "the bug shows".
    try:
        from iree import runtime  # noqa: F401
    except ImportError as e:
        print("IREE's runtime is not installed (%s): pip install iree-base-runtime" % e)
        return 2
    with tempfile.TemporaryDirectory() as d:
        source, vmfb = os.path.join(d, "kernel.mlir"), os.path.join(d, "kernel.vmfb")
        with open(source, "w") as f:
            f.write(_MLIR)
        try:
            p = subprocess.run([_compiler()] + _FLAGS + [source, "-o", vmfb],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True)
        except OSError as e:
            print("iree-compile cannot start (%s): pip install iree-base-compiler" % e)
            return 2
        if p.returncode != 0:
            sys.stdout.write(p.stderr[-4000:])
            print("iree-compile failed (exit %d): the bug shows" % p.returncode)
            return 1
        # The module runs in a child: one that faults ends the child.
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _run(vmfb, d)
            except Exception:
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            print("the module died of signal %d: the bug shows" % os.WTERMSIG(status))
            return 1
        if os.WEXITSTATUS(status) != 0:
            print("IREE's runtime failed: the bug shows")
            return 1
        failed = False
        for k, (name, dtype, how, values, mask, bound) in enumerate(_OUTPUTS):
            want, defined = _array(values), _array(mask).astype(bool)
            if not os.path.exists(os.path.join(d, "out%d.npy" % k)):
                print("the module returned no result %d: the bug shows" % k)
                return 1
            got = _result(dtype, np.load(os.path.join(d, "out%d.npy" % k)))
            bad = _mismatches(got, want, defined, how, _array(bound) if bound else None,
                              _TINY.get(dtype, 0.0))
            if not bad:
                continue
            failed = True
            first = bad[0]
            print("output %d (%s, %s): %d of %d elements differ; first %s: expected %r, got %r"
                  % (k, name, dtype, len(bad), int(defined.sum()), list(first),
                     want[first].item(), got.reshape(want.shape)[first].item()))
    print("the bug shows" if failed else "no difference: the bug does not show")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
