// The bug of convert_vector_to_llvm_i1_bit_packing.mlir with mlir-opt-22 and
// mlir-runner-22 alone: an in-bounds vector.transfer_write of 16 true i1s
// into a memref<17xi1> of false, then each element printed as an i32.
// Expected: 16 ones and a zero. MLIR 22.1.8 prints 255, 255 and fifteen
// zeros: the store wrote 2 bit-packed bytes.
//
//   mlir-opt-22 FILE --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops),
//     lower-affine,convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,
//     convert-vector-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,
//     convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' |
//   mlir-runner-22 -e main -entry-point-result=void \
//     -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so
module {
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %f = arith.constant false
    %m = memref.alloc() : memref<17xi1>
    linalg.fill ins(%f : i1) outs(%m : memref<17xi1>)
    %v = arith.constant dense<true> : vector<16xi1>
    vector.transfer_write %v, %m[%c0] {in_bounds = [true]} : vector<16xi1>, memref<17xi1>
    %b = memref.alloc() : memref<17xi32>
    affine.for %i = 0 to 17 {
      %e = memref.load %m[%i] : memref<17xi1>
      %z = arith.extui %e : i1 to i32
      memref.store %z, %b[%i] : memref<17xi32>
    }
    %u = memref.cast %b : memref<17xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
}
