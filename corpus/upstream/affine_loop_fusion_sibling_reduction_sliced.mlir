// Greedy fusion first fuses the copy nest into its consumer (%b0 is
// private), then sibling-fuses the row-sum nest, which reads the same %in,
// into the result at depth 2: the reduction loop %k is sliced to the single
// iteration k == j, promoted, and its iter_arg replaced by the init value,
// so sum[i] = in[i][1] instead of in[i][0] + in[i][1].
//   after:  affine.for %i = 0 to 3 { affine.for %j = 0 to 2 {
//             ...; %x = affine.load %in[%i, %j]; %a = arith.addi %c0_i32, %x
//             affine.store %a, %sum[%i]; ... } }
// npufuzz's reduce_sum/reduce_min next to another reader of their operand
// hit this.
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion)  => mismatch
module {
  func.func @npf_kernel(%in: memref<3x2xi32>, %sum: memref<3xi32>, %neg: memref<3x2xi32>) {
    %zero = arith.constant 0 : i32
    %b0 = memref.alloc() : memref<3x2xi32>
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 2 {
        %x = affine.load %in[%i, %j] : memref<3x2xi32>
        affine.store %x, %b0[%i, %j] : memref<3x2xi32>
      }
    }
    affine.for %i = 0 to 3 {
      %s = affine.for %k = 0 to 2 iter_args(%acc = %zero) -> (i32) {
        %x = affine.load %in[%i, %k] : memref<3x2xi32>
        %a = arith.addi %acc, %x : i32
        affine.yield %a : i32
      }
      affine.store %s, %sum[%i] : memref<3xi32>
    }
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 2 {
        %x = affine.load %b0[%i, %j] : memref<3x2xi32>
        %n = arith.subi %zero, %x : i32
        affine.store %n, %neg[%i, %j] : memref<3x2xi32>
      }
    }
    memref.dealloc %b0 : memref<3x2xi32>
    return
  }
}
