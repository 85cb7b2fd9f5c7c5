// affine-loop-fusion fuses the loop that clears topk's %taken mask into the
// selection loop, ignoring the dependence through the non-affine
// memref.store that marks picked elements: every pass can pick the same
// element again. (npufuzz's own topk lowering no longer writes such a mask.)
// npufuzz verify-pipeline FILE --pipeline func.func(affine-loop-fusion)  => mismatch
module {
  func.func @npf_kernel(%in0: memref<4x16xf32>, %in1: memref<4x1xi64>, %out0: memref<4x2xf32>, %out1: memref<4x2xi64>) attributes {llvm.emit_c_interface} {
    %c22 = arith.constant true
    %c30 = arith.constant 0xFF800000 : f32
    %c34 = arith.constant false
    %c43 = arith.constant 0x00000000 : f32
    %c44 = arith.constant 0 : index
    // input
    // input
    // iota
    %buf0 = memref.alloc() : memref<4x16xindex>
    affine.for %i1 = 0 to 4 {
      affine.for %i2 = 0 to 16 {
        affine.store %i2, %buf0[%i1, %i2] : memref<4x16xindex>
      }
    }
    // cast
    %buf3 = memref.alloc() : memref<4x16xi64>
    affine.for %i4 = 0 to 4 {
      affine.for %i5 = 0 to 16 {
        %t6 = affine.load %buf0[%i4, %i5] : memref<4x16xindex>
        %t7 = arith.index_cast %t6 : index to i64
        affine.store %t7, %buf3[%i4, %i5] : memref<4x16xi64>
      }
    }
    // broadcast
    %buf8 = memref.alloc() : memref<4x16xi64>
    affine.for %i9 = 0 to 4 {
      affine.for %i10 = 0 to 16 {
        %t11 = affine.load %in1[%i9, 0] : memref<4x1xi64>
        affine.store %t11, %buf8[%i9, %i10] : memref<4x16xi64>
      }
    }
    // eq
    %buf12 = memref.alloc() : memref<4x16xi1>
    affine.for %i13 = 0 to 4 {
      affine.for %i14 = 0 to 16 {
        %t15 = affine.load %buf3[%i13, %i14] : memref<4x16xi64>
        %t16 = affine.load %buf8[%i13, %i14] : memref<4x16xi64>
        %t17 = arith.cmpi eq, %t15, %t16 : i64
        affine.store %t17, %buf12[%i13, %i14] : memref<4x16xi1>
      }
    }
    // not
    %buf18 = memref.alloc() : memref<4x16xi1>
    affine.for %i19 = 0 to 4 {
      affine.for %i20 = 0 to 16 {
        %t21 = affine.load %buf12[%i19, %i20] : memref<4x16xi1>
        %t23 = arith.xori %t21, %c22 : i1
        affine.store %t23, %buf18[%i19, %i20] : memref<4x16xi1>
      }
    }
    // masked_fill
    %buf24 = memref.alloc() : memref<4x16xf32>
    affine.for %i25 = 0 to 4 {
      affine.for %i26 = 0 to 16 {
        %t27 = affine.load %in0[%i25, %i26] : memref<4x16xf32>
        %t28 = affine.load %buf18[%i25, %i26] : memref<4x16xi1>
        %t29 = arith.select %t28, %c30, %t27 : f32
        affine.store %t29, %buf24[%i25, %i26] : memref<4x16xf32>
      }
    }
    // topk
    %buf31 = memref.alloc() : memref<4x2xf32>
    %buf32 = memref.alloc() : memref<4x2xi64>
    %taken33 = memref.alloc() : memref<16xi1>
    affine.for %i35 = 0 to 4 {
      affine.for %j36 = 0 to 16 {
        affine.store %c34, %taken33[%j36] : memref<16xi1>
      }
      affine.for %r37 = 0 to 2 {
        %pick42:3 = affine.for %j38 = 0 to 16 iter_args(%bv39 = %c43, %bi40 = %c44, %has41 = %c34) -> (f32, index, i1) {
          %t45 = affine.load %taken33[%j38] : memref<16xi1>
          %t46 = affine.load %buf24[%i35, %j38] : memref<4x16xf32>
          %t48 = arith.cmpf ogt, %t46, %bv39 : f32
          %t49 = arith.cmpf uno, %t46, %t46 : f32
          %t50 = arith.cmpf ord, %bv39, %bv39 : f32
          %t51 = arith.andi %t49, %t50 : i1
          %t47 = arith.ori %t48, %t51 : i1
          %t52 = arith.xori %has41, %c22 : i1
          %t53 = arith.ori %t52, %t47 : i1
          %t54 = arith.xori %t45, %c22 : i1
          %t55 = arith.andi %t53, %t54 : i1
          %t56 = arith.select %t55, %t46, %bv39 : f32
          %t57 = arith.select %t55, %j38, %bi40 : index
          %t58 = arith.ori %has41, %t55 : i1
          affine.yield %t56, %t57, %t58 : f32, index, i1
        }
        memref.store %c22, %taken33[%pick42#1] : memref<16xi1>
        affine.store %pick42#0, %buf31[%i35, %r37] : memref<4x2xf32>
        %t59 = arith.index_cast %pick42#1 : index to i64
        affine.store %t59, %buf32[%i35, %r37] : memref<4x2xi64>
      }
    }
    memref.copy %buf31, %out0 : memref<4x2xf32> to memref<4x2xf32>
    memref.copy %buf32, %out1 : memref<4x2xi64> to memref<4x2xi64>
    memref.dealloc %buf0 : memref<4x16xindex>
    memref.dealloc %buf3 : memref<4x16xi64>
    memref.dealloc %buf8 : memref<4x16xi64>
    memref.dealloc %buf12 : memref<4x16xi1>
    memref.dealloc %buf18 : memref<4x16xi1>
    memref.dealloc %buf24 : memref<4x16xf32>
    memref.dealloc %buf31 : memref<4x2xf32>
    memref.dealloc %buf32 : memref<4x2xi64>
    memref.dealloc %taken33 : memref<16xi1>
    return
  }
}
