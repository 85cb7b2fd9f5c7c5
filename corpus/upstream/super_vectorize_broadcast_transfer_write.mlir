// affine-super-vectorize vectorizes a store along a loop whose IV is not
// used by the store's innermost subscript and emits a vector.transfer_write
// with a broadcast dimension, which the verifier rejects. Generated from
// npufuzz gen --seed 0.
// npufuzz verify-pipeline FILE --pipeline O2  => verifier-error at pass 5
module {
  func.func @npf_kernel(%in0: memref<1x941x1xf32>, %in1: memref<4x1x2x1x1x4xi64>, %in2: memref<2931x1xindex>, %out0: memref<1x941x1xf32>, %out1: memref<4x1x2x1x1x4xi64>, %out2: memref<2931x1xindex>) attributes {llvm.emit_c_interface} {
    %c5 = arith.constant 0x3F800000 : f32
    %c6 = arith.constant 0x00000000 : f32
    %c33 = arith.constant 2690 : index
    %c34 = arith.constant 1 : index
    %c35 = arith.constant 0 : index
    // input
    // tanh
    %buf0 = memref.alloc() : memref<1x941x1xf32>
    affine.for %i1 = 0 to 1 {
      affine.for %i2 = 0 to 941 {
        affine.for %i3 = 0 to 1 {
          %t4 = affine.load %in0[%i1, %i2, %i3] : memref<1x941x1xf32>
          %t7 = math.tanh %t4 : f32
          affine.store %t7, %buf0[%i1, %i2, %i3] : memref<1x941x1xf32>
        }
      }
    }
    // min
    %buf8 = memref.alloc() : memref<1x941x1xf32>
    affine.for %i9 = 0 to 1 {
      affine.for %i10 = 0 to 941 {
        affine.for %i11 = 0 to 1 {
          %t12 = affine.load %in0[%i9, %i10, %i11] : memref<1x941x1xf32>
          %t13 = affine.load %buf0[%i9, %i10, %i11] : memref<1x941x1xf32>
          %t14 = arith.minimumf %t12, %t13 : f32
          affine.store %t14, %buf8[%i9, %i10, %i11] : memref<1x941x1xf32>
        }
      }
    }
    // input
    // and
    %buf15 = memref.alloc() : memref<4x1x2x1x1x4xi64>
    affine.for %i16 = 0 to 4 {
      affine.for %i17 = 0 to 1 {
        affine.for %i18 = 0 to 2 {
          affine.for %i19 = 0 to 1 {
            affine.for %i20 = 0 to 1 {
              affine.for %i21 = 0 to 4 {
                %t22 = affine.load %in1[%i16, %i17, %i18, %i19, %i20, %i21] : memref<4x1x2x1x1x4xi64>
                %t23 = affine.load %in1[%i16, %i17, %i18, %i19, %i20, %i21] : memref<4x1x2x1x1x4xi64>
                %t24 = arith.andi %t22, %t23 : i64
                affine.store %t24, %buf15[%i16, %i17, %i18, %i19, %i20, %i21] : memref<4x1x2x1x1x4xi64>
              }
            }
          }
        }
      }
    }
    // input
    // set_validshape
    // fillpad
    %buf25 = memref.alloc() : memref<2931x1xindex>
    affine.for %i26 = 0 to 2931 {
      affine.for %i27 = 0 to 1 {
        %t28 = affine.load %in2[%i26, %i27] : memref<2931x1xindex>
        %t29 = arith.cmpi slt, %i26, %c33 : index
        %t30 = arith.cmpi slt, %i27, %c34 : index
        %t31 = arith.andi %t29, %t30 : i1
        %t32 = arith.select %t31, %t28, %c35 : index
        affine.store %t32, %buf25[%i26, %i27] : memref<2931x1xindex>
      }
    }
    memref.copy %buf8, %out0 : memref<1x941x1xf32> to memref<1x941x1xf32>
    memref.copy %buf15, %out1 : memref<4x1x2x1x1x4xi64> to memref<4x1x2x1x1x4xi64>
    memref.copy %buf25, %out2 : memref<2931x1xindex> to memref<2931x1xindex>
    memref.dealloc %buf0 : memref<1x941x1xf32>
    memref.dealloc %buf8 : memref<1x941x1xf32>
    memref.dealloc %buf15 : memref<4x1x2x1x1x4xi64>
    memref.dealloc %buf25 : memref<2931x1xindex>
    return
  }
}
