// math-expand-ops rewrites math.tanh as a formula over exp that loses the
// sign of zero: tanh(-0.0) becomes +0.0 (libm's tanhf, and IEEE 754, give
// -0.0).
// npufuzz verify-pipeline FILE --pipeline 'func.func(math-expand-ops)'
//   => mismatch at pass 0
func.func @npf_kernel(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %nz = arith.constant -0.0 : f32
  %scratch = memref.alloca() : memref<1xf32>
  memref.store %nz, %scratch[%c0] : memref<1xf32>
  %x = memref.load %scratch[%c0] : memref<1xf32>
  %t = math.tanh %x : f32
  memref.store %t, %out[%c0] : memref<1xf32>
  return
}
