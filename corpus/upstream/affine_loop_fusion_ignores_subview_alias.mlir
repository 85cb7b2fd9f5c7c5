// affine-loop-fusion does not see that a memref.subview aliases the buffer
// it views. Sibling fusion (both nests read %in) moves the nest that writes
// %buf into the last nest, after the nest that reads %buf through %view:
// %out0 gets %buf before it was written. The same happens to a read of %buf
// by vector.transfer_read (a dot product by vector.contract between the
// writer and a sibling).
// npufuzz verify-pipeline FILE --pipeline 'func.func(affine-loop-fusion)'
//   => mismatch at pass 0
func.func @npf_kernel(%in: memref<4xf32>, %out0: memref<4xf32>, %out1: memref<4xf32>) {
  %buf = memref.alloc() : memref<4xf32>
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
  memref.dealloc %buf : memref<4xf32>
  return
}
