// affine-loop-fusion (producer-consumer) fuses a nest whose inner loop
// carries a value in iter_args into its consumer at full depth: the slice
// of the carrying loop is a single iteration, it is promoted, and the
// iter_arg is replaced by its init value, so the loop-carried SSA dependence
// is lost. Here the producer is a row-wise prefix sum; after fusion
// out[i][r] = in[i][r] instead of in[i][0] + ... + in[i][r]. npufuzz's topk
// (the pass loop carries the previous pick), and through it gather/slice of
// topk's results, hit this.
//   after:  affine.for %i = 0 to 2 { affine.for %r = 0 to 4 {
//             %x = affine.load %in[%i, %r]; %a = arith.addi %c0_i32, %x
//             affine.store %a, %buf[%i, %r]; ... affine.store .., %out[%i, %r] } }
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion)  => mismatch
// (also with affine-loop-fusion{mode=producer})
module {
  func.func @npf_kernel(%in: memref<2x4xi32>, %out: memref<2x4xi32>) {
    %zero = arith.constant 0 : i32
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
    memref.dealloc %buf : memref<2x4xi32>
    return
  }
}
