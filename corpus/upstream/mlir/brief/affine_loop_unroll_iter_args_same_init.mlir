// RUN: mlir-opt-22 %s --pass-pipeline='builtin.module(func.func(affine-loop-unroll{unroll-factor=2}))' | mlir-opt-22 --convert-vector-to-scf --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) affine-loop-unroll{unroll-factor=2}: a 3-trip loop with two iter_args sharing
// one init (%c0) gets a cleanup iteration whose inits are rewired by replaceUsesOfWith(init, result)
// per iter_arg (generateCleanupLoopForUnroll); with a shared init the cleanup's sum starts from the wrong
// value (0), so sum = x[2]. Correct (sum, last) for x = [1, 2, 3] is ( 6, 2 ), printed with the unroll
// pipeline removed (plain mlir-opt-22 %s | ...); with unrolling it prints ( 3, 2 ).
// CHECK: ( 6, 2 )
memref.global "private" constant @g : memref<3xindex> = dense<[1, 2, 3]>
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
func.func @main() {
  %c0 = arith.constant 0 : index
  %x = memref.get_global @g : memref<3xindex>
  %out = memref.alloc() : memref<2xindex>
  func.call @two_sums(%x, %out) : (memref<3xindex>, memref<2xindex>) -> ()
  %v = vector.load %out[%c0] : memref<2xindex>, vector<2xindex>
  vector.print %v : vector<2xindex>
  return
}
