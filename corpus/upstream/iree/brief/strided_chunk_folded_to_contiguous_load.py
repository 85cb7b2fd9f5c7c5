"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

s = x[:, 2:4] (a strided 2x2 slice of a 2x4 input); out[j] = s[j / 2, j % 2] = [2, 3, 6, 7]
for x = arange(8). IREE reads 4 contiguous elements from x[0, 2] instead: [2, 3, 4, 5]."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%x: tensor<2x4xf32>) -> tensor<4xf32> {
  %c2 = arith.constant 2 : index
  %s = tensor.extract_slice %x[0, 2] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<4xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32):
    %j = linalg.index 0 : index
    %r = arith.divui %j, %c2 : index
    %m = arith.muli %r, %c2 : index
    %c = arith.subi %j, %m : index
    %t = tensor.extract %s[%r, %c] : tensor<2x2xf32>
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %v : tensor<4xf32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.arange(8, dtype=np.float32).reshape(2, 4)]
want = x[0][:, 2:4].reshape(4)
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
