// RUN: mlir-opt-22 %s --affine-loop-fusion -o /dev/null
// Upstream MLIR (22.1.8) affine-loop-fusion: sibling fusion of the argmax loop (iter_args, result %r#1
// still used by the index_cast) with the nest that also reads %in erases the original loop although
// its result has a use. The post-pass verifier then reads the freed value (IndexCastOp::verify ->
// Type::isSignlessIntOrIndex) and segfaults (exit 139). Correct: valid IR, %r#1 still defined before
// its use. Dup of llvm/llvm-project#212046 (minimal form: #216464).
func.func @f(%in: memref<2xf32>, %idx: memref<1xi64>, %copy: memref<1x2xf32>) {
  %c0 = arith.constant 0 : index
  %init = affine.load %in[0] : memref<2xf32>
  %r:2 = affine.for %k = 1 to 2 iter_args(%best = %init, %bi = %c0) -> (f32, index) {
    %v = affine.load %in[%k] : memref<2xf32>
    %gt = arith.cmpf ogt, %v, %best : f32
    %nb = arith.select %gt, %v, %best : f32
    %ni = arith.select %gt, %k, %bi : index
    affine.yield %nb, %ni : f32, index
  }
  %i = arith.index_cast %r#1 : index to i64
  affine.store %i, %idx[0] : memref<1xi64>
  affine.for %a = 0 to 1 {
    affine.for %b = 0 to 2 {
      %t = affine.load %in[%b] : memref<2xf32>
      affine.store %t, %copy[%a, %b] : memref<1x2xf32>
    }
  }
  return
}
