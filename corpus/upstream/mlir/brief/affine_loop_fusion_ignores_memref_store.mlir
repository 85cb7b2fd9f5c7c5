// RUN: mlir-opt-22 %s --affine-loop-fusion --convert-vector-to-scf --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-loop-fusion: producer-consumer fusion moves the loop that clears the
// %taken mask into the inner j loop of the top-2 selection, i.e. under the pick loop r. The clear then
// re-runs on every r and erases the mark the consumer wrote with memref.store %taken[%p#1], so both
// picks return the same element. Correct top-2 indices of [3, 1, 4, 2] are ( 2, 0 ) (printed with
// --affine-loop-fusion removed); with fusion it prints ( 2, 2 ).
// CHECK: ( 2, 0 )
memref.global "private" constant @g : memref<4xf32> = dense<[3.0, 1.0, 4.0, 2.0]>
func.func @main() {
  %true = arith.constant true
  %false = arith.constant false
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %in = memref.get_global @g : memref<4xf32>
  %out = memref.alloc() : memref<2xi64>
  %taken = memref.alloc() : memref<4xi1>
  affine.for %j = 0 to 4 {
    affine.store %false, %taken[%j] : memref<4xi1>
  }
  affine.for %r = 0 to 2 {
    %p:2 = affine.for %j = 0 to 4 iter_args(%bv = %ninf, %bi = %c0) -> (f32, index) {
      %t = affine.load %taken[%j] : memref<4xi1>
      %x = affine.load %in[%j] : memref<4xf32>
      %gt = arith.cmpf ogt, %x, %bv : f32
      %free = arith.xori %t, %true : i1
      %ok = arith.andi %gt, %free : i1
      %nbv = arith.select %ok, %x, %bv : f32
      %nbi = arith.select %ok, %j, %bi : index
      affine.yield %nbv, %nbi : f32, index
    }
    memref.store %true, %taken[%p#1] : memref<4xi1>
    %i = arith.index_cast %p#1 : index to i64
    affine.store %i, %out[%r] : memref<2xi64>
  }
  %v = vector.load %out[%c0] : memref<2xi64>, vector<2xi64>
  vector.print %v : vector<2xi64>
  return
}
