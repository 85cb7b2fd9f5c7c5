"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

A host-side scf.for tensor.inserts x[k, 0] into a tensor.empty iter_arg at [k, 0], one element
per iteration, so out == x == [[1], [2]]. IREE lowers each insert to a stream fill of the whole
tensor, giving [[2], [2]] (a wrong value; bigger top-k kernels of this shape, with two such
iter_args, fail instead with OUT_OF_RANGE at runtime or "stream.async.fill ... length > resource size")."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%x: tensor<2x1xf32>) -> tensor<2x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<2x1xf32>
  %o = scf.for %k = %c0 to %c2 step %c1 iter_args(%t = %e) -> tensor<2x1xf32> {
    %v = tensor.extract %x[%k, %c0] : tensor<2x1xf32>
    %n = tensor.insert %v into %t[%k, %c0] : tensor<2x1xf32>
    scf.yield %n : tensor<2x1xf32>
  }
  return %o : tensor<2x1xf32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.array([[1.0], [2.0]], np.float32)]
want = x[0].copy()
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
