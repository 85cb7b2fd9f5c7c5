// A module npufuzz did not emit: public functions on tensors and scalars.
// @relu_max takes a tensor and a scalar floor and returns a tensor;
// @narrow returns a scalar f16 of a scalar f32. Neither is @npf_kernel.
#map = affine_map<(d0) -> (d0)>
module {
  func.func @relu_max(%x: tensor<8xf32>, %floor: f32) -> tensor<8xf32> {
    %init = tensor.empty() : tensor<8xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %floor : f32
      linalg.yield %m : f32
    } -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
  func.func @narrow(%v: f32) -> f16 {
    %h = arith.truncf %v : f32 to f16
    return %h : f16
  }
  func.func private @helper_without_body(f32) -> f32
}
