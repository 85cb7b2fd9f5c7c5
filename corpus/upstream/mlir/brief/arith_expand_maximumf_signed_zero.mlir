// RUN: mlir-opt-22 %s --arith-expand --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) arith-expand rewrites arith.maximumf/minimumf as cmpf + select, which treats
// -0.0 and +0.0 as equal, against the ops' documented order (-0.0 < +0.0).
// Correct bits: maximumf(+0, -0) = +0 (0) and minimumf(-0, +0) = -0 (-2147483648): "( 0, -2147483648 )",
// as printed with --arith-expand removed; with it the run prints "( -2147483648, 0 )": FileCheck-22 fails.
// CHECK: ( 0, -2147483648 )
func.func @mx(%a: f32, %b: f32) -> (f32, f32) {
  %max = arith.maximumf %a, %b : f32
  %min = arith.minimumf %b, %a : f32
  return %max, %min : f32, f32
}
func.func @main() {
  %pz = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %r:2 = func.call @mx(%pz, %nz) : (f32, f32) -> (f32, f32)
  %v = vector.from_elements %r#0, %r#1 : vector<2xf32>
  %i = arith.bitcast %v : vector<2xf32> to vector<2xi32>
  vector.print %i : vector<2xi32>
  return
}
