// convert-vector-to-llvm lowers a vector<16xi1> store to an llvm.store of
// <16 x i1>, which LLVM stores bit-packed in 2 bytes, into a memref<17xi1>
// that the memref lowering lays out one byte per element: 14 of the 16
// elements written are lost (and a load reads packed bits back). The
// passes only make the access in-bounds: super-vectorize turns the i1 loop
// into a vector.transfer_write of vector<16xi1> with a scalar remainder,
// and unroll by 2 lets canonicalization mark the write in-bounds.
// verify-pipeline blames unroll, which exposed it, and names
// convert-vector-to-llvm as the element that miscompiles: with every vector
// transfer scalarized before the tail, the IR after unroll runs right.
//
//   npufuzz verify-pipeline convert_vector_to_llvm_i1_bit_packing.mlir \
//     --opt mlir-opt-22 --pipeline \
//     'func.func(affine-super-vectorize{virtual-vector-size=16}),func.func(affine-loop-unroll{unroll-factor=2})'
//
// Smallest form, for mlir-opt-22 and mlir-runner-22 alone: a function
// holding `vector.transfer_write %v, %m[%c0] {in_bounds = [true]} :
// vector<16xi1>, memref<17xi1>` with %v all true and %m all false leaves
// m[2..15] false after convert-vector-to-llvm (from npufuzz case:
// `%0 = input {fill=zeros} : f32[1,17]; %1 = ne %0, %0 : i1[1,17]`).
module {
  func.func @not_equal_to_itself(%x: memref<17xf32>, %out: memref<17xi1>) {
    affine.for %i = 0 to 17 {
      %v = affine.load %x[%i] : memref<17xf32>
      %ne = arith.cmpf une, %v, %v : f32
      affine.store %ne, %out[%i] : memref<17xi1>
    }
    return
  }
}
