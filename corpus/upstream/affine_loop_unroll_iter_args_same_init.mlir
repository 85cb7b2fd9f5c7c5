// affine-loop-unroll{unroll-factor=2} on a loop with two iter_args that
// share one init value (%c0 here) and a trip count that leaves a cleanup
// iteration: the cleanup iteration's iter_args are wired from the wrong
// values. Here the running sum restarts from the induction variable's 0 in
// the cleanup (x[2] instead of x[0] + x[1] + x[2]). npufuzz's topk and
// argmax on index data have this shape (the best value and its index both
// start at 0): topk of three equal values gives the indices [0, 1, 0].
//
//   mlir-opt-22 --pass-pipeline='builtin.module(func.func(affine-loop-unroll{unroll-factor=2}))' FILE
//
// prints a cleanup `arith.addi %c0, %5` where the sum of the first two
// iterations belongs.
module {
  func.func @two_sums(%x: memref<3xindex>, %out: memref<2xindex>) {
    %c0 = arith.constant 0 : index
    %r:2 = affine.for %i = 0 to 3 iter_args(%sum = %c0, %last = %c0) -> (index, index) {
      %v = affine.load %x[%i] : memref<3xindex>
      %s = arith.addi %sum, %v : index
      affine.yield %s, %i : index, index
    }
    affine.store %r#0, %out[0] : memref<2xindex>
    affine.store %r#1, %out[1] : memref<2xindex>
    return
  }
}
