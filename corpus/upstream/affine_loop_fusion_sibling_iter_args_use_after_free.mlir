// Sibling fusion of a loop that carries values in iter_args (an argmax over
// %in) with a nest that reads the same memref erases the loop while its
// result still has a use: the index_cast that follows reads a freed value.
// mlir-opt segfaults in the verifier after the pass (or in the printer,
// with "<<UNKNOWN SSA VALUE>>" and "<<NULL TYPE>>"); in process it is
// the same use after free. Found at seed 758 under affine O2.
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion) --opt mlir-opt-22  => crashed
module {
  func.func @npf_kernel(%in: memref<2xf32>, %idx: memref<1xi64>, %copy: memref<1x2xf32>) {
    %c0 = arith.constant 0 : index
    %init = affine.load %in[0] : memref<2xf32>
    %r:2 = affine.for %k = 1 to 2 iter_args(%best = %init, %bi = %c0) -> (f32, index) {
      %v = affine.load %in[%k] : memref<2xf32>
      %gt = arith.cmpf ogt, %v, %best : f32
      %nb = arith.select %gt, %v, %best : f32
      %ni = arith.select %gt, %k, %bi : index
      affine.yield %nb, %ni : f32, index
    }
    %i = arith.index_cast %r#1 : index to i64
    affine.store %i, %idx[0] : memref<1xi64>
    affine.for %a = 0 to 1 {
      affine.for %b = 0 to 2 {
        %t = affine.load %in[%b] : memref<2xf32>
        affine.store %t, %copy[%a, %b] : memref<1x2xf32>
      }
    }
    return
  }
}
