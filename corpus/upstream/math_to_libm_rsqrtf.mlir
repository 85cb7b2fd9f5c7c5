// convert-math-to-libm lowers math.rsqrt to a call of @rsqrtf, a function no
// libm provides: the module fails to link when JIT-compiled.
// npufuzz verify-pipeline FILE --pipeline convert-math-to-libm  => compile-error
func.func @npf_kernel(%io: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %x = affine.load %io[%i] : memref<4xf32>
    %y = math.rsqrt %x : f32
    affine.store %y, %io[%i] : memref<4xf32>
  }
  return
}
