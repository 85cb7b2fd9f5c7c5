// affine-super-vectorize{virtual-vector-size=4} after affine-loop-tile
// {tile-size=4} on a 1x1 transpose copy: the vectorizer leaves an affine.for
// that the verifier run after the pass dereferences and segfaults on
// (mlir::affine::AffineForOp::verifyInvariantsImpl). Either pass alone is
// fine. Found by the affine `random:1` campaign (54 of 1,911 cases), from
// npufuzz case `%0 = input : i32[1,1]; %1 = index_map %0 {map=(d0, d1) ->
// (d1, d0)} : i32[1,1]`.
//
//   mlir-opt-22 --pass-pipeline='builtin.module(func.func(affine-loop-tile{tile-size=4}),func.func(affine-super-vectorize{virtual-vector-size=4}))' FILE
//
// exits with a segmentation fault.
module {
  func.func @npf_kernel(%in0: memref<1x1xi32>, %out0: memref<1x1xi32>) {
    %buf0 = memref.alloc() : memref<1x1xi32>
    affine.for %i1 = 0 to 1 {
      affine.for %i2 = 0 to 1 {
        %t3 = affine.load %in0[%i2, %i1] : memref<1x1xi32>
        affine.store %t3, %buf0[%i1, %i2] : memref<1x1xi32>
      }
    }
    memref.copy %buf0, %out0 : memref<1x1xi32> to memref<1x1xi32>
    memref.dealloc %buf0 : memref<1x1xi32>
    return
  }
}
