// RUN: mlir-opt-22 %s --transform-interpreter --symbol-dce --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-vector-to-scf --lower-affine --convert-scf-to-cf --expand-strided-metadata --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) Linalg vectorizer: a reduction whose body adds a loop-invariant value to the
// accumulator (out + 1, the input unused) is vectorized to one vector addi of the init and the constant:
// the 4-trip reduction dim is dropped (reduceIfNeeded finds no vector to reduce; no multi_reduction).
// Correct result: 0 + 1+1+1+1 = 4 (also what the run prints with --transform-interpreter removed);
// with vectorization it prints 1, so this RUN line fails (FileCheck-22) while the bug is present.
// CHECK: {{^}}4
module attributes {transform.with_named_sequence} {
  func.func @count(%x: tensor<1x4xi32>) -> tensor<1x1xi32> {
    %c1 = arith.constant 1 : i32
    %z = arith.constant 0 : i32
    %e = tensor.empty() : tensor<1x1xi32>
    %init = linalg.fill ins(%z : i32) outs(%e : tensor<1x1xi32>) -> tensor<1x1xi32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x4xi32>) outs(%init : tensor<1x1xi32>) {
    ^bb0(%in: i32, %out: i32):
      %s = arith.addi %out, %c1 : i32
      linalg.yield %s : i32
    } -> tensor<1x1xi32>
    return %r : tensor<1x1xi32>
  }
  func.func @main() {
    %x = arith.constant dense<[[7, 7, 7, 7]]> : tensor<1x4xi32>
    %r = func.call @count(%x) : (tensor<1x4xi32>) -> tensor<1x1xi32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %r[%c0, %c0] : tensor<1x1xi32>
    vector.print %v : i32
    return
  }
  transform.named_sequence private @__transform_main(%m: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %m : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}
