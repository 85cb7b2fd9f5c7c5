// affine-super-vectorize ignores the step of the loop it vectorizes. A loop
// of step 2 (what affine-loop-unroll{unroll-factor=2} makes of a unit-step
// loop: the body for %i and %i + 1) becomes a loop of step 32 whose body
// reads and writes 16 consecutive elements at %i and at %i + 1, as if the
// step were 1: the two vectors overlap, and elements 17..31 and 49..63 are
// never written. Any loop of more than 16 elements after unroll breaks, so
// a campaign shows it as one signature per op whose loop broke first; it is
// another root cause than the strided subscript
// (super_vectorize_strided_access.mlir), whose loop has step 1.
//   after:  affine.for %i = 0 to 64 step 32 {
//             %1 = vector.transfer_read %in[%i] : memref<64xf32>, vector<16xf32>
//             vector.transfer_write %2, %out[%i]
//             %5 = vector.transfer_read %in[%i + 1] : memref<64xf32>, vector<16xf32>
//             vector.transfer_write %6, %out[%i + 1] }
// npufuzz verify-pipeline FILE --pipeline 'func.func(affine-super-vectorize{virtual-vector-size=16})'
//   => mismatch, pass 0: "30 of 64 elements differ; first [17]"
// From the unit-step loop, --pipeline 'func.func(affine-loop-unroll{unroll-factor=2}),
// func.func(affine-super-vectorize{virtual-vector-size=16})' blames pass 1 the same way.
module {
  func.func @npf_kernel(%in: memref<64xf32>, %out: memref<64xf32>) {
    affine.for %i = 0 to 64 step 2 {
      %x = affine.load %in[%i] : memref<64xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %out[%i] : memref<64xf32>
      %x1 = affine.load %in[%i + 1] : memref<64xf32>
      %y1 = arith.addf %x1, %x1 : f32
      affine.store %y1, %out[%i + 1] : memref<64xf32>
    }
    return
  }
}
