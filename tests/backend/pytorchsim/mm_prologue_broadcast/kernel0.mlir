
// GEMM prologue fused  kernel
// M = 3
// N = 47
// K = 4
// TILE_M = 8
// TILE_N = 48
// TILE_K = 8
// SUB_TILE_M = 8
// SUB_TILE_N = 48
memref.global @X_spad : memref<8x8xf32, 1>
memref.global @W_spad : memref<8x48xf32, 1>
memref.global @Y_spad : memref<8x48xf32, 1>
#t_map0 = affine_map<(index0, index2)[] -> (4*index0 + index2)>
memref.global @buf3_spad : memref<8x8xf32, 1>
#t_map1 = affine_map<(d0, d1)[] -> (47*d0 + d1)>
#t_map2 = affine_map<(d0, d1)[] -> (4*d0 + d1)>

func.func @kernel(%X: memref<12xf32>, %W: memref<188xf32>, %in_ptr2: memref<3xf32>, %Y: memref<141xf32>, %out_ptr1: memref<12xf32>) {
  %X_buffer = memref.get_global @X_spad : memref<8x8xf32, 1>
  %W_buffer = memref.get_global @W_spad : memref<8x48xf32, 1>
  %Y_buffer = memref.get_global @Y_spad : memref<8x48xf32, 1>

  %v0 = arith.constant dense<0.0> : vector<8xf32>
  %t_const0 = arith.constant 0 : index
  %t_const1 = arith.constant 1 : index
  %t_const2 = arith.constant 2 : index
  %t_const3 = arith.constant 3 : index
  %t_alloc0 = memref.alloc() : memref<1xi32> // 0
  %t_alloc1 = memref.alloc() : memref<1xi32> // 1
  %t_alloc2 = memref.alloc() : memref<1xi32> // 2
  %t_alloc3 = memref.alloc() : memref<1xi32> // 3
  %t_alloc4 = memref.alloc() : memref<1xi32> // 4
  affine.for %index0 = 0 to 3 step 8 {
    affine.for %index1 = 0 to 47 step 48 {
      affine.vector_store %v0, %Y_buffer[0, 0] : memref<8x48xf32, 1>, vector<8xf32>
      affine.for %index2 = 0 to 4 step 8 {
        // prologue nodes
        %apply0 = affine.apply #t_map2(%index0, %index2)[]
        memref.dma_start %X[%apply0], %X_buffer[%t_const0, %t_const0], %t_const2, %t_alloc3[%t_const0], %t_const1, %t_const1 : memref<12xf32>, memref<8x8xf32, 1>, memref<1xi32> 
          {dram_stride=[4, 1], sram_stride=[1, 8], padding=0, subtile_size=[8, 8], async=0}
        %spad0 = memref.get_global @buf3_spad : memref<8x8xf32, 1>
        %prologue_apply0 = affine.apply #t_map0(%index0, %index2)[] 
        memref.dma_start %in_ptr2[%index0], %spad0[%t_const0,%t_const0], %t_const2, %t_alloc0[%t_const0], %t_const1, %t_const1 : memref<3xf32>, memref<8x8xf32, 1>, memref<1xi32> {dram_stride=[1, 0], sram_stride=[1, 8], padding=0}
        affine.for %compute_idx = 0 to 8 step 64
        {
            %prologue_0 = affine.vector_load %X_buffer[%t_const0,%compute_idx] : memref<8x8xf32, 1>, vector<64xf32>
            %prologue_1 = affine.vector_load %spad0[%t_const0,%compute_idx] : memref<8x8xf32, 1>, vector<64xf32>
            %prologue_2 = arith.addf %prologue_0, %prologue_1 : vector<64xf32>
            affine.vector_store %prologue_2, %X_buffer[%t_const0,%compute_idx] : memref<8x8xf32, 1>, vector<64xf32>
        } {inner_loop=false}
        memref.dma_start %X_buffer[%t_const0,%t_const0], %out_ptr1[%prologue_apply0], %t_const3, %t_alloc1[%t_const0], %t_const1, %t_const1 : memref<8x8xf32, 1>, memref<12xf32>, memref<1xi32> {dram_stride=[4, 1], sram_stride=[1, 8], padding=0}
        %apply1 = affine.apply #t_map1(%index2, %index1)[]
        memref.dma_start %W[%apply1], %W_buffer[%t_const0, %t_const0], %t_const2, %t_alloc4[%t_const0], %t_const1, %t_const1 : memref<188xf32>, memref<8x48xf32, 1>, memref<1xi32> 
          {dram_stride=[47, 1], sram_stride=[1, 8], padding=0, subtile_size=[8, 48], async=0}
        linalg.matmul ins(%X_buffer, %W_buffer : memref<8x8xf32, 1>, memref<8x48xf32, 1>)
                outs(%Y_buffer : memref<8x48xf32, 1>)
      } { accumulation_loop=true, subtile_loop="k" }
      affine.for %compute_idx = 0 to 8 step 64
      {
      } {inner_loop=false}
      %epilogue_apply0 = affine.apply #t_map1(%index0, %index1)[]
      memref.dma_start %Y_buffer[%t_const0, %t_const0], %Y[%epilogue_apply0], %t_const3, %t_alloc2[%t_const0], %t_const1, %t_const1 : memref<8x48xf32, 1>, memref<141xf32>, memref<1xi32> 
        {dram_stride=[47, 1], sram_stride=[1, 8], padding=0}
    } { outer_loop=true, subtile_loop="n"  }
  } { outer_loop=true, subtile_loop="m" }
  return
}
