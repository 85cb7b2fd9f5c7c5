// RUN: mlir-opt-22 %s --pass-pipeline='builtin.module(func.func(affine-super-vectorize{virtual-vector-size=16}),lower-affine,convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,convert-vector-to-llvm,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-super-vectorize ignores a non-unit loop step: the step-2 loop below becomes
// one step-32 iteration with 16-wide contiguous transfers at %i and %i + 1, so out[17..31] are never
// written (stay -1). Correct: out[i] = 2 * in[i] = 2 * i for all 32 elements, printed with
// affine-super-vectorize removed; with it FileCheck-22 fails. (Same root as llvm/llvm-project#225247.)
// CHECK: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62]
func.func private @printMemrefF32(memref<*xf32>)
func.func @kernel(%in: memref<32xf32>, %out: memref<32xf32>) {
  affine.for %i = 0 to 32 step 2 {
    %x = affine.load %in[%i] : memref<32xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i] : memref<32xf32>
    %x1 = affine.load %in[%i + 1] : memref<32xf32>
    %y1 = arith.addf %x1, %x1 : f32
    affine.store %y1, %out[%i + 1] : memref<32xf32>
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m1 = arith.constant -1.0 : f32
  %in = memref.alloc() : memref<32xf32>
  %out = memref.alloc() : memref<32xf32>
  scf.for %i = %c0 to %c32 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %in[%i] : memref<32xf32>
    memref.store %m1, %out[%i] : memref<32xf32>
  }
  func.call @kernel(%in, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  %u = memref.cast %out : memref<32xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
