
// GEMM  eilogue fused kernel
// M = 32
// N = 48
// K = 64
// TILE_M = 32
// TILE_N = 48
// TILE_K = 64
// SUB_TILE_M = 32
// SUB_TILE_N = 48
memref.global @X_spad : memref<32x64xf32, 1>
memref.global @W_spad : memref<64x48xf32, 1>
memref.global @Y_spad : memref<32x48xf32, 1>
#t_map0 = affine_map<(d0, d1)[] -> (64*d0 + d1)>
#t_map1 = affine_map<(d0, d1)[] -> (48*d0 + d1)>
#t_map2 = affine_map<(index0, index1)[] -> (48*index0 + index1)>
memref.global @buf3_spad : memref<32x48xf32, 1>

func.func @kernel(%X: memref<2048xf32>, %W: memref<3072xf32>, %out_ptr1: memref<1536xf32>) {
  %X_buffer = memref.get_global @X_spad : memref<32x64xf32, 1>
  %W_buffer = memref.get_global @W_spad : memref<64x48xf32, 1>
  %Y_buffer = memref.get_global @Y_spad : memref<32x48xf32, 1>

  %v0 = arith.constant dense<0.0> : vector<32xf32>
  %t_const0 = arith.constant 0 : index
  %t_const1 = arith.constant 1 : index
  %t_const2 = arith.constant 2 : index
  %t_const3 = arith.constant 3 : index
  %t_alloc0 = memref.alloc() : memref<1xi32> // 0
  %t_alloc1 = memref.alloc() : memref<1xi32> // 1
  %t_alloc2 = memref.alloc() : memref<1xi32> // 2
  affine.for %index0 = 0 to 32 step 32 {
    affine.for %index1 = 0 to 48 step 48 {
      affine.vector_store %v0, %Y_buffer[0, 0] : memref<32x48xf32, 1>, vector<32xf32>
      affine.for %index2 = 0 to 64 step 64 {
        %apply0 = affine.apply #t_map0(%index0, %index2)[]
        memref.dma_start %X[%apply0], %X_buffer[%t_const0, %t_const0], %t_const2, %t_alloc0[%t_const0], %t_const1, %t_const1 : memref<2048xf32>, memref<32x64xf32, 1>, memref<1xi32> 
          {dram_stride=[64, 1], sram_stride=[1, 32], padding=0, subtile_size=[32, 64], async=1}
        %apply1 = affine.apply #t_map1(%index2, %index1)[]
        memref.dma_start %W[%apply1], %W_buffer[%t_const0, %t_const0], %t_const2, %t_alloc1[%t_const0], %t_const1, %t_const1 : memref<3072xf32>, memref<64x48xf32, 1>, memref<1xi32> 
          {dram_stride=[48, 1], sram_stride=[1, 64], padding=0, subtile_size=[64, 48], async=1}
        linalg.matmul ins(%X_buffer, %W_buffer : memref<32x64xf32, 1>, memref<64x48xf32, 1>)
                outs(%Y_buffer : memref<32x48xf32, 1>)
      } { accumulation_loop=true, subtile_loop="k" }
      %spad0 = memref.get_global @buf3_spad : memref<32x48xf32, 1>
      %epilogue_apply0 = affine.apply #t_map2(%index0, %index1)[] 
      affine.for %compute_idx = 0 to 32 step 64
      {
          %epilogue_0 = affine.vector_load %Y_buffer[%t_const0,%compute_idx] : memref<32x48xf32, 1>, vector<64xf32>
          %epilogue_1 = arith.constant 0.00000000000000000000 : f32
          %epilogue_2 = vector.broadcast %epilogue_1 : f32 to vector<64xf32>
          %epilogue_3 = arith.maximumf %epilogue_0, %epilogue_2 : vector<64xf32>
          affine.vector_store %epilogue_3, %spad0[%t_const0,%compute_idx] : memref<32x48xf32, 1>, vector<64xf32>
      } {inner_loop=false}
      memref.dma_start %spad0[%t_const0,%t_const0], %out_ptr1[%epilogue_apply0], %t_const3, %t_alloc2[%t_const0], %t_const1, %t_const1 : memref<32x48xf32, 1>, memref<1536xf32>, memref<1xi32> {dram_stride=[48, 1], sram_stride=[1, 32], padding=0}
    } { outer_loop=true, subtile_loop="n"  }
  } { outer_loop=true, subtile_loop="m" }
  return
}
