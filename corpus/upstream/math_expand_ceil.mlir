// math-expand-ops rewrites math.ceil as trunc-through-i64 plus one when the
// truncation is below x: ceil(-0.5) becomes -0 + 0 = +0 (libm's ceilf, and
// IEEE 754, give -0), and anything outside the i64 range, infinities
// included, goes through an out-of-range fptosi (ceil(inf) came out as
// 4.6e19). Found by the `round {mode=rup}` op under random:1.
// npufuzz verify-pipeline FILE --pipeline 'func.func(math-expand-ops)'
//   => mismatch at pass 0
func.func @npf_kernel(%out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant -0.5 : f32
  %inf = arith.constant 0x7F800000 : f32
  %scratch = memref.alloca() : memref<2xf32>
  memref.store %half, %scratch[%c0] : memref<2xf32>
  memref.store %inf, %scratch[%c1] : memref<2xf32>
  %x = memref.load %scratch[%c0] : memref<2xf32>
  %y = memref.load %scratch[%c1] : memref<2xf32>
  %cx = math.ceil %x : f32
  %cy = math.ceil %y : f32
  memref.store %cx, %out[%c0] : memref<2xf32>
  memref.store %cy, %out[%c1] : memref<2xf32>
  return
}
