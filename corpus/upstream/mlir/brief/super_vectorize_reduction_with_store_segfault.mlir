// RUN: mlir-opt-22 %s --pass-pipeline='builtin.module(func.func(affine-super-vectorize{virtual-vector-size=16}))' -o /dev/null
// Upstream MLIR (22.1.8) affine-super-vectorize corrupts the heap on this function: a trip-count-1 loop
// holding a 4-trip loop whose IV feeds a cmpi/select, then a reduction loop (iter_args) whose body also
// stores to the memref it loads. mlir-opt-22 dies with a segfault in an operation walk (sometimes glibc
// "free(): double free detected"). Correct: the pass finishes (vectorizing or leaving loops), exit 0.
func.func @k(%in: memref<1x4xf32>, %out: memref<1x3xf32>) {
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x4xf32>
  %b = memref.alloc() : memref<4x3xf32>
  affine.for %i = 0 to 1 {
    affine.for %k = 0 to 4 {
      %x = affine.load %in[0, %k] : memref<1x4xf32>
      %p = arith.cmpi slt, %k, %c4 : index
      %s = arith.select %p, %x, %cst : f32
      affine.store %s, %a[0, %k] : memref<1x4xf32>
    }
    affine.for %j = 0 to 3 {
      %r = affine.for %k = 0 to 4 iter_args(%acc = %cst) -> (f32) {
        affine.store %cst, %b[%k, %j] : memref<4x3xf32>
        %1 = affine.load %a[%i, %k] : memref<1x4xf32>
        %2 = affine.load %b[%k, %j] : memref<4x3xf32>
        %3 = arith.mulf %1, %2 : f32
        %4 = arith.addf %acc, %3 : f32
        affine.yield %4 : f32
      }
      affine.store %r, %out[%i, %j] : memref<1x3xf32>
    }
  }
  return
}
