// Sibling fusion of a reduction nest (j outer, k inner with iter_args)
// into a nest that reads the same memref transposed (i outer, j inner)
// slices the reduction loop and leaves the reduction's store outside the
// fused nest, still using the inner IV: the output does not verify.
//   after:  affine.for %i = 0 to 2 {
//             %s = affine.for %j = 0 to 3 iter_args(..) { affine.load %in[%j, %j] ... }
//             affine.store %s, %s0[0, %j]   // %j is the inner loop's IV
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion)  => verifier-error
// ("operand #2 does not dominate this use"; also with mode=sibling)
module {
  func.func @npf_kernel(%in: memref<2x3xf32>, %sum: memref<1x3xf32>, %neg: memref<2x3xf32>) {
    %zero = arith.constant -0.000000e+00 : f32
    %s0 = memref.alloc() : memref<1x3xf32>
    affine.for %j = 0 to 3 {
      %s = affine.for %k = 0 to 2 iter_args(%acc = %zero) -> (f32) {
        %x = affine.load %in[%k, %j] : memref<2x3xf32>
        %a = arith.addf %acc, %x : f32
        affine.yield %a : f32
      }
      affine.store %s, %s0[0, %j] : memref<1x3xf32>
    }
    %n0 = memref.alloc() : memref<2x3xf32>
    affine.for %i = 0 to 2 {
      affine.for %j = 0 to 3 {
        %x = affine.load %in[%i, %j] : memref<2x3xf32>
        %n = arith.negf %x : f32
        affine.store %n, %n0[%i, %j] : memref<2x3xf32>
      }
    }
    memref.copy %s0, %sum : memref<1x3xf32> to memref<1x3xf32>
    memref.copy %n0, %neg : memref<2x3xf32> to memref<2x3xf32>
    memref.dealloc %s0 : memref<1x3xf32>
    memref.dealloc %n0 : memref<2x3xf32>
    return
  }
}
