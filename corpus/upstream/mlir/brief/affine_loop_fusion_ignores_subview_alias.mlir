// RUN: mlir-opt-22 %s --affine-loop-fusion --convert-vector-to-scf --lower-affine --expand-strided-metadata --convert-scf-to-cf --finalize-memref-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-loop-fusion keys dependences by memref SSA value, so it misses that
// %view (memref.subview of %buf) aliases %buf. Sibling fusion (nests 1 and 3 both read %in) moves the
// writer of %buf into the last nest, after nest 2 has read %buf through %view: %out0 gets %buf's old
// contents (zeros) instead of in+in. Correct %out0 = ( 2, 4, 6, 8 ), printed with
// --affine-loop-fusion removed; with fusion it prints ( 0, 0, 0, 0 ).
// CHECK: ( 2, 4, 6, 8 )
memref.global "private" constant @g : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" @b : memref<4xf32> = dense<0.0>
func.func @k(%in: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>, %buf: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %x = affine.load %in[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %buf[%i] : memref<4xf32>
  }
  %view = memref.subview %buf[0] [4] [1] : memref<4xf32> to memref<4xf32, strided<[1]>>
  affine.for %i = 0 to 4 {
    %v = affine.load %view[%i] : memref<4xf32, strided<[1]>>
    affine.store %v, %out0[%i] : memref<4xf32>
  }
  affine.for %i = 0 to 4 {
    %x = affine.load %in[%i] : memref<4xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %out1[%i] : memref<4xf32>
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %in = memref.get_global @g : memref<4xf32>
  %buf = memref.get_global @b : memref<4xf32>
  %out0 = memref.alloc() : memref<4xf32>
  %out1 = memref.alloc() : memref<4xf32>
  func.call @k(%in, %out0, %out1, %buf) : (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  %r = vector.load %out0[%c0] : memref<4xf32>, vector<4xf32>
  vector.print %r : vector<4xf32>
  return
}
