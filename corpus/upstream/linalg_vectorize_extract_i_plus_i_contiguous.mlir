// RUN: mlir-opt-22 %s --transform-interpreter --symbol-dce --one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-vector-to-scf --lower-affine --convert-scf-to-cf --expand-strided-metadata --convert-vector-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner-22 -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so | FileCheck-22 %s
// Upstream MLIR (22.1.8) Linalg vectorizer: a gather r[i] = x[2*i], written as tensor.extract %x[i + i],
// is classed a contiguous load (isContiguousLoadIdx accepts any arith.addi with a linalg.index operand)
// and becomes one vector.transfer_read of x[0:2] instead of a vector.gather of x[0], x[2].
// x = [4, 5, 7, 3]: correct r = ( 4, 7 ) (also what the run prints with --transform-interpreter removed);
// with vectorization it prints ( 4, 5 ), so this RUN line fails (FileCheck-22) while the bug is present.
// CHECK: ( 4, 7 )
module attributes {transform.with_named_sequence} {
  func.func @gather(%x: tensor<4xi32>) -> tensor<2xi32> {
    %e = tensor.empty() : tensor<2xi32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<2xi32>) {
    ^bb0(%o: i32):
      %i = linalg.index 0 : index
      %ii = arith.addi %i, %i : index
      %v = tensor.extract %x[%ii] : tensor<4xi32>
      linalg.yield %v : i32
    } -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
  func.func @main() {
    %x = arith.constant dense<[4, 5, 7, 3]> : tensor<4xi32>
    %r = func.call @gather(%x) : (tensor<4xi32>) -> tensor<2xi32>
    %c0 = arith.constant 0 : index
    %p = arith.constant 0 : i32
    %v = vector.transfer_read %r[%c0], %p : tensor<2xi32>, vector<2xi32>
    vector.print %v : vector<2xi32>
    return
  }
  transform.named_sequence private @__transform_main(%m: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %m : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g {vectorize_nd_extract} : !transform.any_op
    transform.yield
  }
}
