// RUN: mlir-opt-22 %s --linalg-specialize-generic-ops --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-math-to-llvm --convert-scf-to-cf --expand-strided-metadata --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) linalg-specialize-generic-ops turns this linalg.generic, whose body is
// out + absf(a) * b, into linalg.matmul(a, b): the contraction matcher skips any unary op, so absf is
// dropped. Correct: 0 + |-46| * -12 = -552 (printed with --linalg-specialize-generic-ops removed);
// with it the run prints 552, so FileCheck-22 fails. (Same root as llvm/llvm-project#197178.)
// CHECK: {{^}}-552{{$}}
func.func @absmm(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>, %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>) outs(%c : tensor<1x1xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %ax = math.absf %x : f32
    %p = arith.mulf %ax, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
func.func @main() {
  %a = arith.constant dense<-46.0> : tensor<1x1xf32>
  %b = arith.constant dense<-12.0> : tensor<1x1xf32>
  %c = arith.constant dense<0.0> : tensor<1x1xf32>
  %r = func.call @absmm(%a, %b, %c) : (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %r[%c0, %c0] : tensor<1x1xf32>
  vector.print %v : f32
  return
}
