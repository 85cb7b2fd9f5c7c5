// arith-expand rewrites arith.maximumf/minimumf as cmpf + select, which
// ignores their documented order -0.0 < +0.0: maximumf(+0, -0) becomes -0.
// npufuzz verify-pipeline FILE --pipeline arith-expand  => mismatch at pass 0
func.func @npf_kernel(%out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pz = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %scratch = memref.alloca() : memref<2xf32>
  memref.store %pz, %scratch[%c0] : memref<2xf32>
  memref.store %nz, %scratch[%c1] : memref<2xf32>
  %a = memref.load %scratch[%c0] : memref<2xf32>
  %b = memref.load %scratch[%c1] : memref<2xf32>
  %max = arith.maximumf %a, %b : f32
  %min = arith.minimumf %b, %a : f32
  memref.store %max, %out[%c0] : memref<2xf32>
  memref.store %min, %out[%c1] : memref<2xf32>
  return
}
