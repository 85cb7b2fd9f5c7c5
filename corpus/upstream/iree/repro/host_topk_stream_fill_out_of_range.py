#!/usr/bin/env python3
"""A bug of IREE (iree-compile for llvm-cpu, and its runtime), as npufuzz
found and reduced it.

From: corpus/upstream/iree/host_topk_stream_fill_out_of_range.npf

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
  func.func @npf_kernel(%in0: tensor<1x1x1x2x1xf32>, %in1: tensor<1x1x1x2x1xi64>) -> (tensor<1x1x1x2x1xi8>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant true
    %c1 = arith.constant false
    %c2 = arith.constant 0 : index
    %c3 = arith.constant 1 : index
    %c18 = arith.constant 2 : index
    %c30 = arith.constant 0x00000000 : f32
    // input
    // topk
    %e4 = tensor.empty() : tensor<1x1x1x2x1xf32>
    %e5 = tensor.empty() : tensor<1x1x1x2x1xi64>
    %tk6:2 = scf.for %o7 = %c2 to %c3 step %c3 iter_args(%v8 = %e4, %x9 = %e5) -> (tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>) {
      %tk10:2 = scf.for %o11 = %c2 to %c3 step %c3 iter_args(%v12 = %v8, %x13 = %x9) -> (tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>) {
        %tk14:2 = scf.for %o15 = %c2 to %c18 step %c3 iter_args(%v16 = %v12, %x17 = %x13) -> (tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>) {
          %tk19:2 = scf.for %o20 = %c2 to %c3 step %c3 iter_args(%v21 = %v16, %x22 = %x17) -> (tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>) {
            %sel29:5 = scf.for %r23 = %c2 to %c3 step %c3 iter_args(%pv24 = %c30, %pi25 = %c2, %hp26 = %c1, %tv27 = %v21, %ti28 = %x22) -> (f32, index, i1, tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>) {
              %pick35:3 = scf.for %j31 = %c2 to %c3 step %c3 iter_args(%bv32 = %c30, %bi33 = %c2, %has34 = %c1) -> (f32, index, i1) {
                %t36 = tensor.extract %in0[%o7, %j31, %o11, %o15, %o20] : tensor<1x1x1x2x1xf32>
                %t38 = arith.cmpf ogt, %pv24, %t36 : f32
                %t39 = arith.cmpf uno, %pv24, %pv24 : f32
                %t40 = arith.cmpf ord, %t36, %t36 : f32
                %t41 = arith.andi %t39, %t40 : i1
                %t37 = arith.ori %t38, %t41 : i1
                %t43 = arith.cmpf ogt, %t36, %pv24 : f32
                %t44 = arith.cmpf uno, %t36, %t36 : f32
                %t45 = arith.cmpf ord, %pv24, %pv24 : f32
                %t46 = arith.andi %t44, %t45 : i1
                %t42 = arith.ori %t43, %t46 : i1
                %t47 = arith.xori %t42, %c0 : i1
                %t48 = arith.cmpi sgt, %j31, %pi25 : index
                %t49 = arith.andi %t47, %t48 : i1
                %t50 = arith.ori %t37, %t49 : i1
                %t51 = arith.xori %hp26, %c0 : i1
                %t52 = arith.ori %t51, %t50 : i1
                %t54 = arith.cmpf ogt, %t36, %bv32 : f32
                %t55 = arith.cmpf uno, %t36, %t36 : f32
                %t56 = arith.cmpf ord, %bv32, %bv32 : f32
                %t57 = arith.andi %t55, %t56 : i1
                %t53 = arith.ori %t54, %t57 : i1
                %t58 = arith.xori %has34, %c0 : i1
                %t59 = arith.ori %t58, %t53 : i1
                %t60 = arith.andi %t59, %t52 : i1
                %t61 = arith.select %t60, %t36, %bv32 : f32
                %t62 = arith.select %t60, %j31, %bi33 : index
                %t63 = arith.ori %has34, %t60 : i1
                scf.yield %t61, %t62, %t63 : f32, index, i1
              }
              %t64 = tensor.insert %pick35#0 into %tv27[%o7, %r23, %o11, %o15, %o20] : tensor<1x1x1x2x1xf32>
              %t65 = arith.index_cast %pick35#1 : index to i64
              %t66 = tensor.insert %t65 into %ti28[%o7, %r23, %o11, %o15, %o20] : tensor<1x1x1x2x1xi64>
              scf.yield %pick35#0, %pick35#1, %c0, %t64, %t66 : f32, index, i1, tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>
            }
            scf.yield %sel29#3, %sel29#4 : tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>
          }
          scf.yield %tk19#0, %tk19#1 : tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>
        }
        scf.yield %tk14#0, %tk14#1 : tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>
      }
      scf.yield %tk10#0, %tk10#1 : tensor<1x1x1x2x1xf32>, tensor<1x1x1x2x1xi64>
    }
    // input
    // le
    %e67 = tensor.empty() : tensor<1x1x1x2x1xi1>
    %ew68 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%tk6#1, %in1 : tensor<1x1x1x2x1xi64>, tensor<1x1x1x2x1xi64>) outs(%e67 : tensor<1x1x1x2x1xi1>) {
    ^bb0(%a69: i64, %a70: i64, %a71: i1):
      %t72 = arith.cmpi sle, %a69, %a70 : i64
      linalg.yield %t72 : i1
    } -> tensor<1x1x1x2x1xi1>
    %res73 = arith.extui %ew68 : tensor<1x1x1x2x1xi1> to tensor<1x1x1x2x1xi8>
    return %res73 : tensor<1x1x1x2x1xi8>
  }
}
'''

_ENTRY = "npf_kernel"

# iree-compile's flags as the finding ran it.
_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-opt-level=O2",
    "--iree-opt-data-tiling=false",
    "--iree-dispatch-creation-enable-aggressive-fusion=true",
    "--iree-dispatch-creation-fuse-multi-use=true",
    "--iree-global-opt-propagate-transposes=true",
    "--iree-llvmcpu-target-cpu=host",
]

# The entry's arguments: ("input", dtype, the .npy bytes; bf16 as f32,
# exact), or ("valid_dim", None, a valid shape's extent).
_ARGS = [
    ("input", "f32", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEsIDEsIDIsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAA=="),
    ("input", "i64", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEsIDEsIDIsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAA"),
]

# (value, dtype, how compared, expected .npy, its defined elements, the
# bound of a reordered sum's error)
_OUTPUTS = [
    ("%4", "i1", "exact", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEsIDEsIDIsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQ==", "k05VTVBZAQB2AHsnZGVzY3InOiAnfGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsIDEsIDEsIDIsIDEpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAQ==", None),
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
