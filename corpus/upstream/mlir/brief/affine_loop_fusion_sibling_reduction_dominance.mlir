// RUN: mlir-opt-22 %s --affine-loop-fusion --convert-vector-to-scf --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-loop-fusion: sibling fusion of the column-sum reduction (j outer, k inner
// with iter_args) into the nest reading %in row-wise (i outer, j inner) makes the dest's inner loop the
// reduction carrier and leaves the store of %s using that inner IV: mlir-opt fails with "operand #2
// does not dominate this use". Correct: valid IR, column sums of [[1,2,3],[4,5,6]] = ( 5, 7, 9 )
// (what the run prints with --affine-loop-fusion removed).
// CHECK: ( 5, 7, 9 )
memref.global "private" constant @g : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
func.func @k(%in: memref<2x3xf32>, %sum: memref<3xf32>, %neg: memref<2x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %s0 = memref.alloc() : memref<3xf32>
  affine.for %j = 0 to 3 {
    %s = affine.for %k = 0 to 2 iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %in[%k, %j] : memref<2x3xf32>
      %a = arith.addf %acc, %x : f32
      affine.yield %a : f32
    }
    affine.store %s, %s0[%j] : memref<3xf32>
  }
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 3 {
      %x = affine.load %in[%i, %j] : memref<2x3xf32>
      %n = arith.negf %x : f32
      affine.store %n, %neg[%i, %j] : memref<2x3xf32>
    }
  }
  memref.copy %s0, %sum : memref<3xf32> to memref<3xf32>
  return
}
func.func @main() {
  %in = memref.get_global @g : memref<2x3xf32>
  %sum = memref.alloc() : memref<3xf32>
  %neg = memref.alloc() : memref<2x3xf32>
  func.call @k(%in, %sum, %neg) : (memref<2x3xf32>, memref<3xf32>, memref<2x3xf32>) -> ()
  %c0 = arith.constant 0 : index
  %v = vector.load %sum[%c0] : memref<3xf32>, vector<3xf32>
  vector.print %v : vector<3xf32>
  return
}
