"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do."""
import sys

try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''module {
  func.func @kernel(%in0_abi: tensor<1x1xi16>, %in1_abi: tensor<1x2xi16>) -> (tensor<1x2xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0x00000000 : f32
    %in0 = arith.bitcast %in0_abi : tensor<1x1xi16> to tensor<1x1xbf16>
    %in1 = arith.bitcast %in1_abi : tensor<1x2xi16> to tensor<1x2xbf16>
    %e1 = tensor.empty() : tensor<1x2xf32>
    %f2 = linalg.fill ins(%c0 : f32) outs(%e1 : tensor<1x2xf32>) -> tensor<1x2xf32>
    %mm3 = linalg.matmul ins(%in0, %in1 : tensor<1x1xbf16>, tensor<1x2xbf16>) outs(%f2 : tensor<1x2xf32>) -> tensor<1x2xf32>
    return %mm3 : tensor<1x2xf32>
  }
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-opt-data-tiling=true"]
print("iree", VERSION)
np.set_printoptions(threshold=64, edgeitems=4)
x = [np.array([0], dtype=np.uint16).reshape(1, 1),
     np.array([0, 0], dtype=np.uint16).reshape(1, 2)]
# The program's semantics (bf16 as f32 values): what IREE must give.
want = [np.array([0.0, 0.0], dtype=np.float32).reshape(1, 2)]
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x)
got = [np.asarray(g.to_host()) for g in (got if isinstance(got, (list, tuple)) else [got])]
tolerance = [(1.3e-6, 1e-5)]
bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))
       if not np.allclose(g.astype(float), w.astype(float), rtol, atol, equal_nan=True)
       or (w.dtype.kind == "f" and ((np.abs(g) <= atol * (rtol == 0)) & (np.abs(w) <= atol * (rtol == 0))
                                   & (np.signbit(g) != np.signbit(w))).any())]
for k in bad:
    print("output %d differs\n  IREE:     %s\n  expected: %s" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
