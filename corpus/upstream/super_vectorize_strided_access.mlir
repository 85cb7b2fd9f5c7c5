// affine-super-vectorize treats an access whose subscript varies along the
// vectorized IV with a non-unit coefficient (%i * 2 + 2) as contiguous
// (isContiguousAccess only checks that one subscript varies: "TODO: check
// access stride") and emits a unit-stride transfer_read, so out[i] gets
// in[2 + i] instead of in[2 + 2 * i]. npufuzz's strided slice and index_map
// lowerings (and floordiv/mod subscripts) hit this.
//   after:  affine.for %i = 0 to 7 step 16 {
//             %0 = affine.apply (d0 * 2 + 2)(%i)
//             %2 = vector.transfer_read %in[%0], %poison : memref<16xi32>, vector<16xi32>
//             vector.transfer_write %2, %out[%i] : vector<16xi32>, memref<7xi32> }
// npufuzz verify-pipeline FILE --pipeline 'func.func(affine-super-vectorize{virtual-vector-size=16})'  => mismatch
module {
  func.func @npf_kernel(%in: memref<16xi32>, %out: memref<7xi32>) {
    affine.for %i = 0 to 7 {
      %x = affine.load %in[%i * 2 + 2] : memref<16xi32>
      affine.store %x, %out[%i] : memref<7xi32>
    }
    return
  }
}
