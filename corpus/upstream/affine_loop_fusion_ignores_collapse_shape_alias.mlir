// affine-loop-fusion does not see that a memref.collapse_shape aliases the
// buffer it reshapes: the root of affine_loop_fusion_ignores_subview_alias.mlir
// through another view. Fusion moves the nest that writes %buf into the last
// nest, after the nest that reads %buf through %flat: %out0 gets %buf before
// it was written. Found by the affine style's flatten=collapse_shape variant
// under affine O2 (seeds 50677 and 50843).
// npufuzz verify-pipeline FILE --pipeline 'func.func(affine-loop-fusion)'
//   => mismatch at pass 0
func.func @npf_kernel(%in: memref<1x1xi32>, %out0: memref<2x1xi32>, %out1: memref<2x1xi32>) {
  %c6 = arith.constant 6 : i32
  %buf = memref.alloc() : memref<2x1xi32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 1 {
      affine.store %c6, %buf[%i, %j] : memref<2x1xi32>
    }
  }
  %flat = memref.collapse_shape %buf [[0, 1]] : memref<2x1xi32> into memref<2xi32>
  %flatout = memref.collapse_shape %out0 [[0, 1]] : memref<2x1xi32> into memref<2xi32>
  affine.for %i = 0 to 2 {
    %v = affine.load %flat[%i] : memref<2xi32>
    affine.store %v, %flatout[%i] : memref<2xi32>
  }
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 1 {
      %x = affine.load %buf[%i, %j] : memref<2x1xi32>
      %y = affine.load %in[0, %j] : memref<1x1xi32>
      %z = arith.muli %x, %y : i32
      affine.store %z, %out1[%i, %j] : memref<2x1xi32>
    }
  }
  memref.dealloc %buf : memref<2x1xi32>
  return
}
