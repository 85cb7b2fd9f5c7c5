// affine-super-vectorize vectorizes a loop whose trip count is not a
// multiple of the vector size by rounding the step up and letting the
// transfers run on: a copy of a 2x3 valid region of a 4x8 tile becomes
// 16-element transfers at [%i, 0], masked only at the memref's end, so
// elements [%i, 3..7], which the loop never touches, are overwritten with
// what was read there. (llvm/llvm-project#218120 reports the same.) In a
// campaign it is an out-of-region-write: every output with a valid shape
// narrower than its tile, copied out by a loop over the valid region.
//   after:  affine.for %i = 0 to 2 { affine.for %j = 0 to 3 step 16 {
//             %1 = vector.transfer_read %in[%i, %j], %0 : memref<4x8xf32>, vector<16xf32>
//             vector.transfer_write %1, %out[%i, %j] : vector<16xf32>, memref<4x8xf32> } }
// npufuzz verify-pipeline FILE --pipeline 'func.func(affine-super-vectorize{virtual-vector-size=16})'
//   => mismatch, pass 0
module {
  func.func @npf_kernel(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
    affine.for %i = 0 to 2 {
      affine.for %j = 0 to 3 {
        %x = affine.load %in[%i, %j] : memref<4x8xf32>
        affine.store %x, %out[%i, %j] : memref<4x8xf32>
      }
    }
    return
  }
}
