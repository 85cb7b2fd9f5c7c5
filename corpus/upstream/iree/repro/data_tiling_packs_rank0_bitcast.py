#!/usr/bin/env python3
"""A bug of IREE (iree-compile for llvm-cpu, and its runtime), as npufuzz
found and reduced it.

From: corpus/upstream/iree/data_tiling_packs_rank0_bitcast.npf

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
  func.func @npf_kernel(%in0_abi: tensor<1x1xi16>, %in1_abi: tensor<1x2xi16>) -> (tensor<1x2xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0x00000000 : f32
    %in0 = arith.bitcast %in0_abi : tensor<1x1xi16> to tensor<1x1xbf16>
    %in1 = arith.bitcast %in1_abi : tensor<1x2xi16> to tensor<1x2xbf16>
    // input
    // input
    // matmul
    %e1 = tensor.empty() : tensor<1x2xf32>
    %f2 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<1x2xf32>) -> tensor<1x2xf32>
    %mm3 = linalg.matmul ins(%in0, %in1 : tensor<1x1xbf16>, tensor<1x2xbf16>) outs(%f2 : tensor<1x2xf32>) -> tensor<1x2xf32>
    return %mm3 : tensor<1x2xf32>
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
    "--iree-dispatch-creation-enable-aggressive-fusion=true",
    "--iree-dispatch-creation-fuse-multi-use=true",
    "--iree-global-opt-propagate-transposes=true",
    "--iree-llvmcpu-target-cpu=host",
]

# The entry's arguments: ("input", dtype, the .npy bytes; bf16 as f32,
# exact), or ("valid_dim", None, a valid shape's extent).
_ARGS = [
    ("input", "bf16", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAA"),
    ("input", "bf16", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAA=="),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%2", "f32", ("reordered", 1.0000000000000001e-05, 9.9999999999999995e-07), "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAA==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQ==", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAQAAAA=="),
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
