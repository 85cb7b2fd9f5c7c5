#!/usr/bin/env python3
"""A bug of IREE (iree-compile for llvm-cpu, and its runtime), as npufuzz
found and reduced it.

From: corpus/upstream/iree/workgroup_count_hint_unresolved.npf

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
  func.func @npf_kernel(%in0: tensor<1x1xi32>, %in1: tensor<1x1xi32>, %vdim0_r_abi: i64, %vdim0_c_abi: i64) -> (tensor<1x1xi32>, tensor<1x1xi64>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant true
    %c4 = arith.constant false
    %c5 = arith.constant 1 : index
    %c19 = arith.constant 0 : i32
    %vdim0_r = arith.index_cast %vdim0_r_abi : i64 to index
    %vdim0_c = arith.index_cast %vdim0_c_abi : i64 to index
    // input
    // input
    // insert
    %region1 = tensor.extract_slice %in0[%c0, %c0] [%vdim0_r, %vdim0_c] [1, 1] : tensor<1x1xi32> to tensor<?x?xi32>
    %ins2 = tensor.insert_slice %region1 into %in1[0, 0] [%vdim0_r, %vdim0_c] [1, 1] : tensor<?x?xi32> into tensor<1x1xi32>
    // topk
    %e6 = tensor.empty() : tensor<1x1xi32>
    %e7 = tensor.empty() : tensor<1x1xi64>
    %tk8:2 = scf.for %o9 = %c0 to %c5 step %c5 iter_args(%v10 = %e6, %x11 = %e7) -> (tensor<1x1xi32>, tensor<1x1xi64>) {
      %sel18:5 = scf.for %r12 = %c0 to %c5 step %c5 iter_args(%pv13 = %c19, %pi14 = %c0, %hp15 = %c4, %tv16 = %v10, %ti17 = %x11) -> (i32, index, i1, tensor<1x1xi32>, tensor<1x1xi64>) {
        %pick24:3 = scf.for %j20 = %c0 to %c5 step %c5 iter_args(%bv21 = %c19, %bi22 = %c0, %has23 = %c4) -> (i32, index, i1) {
          %t25 = tensor.extract %ins2[%o9, %j20] : tensor<1x1xi32>
          %t26 = arith.cmpi sgt, %pv13, %t25 : i32
          %t27 = arith.cmpi sgt, %t25, %pv13 : i32
          %t28 = arith.xori %t27, %c3 : i1
          %t29 = arith.cmpi sgt, %j20, %pi14 : index
          %t30 = arith.andi %t28, %t29 : i1
          %t31 = arith.ori %t26, %t30 : i1
          %t32 = arith.xori %hp15, %c3 : i1
          %t33 = arith.ori %t32, %t31 : i1
          %t34 = arith.cmpi sgt, %t25, %bv21 : i32
          %t35 = arith.xori %has23, %c3 : i1
          %t36 = arith.ori %t35, %t34 : i1
          %t37 = arith.andi %t36, %t33 : i1
          %t38 = arith.select %t37, %t25, %bv21 : i32
          %t39 = arith.select %t37, %j20, %bi22 : index
          %t40 = arith.ori %has23, %t37 : i1
          scf.yield %t38, %t39, %t40 : i32, index, i1
        }
        %t41 = tensor.insert %pick24#0 into %tv16[%o9, %r12] : tensor<1x1xi32>
        %t42 = arith.index_cast %pick24#1 : index to i64
        %t43 = tensor.insert %t42 into %ti17[%o9, %r12] : tensor<1x1xi64>
        scf.yield %pick24#0, %pick24#1, %c3, %t41, %t43 : i32, index, i1, tensor<1x1xi32>, tensor<1x1xi64>
      }
      scf.yield %sel18#3, %sel18#4 : tensor<1x1xi32>, tensor<1x1xi64>
    }
    return %tk8#0, %tk8#1 : tensor<1x1xi32>, tensor<1x1xi64>
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
    "--iree-llvmcpu-target-cpu=generic",
]

# The entry's arguments: ("input", dtype, the .npy bytes; bf16 as f32,
# exact), or ("valid_dim", None, a valid shape's extent).
_ARGS = [
    ("input", "i32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAA"),
    ("input", "i32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAA"),
    ("valid_dim", None, 1),
    ("valid_dim", None, 1),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%3", "i32", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAA", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoB", None),
    ("%4", "i64", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAA==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoB", None),
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
