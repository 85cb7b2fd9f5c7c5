// Two sibling nests read %in; the second has symbolic bounds (a dynamic
// valid shape's insert loop). Sibling fusion asks ComputationSliceState::
// isMaximal, whose PresburgerSet::subtract is given constraint systems of
// spaces that do not match; an assertion-enabled build stops there
// ("Spaces should be compatible"), and a release build (Debian's 22.1.8)
// reads uninitialised DynamicAPInts (valgrind: in SimplexBase::addRow) and
// segfaults. Reported upstream as llvm/llvm-project#206081, with a fix open
// in #206236. Found at seed 2300520 under affine O2 (held-out, from seed
// 2300000), as fillpad beside an insert of the same input.
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion) --opt mlir-opt-22  => crashed
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
