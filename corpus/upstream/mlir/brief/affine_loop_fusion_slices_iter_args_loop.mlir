// RUN: mlir-opt-22 %s --affine-loop-fusion --convert-vector-to-scf --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-loop-fusion (producer-consumer): the producer's inner loop carries a
// row-wise prefix sum in iter_args; fusing it into the copy nest at full depth slices that loop to one
// iteration, promotes it and replaces %acc by its init 0, dropping the carry: out[i][r] = in[i][r].
// Correct prefix sums of [[1,2,3,4],[5,6,7,8]] (printed with --affine-loop-fusion removed) are below;
// with fusion it prints ( 1, 2, 3, 4 ) and ( 5, 6, 7, 8 ).
// CHECK: ( 1, 3, 6, 10 )
// CHECK-NEXT: ( 5, 11, 18, 26 )
memref.global "private" constant @g : memref<2x4xi32> = dense<[[1, 2, 3, 4], [5, 6, 7, 8]]>
func.func @main() {
  %zero = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %in = memref.get_global @g : memref<2x4xi32>
  %out = memref.alloc() : memref<2x4xi32>
  %buf = memref.alloc() : memref<2x4xi32>
  affine.for %i = 0 to 2 {
    %last = affine.for %r = 0 to 4 iter_args(%acc = %zero) -> (i32) {
      %x = affine.load %in[%i, %r] : memref<2x4xi32>
      %a = arith.addi %acc, %x : i32
      affine.store %a, %buf[%i, %r] : memref<2x4xi32>
      affine.yield %a : i32
    }
  }
  affine.for %i = 0 to 2 {
    affine.for %r = 0 to 4 {
      %x = affine.load %buf[%i, %r] : memref<2x4xi32>
      affine.store %x, %out[%i, %r] : memref<2x4xi32>
    }
  }
  %v0 = vector.load %out[%c0, %c0] : memref<2x4xi32>, vector<4xi32>
  vector.print %v0 : vector<4xi32>
  %v1 = vector.load %out[%c1, %c0] : memref<2x4xi32>, vector<4xi32>
  vector.print %v1 : vector<4xi32>
  return
}
