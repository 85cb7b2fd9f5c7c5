"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

s = x[:, :, 1:2]; out[i, j] = s[2 * i + j, 0, 0]. Lowering the tensor.extract from the slice
leaves a builtin.unrealized_conversion_cast ("LLVM Translation failed for operation")."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%x: tensor<4x1x2xf32>) -> tensor<2x2xf32> {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %s = tensor.extract_slice %x[0, 0, 1] [4, 1, 1] [1, 1, 1] : tensor<4x1x2xf32> to tensor<4x1x1xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %m = arith.muli %i, %c2 : index
    %k = arith.addi %m, %j : index
    %t = tensor.extract %s[%k, %c0, %c0] : tensor<4x1x1xf32>
    linalg.yield %t : f32
  } -> tensor<2x2xf32>
  return %v : tensor<2x2xf32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.arange(8, dtype=np.float32).reshape(4, 1, 2)]
want = np.array([[1.0, 3.0], [5.0, 7.0]], np.float32)
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
