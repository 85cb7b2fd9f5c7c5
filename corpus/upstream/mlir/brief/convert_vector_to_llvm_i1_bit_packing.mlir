// RUN: mlir-opt-22 %s --convert-linalg-to-loops --lower-affine --convert-vector-to-scf --convert-scf-to-cf --expand-strided-metadata --convert-vector-to-llvm --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) convert-vector-to-llvm lowers an in-bounds vector<16xi1> transfer_write into a
// memref<17xi1> to an llvm.store of <16 x i1>, which LLVM stores bit-packed in 2 bytes, while the memref
// lowering lays i1 out one byte per element: the run prints [255, 255, 0, 0, ...] (14 of 16 lost).
// Correct: sixteen 1s then a 0, as printed when the write is scalarized to vector<i1> stores first
// (--convert-vector-to-scf='full-unroll=true target-rank=0' in place of --convert-vector-to-scf).
// CHECK: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]
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
