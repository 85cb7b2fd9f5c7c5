// RUN: mlir-opt-22 %s --affine-loop-fusion -o /dev/null
// Upstream MLIR (22.1.8) affine-loop-fusion: two sibling nests read %in, the second with symbolic
// bounds (%r, %c). Sibling fusion calls ComputationSliceState::isMaximal, whose PresburgerSet::subtract
// gets sets of incompatible spaces: asserts in debug builds ("Spaces should match/be compatible"); the
// Debian release build reads uninitialised DynamicAPInts (SimplexBase::addRow) and segfaults (exit 139).
// Correct: the pass finishes (fusing or not) and prints valid IR. Dup of llvm/llvm-project#206081.
func.func @f(%in: memref<1x1xf32>, %big: memref<3x1xf32>, %r: index, %c: index) -> f32 {
  %buf = memref.alloc() : memref<1x1xf32>
  affine.for %i = 0 to 1 {
    affine.for %j = 0 to 1 {
      %t = affine.load %in[%i, %j] : memref<1x1xf32>
      affine.store %t, %buf[%i, %j] : memref<1x1xf32>
    }
  }
  affine.for %i = 0 to %r {
    affine.for %j = 0 to %c {
      %t = affine.load %in[%i, %j] : memref<1x1xf32>
      memref.store %t, %big[%i, %j] : memref<3x1xf32>
    }
  }
  %z = arith.constant 0 : index
  %v = memref.load %buf[%z, %z] : memref<1x1xf32>
  return %v : f32
}
