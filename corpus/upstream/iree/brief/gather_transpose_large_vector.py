"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

out = transpose(gather(acc + a @ b, idx)) with data tiling on: the fused dispatch is vectorized
into a vector<512x4x1xf32> ("One or more operations with large vector sizes (8192 bytes)")."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%a: tensor<2x3xf32>, %b: tensor<3x1xf32>, %acc: tensor<2x1xf32>, %idx: tensor<2x512xi32>) -> tensor<512x2xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x1xf32>) outs(%acc : tensor<2x1xf32>) -> tensor<2x1xf32>
  %e = tensor.empty() : tensor<2x512xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<2x512xi32>) outs(%e : tensor<2x512xf32>) {
  ^bb0(%k: i32, %o: f32):
    %c = arith.index_cast %k : i32 to index
    %r = linalg.index 0 : index
    %v = tensor.extract %mm[%r, %c] : tensor<2x1xf32>
    linalg.yield %v : f32
  } -> tensor<2x512xf32>
  %e2 = tensor.empty() : tensor<512x2xf32>
  %t = linalg.transpose ins(%g : tensor<2x512xf32>) outs(%e2 : tensor<512x2xf32>) permutation = [1, 0]
  return %t : tensor<512x2xf32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-opt-data-tiling=true", "--iree-global-opt-propagate-transposes=false"]
print("iree", VERSION)
x = [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((3, 1), np.float32), np.ones((2, 1), np.float32), np.zeros((2, 512), np.int32)]
want = np.tile(np.array([4.0, 13.0], np.float32), (512, 1))  # acc + a @ b = [[4], [13]]
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
