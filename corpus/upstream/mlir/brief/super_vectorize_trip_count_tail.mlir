// RUN: mlir-opt-22 %s --pass-pipeline='builtin.module(func.func(affine-super-vectorize{virtual-vector-size=16}),lower-affine,convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-super-vectorize vectorizes the 3-trip copy loop below into one 16-wide
// transfer_read/transfer_write masked only at the memref's end (8), not at the loop bound (3), so
// out[3..7], which the loop never touches, are overwritten: the run prints [0, 1, ..., 7]. Correct:
// [0, 1, 2, -1, -1, -1, -1, -1], as printed with affine-super-vectorize removed. (Same root as #218120.)
// CHECK: [0, 1, 2, -1, -1, -1, -1, -1]
func.func private @printMemrefI32(memref<*xi32>)
func.func @kernel(%in: memref<8xi32>, %out: memref<8xi32>) {
  affine.for %i = 0 to 3 {
    %x = affine.load %in[%i] : memref<8xi32>
    affine.store %x, %out[%i] : memref<8xi32>
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %m1 = arith.constant -1 : i32
  %in = memref.alloc() : memref<8xi32>
  %out = memref.alloc() : memref<8xi32>
  scf.for %i = %c0 to %c8 step %c1 {
    %ii = arith.index_cast %i : index to i32
    memref.store %ii, %in[%i] : memref<8xi32>
    memref.store %m1, %out[%i] : memref<8xi32>
  }
  func.call @kernel(%in, %out) : (memref<8xi32>, memref<8xi32>) -> ()
  %u = memref.cast %out : memref<8xi32> to memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
