// affine-super-vectorize{virtual-vector-size=16} alone segfaults on this
// module: a reduction loop (iter_args) whose body also stores to the memref
// it then loads, inside a loop of trip count 1 (what affine-loop-fusion makes
// of a fillpad feeding a 1x4 by 4x3 matmul). The crash is in an operation
// walk during vectorization; in npufuzz's process the same heap damage shows
// as a segfault or as glibc's "double free" abort. Found by the affine `O2`
// campaign (seed 345, once round and clamp joined the op pool), from the
// reduced case `%0 = input {fill=zeros} : f32[1,4]{valid=1x4}; %1 = fillpad
// %0 {pad=zero}; %2 = const {value=1e-40} : f32[4,3]; %3 = matmul %1, %2`.
//
//   mlir-opt-22 --pass-pipeline='builtin.module(func.func(affine-super-vectorize{virtual-vector-size=16}))' FILE
//
// exits with a segmentation fault.
module {
  func.func @npf_kernel(%arg0: memref<1x4xf32>, %arg1: memref<1x3xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.999940e-41 : f32
    %alloc = memref.alloc() : memref<1x4xf32>
    %alloc_1 = memref.alloc() : memref<4x3xf32>
    %alloc_2 = memref.alloc() : memref<1x3xf32>
    affine.for %arg2 = 0 to 1 {
      affine.for %arg3 = 0 to 4 {
        %0 = affine.load %arg0[%c0, %arg3] : memref<1x4xf32>
        %1 = arith.cmpi slt, %c0, %c1 : index
        %2 = arith.cmpi slt, %arg3, %c4 : index
        %3 = arith.andi %1, %2 : i1
        %4 = arith.select %3, %0, %cst : f32
        affine.store %4, %alloc[%c0, %arg3] : memref<1x4xf32>
      }
      affine.for %arg3 = 0 to 3 {
        %0 = affine.for %arg4 = 0 to 4 iter_args(%arg5 = %cst) -> (f32) {
          affine.store %cst_0, %alloc_1[%arg4, %arg3] : memref<4x3xf32>
          %1 = affine.load %alloc[%arg2, %arg4] : memref<1x4xf32>
          %2 = affine.load %alloc_1[%arg4, %arg3] : memref<4x3xf32>
          %3 = arith.mulf %1, %2 : f32
          %4 = arith.addf %arg5, %3 : f32
          affine.yield %4 : f32
        }
        affine.store %0, %alloc_2[%arg2, %arg3] : memref<1x3xf32>
      }
    }
    memref.copy %alloc_2, %arg1 : memref<1x3xf32> to memref<1x3xf32>
    memref.dealloc %alloc : memref<1x4xf32>
    memref.dealloc %alloc_1 : memref<4x3xf32>
    memref.dealloc %alloc_2 : memref<1x3xf32>
    return
  }
}

