"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do."""
import sys

try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''module {
  func.func @kernel(%in0: tensor<1x1x1xi32>, %in1: tensor<2x1x1xi32>) -> (tensor<2x1x1xi32>, tensor<2x1x1xi32>) attributes {llvm.emit_c_interface} {
    %ins0 = tensor.insert_slice %in0 into %in1[0, 0, 0] [1, 1, 1] [1, 1, 1] : tensor<1x1x1xi32> into tensor<2x1x1xi32>
    %e2 = tensor.empty() : tensor<2x1x1xi32>
    %tr1 = linalg.transpose ins(%in1 : tensor<2x1x1xi32>) outs(%e2 : tensor<2x1x1xi32>) permutation = [0, 2, 1]
    return %ins0, %tr1 : tensor<2x1x1xi32>, tensor<2x1x1xi32>
  }
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
np.set_printoptions(threshold=64, edgeitems=4)
x = [np.array([0], dtype=np.int32).reshape(1, 1, 1),
     np.array([-5, 7], dtype=np.int32).reshape(2, 1, 1)]
# The program's semantics (bf16 as f32 values): what IREE must give.
want = [np.array([0, 7], dtype=np.int32).reshape(2, 1, 1),
        np.array([-5, 7], dtype=np.int32).reshape(2, 1, 1)]
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x)
got = [np.asarray(g.to_host()) for g in (got if isinstance(got, (list, tuple)) else [got])]
tolerance = [(0, 0), (0, 0)]
bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))
       if not np.allclose(g.astype(float), w.astype(float), rtol, atol, equal_nan=True)
       or (w.dtype.kind == "f" and ((np.abs(g) <= atol * (rtol == 0)) & (np.abs(w) <= atol * (rtol == 0))
                                   & (np.signbit(g) != np.signbit(w))).any())]
for k in bad:
    print("output %d differs\n  IREE:     %s\n  expected: %s" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
