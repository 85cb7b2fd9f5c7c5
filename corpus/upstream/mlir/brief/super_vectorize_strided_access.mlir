// RUN: mlir-opt-22 %s --pass-pipeline='builtin.module(func.func(affine-super-vectorize{virtual-vector-size=16}),lower-affine,convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-super-vectorize treats the strided subscript in[%i * 2 + 2] as contiguous
// (isContiguousAccess: "TODO: check access stride") and emits a unit-stride transfer_read, so out[i] gets
// in[2 + i]: the run prints [2, 3, 4, 5, 6, 7, 8]. Correct: out[i] = in[2 + 2 * i] = [2, 4, ..., 14], as
// printed with affine-super-vectorize removed. (Same root as llvm/llvm-project#177756 / #196973.)
// CHECK: [2, 4, 6, 8, 10, 12, 14]
func.func private @printMemrefI32(memref<*xi32>)
func.func @kernel(%in: memref<16xi32>, %out: memref<7xi32>) {
  affine.for %i = 0 to 7 {
    %x = affine.load %in[%i * 2 + 2] : memref<16xi32>
    affine.store %x, %out[%i] : memref<7xi32>
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %in = memref.alloc() : memref<16xi32>
  %out = memref.alloc() : memref<7xi32>
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i32
    memref.store %ii, %in[%i] : memref<16xi32>
  }
  func.call @kernel(%in, %out) : (memref<16xi32>, memref<7xi32>) -> ()
  %u = memref.cast %out : memref<7xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
