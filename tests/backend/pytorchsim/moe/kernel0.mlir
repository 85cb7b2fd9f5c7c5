memref.global @buf0_spad : memref<8x16xi64, 1>
memref.global @index_expr_16_spad : memref<2048xindex, 1>
#map0 = affine_map<(index0, index1)[] -> (16*index0 + index1)>
memref.global @buf1_spad : memref<8x16xf32, 1>
memref.global @buf2_spad : memref<8x16xf32, 1>
func.func @kernel(%in_ptr0: memref<8xi64>,
                       %in_ptr1: memref<128xf32>,
                       %out_ptr0: memref<128xf32>)
{
    %const0 = arith.constant 0 : index
    %const1 = arith.constant 1 : index
    %const2 = arith.constant 2 : index
    %const3 = arith.constant 8 : index
    %const4 = vector.broadcast %const2 : index to vector<16xindex>
    %const5 = vector.broadcast %const3 : index to vector<16xindex>
    %const6 = vector.broadcast %const1 : index to vector<16xindex>
    %const7 = arith.constant 128 : index
    %const8 = vector.broadcast %const7 : index to vector<16xindex>
    %const9 = arith.constant 0 : i64
    %const10 = vector.broadcast %const9 : i64 to vector<4xi64>
    %const11 = arith.addi %const10, %const10 { vlane_offset=2 } : vector<4xi64> // vlane offset
    %const12 = arith.constant 3 : index
    %alloc0 = memref.alloc() : memref<1xi32> // 0
    %alloc1 = memref.alloc() : memref<1xi32> // 1
    %alloc2 = memref.alloc() : memref<1xi32> // 2
    %spad0 = memref.get_global @buf0_spad : memref<8x16xi64, 1>
    %spad1 = memref.get_global @index_expr_16_spad : memref<2048xindex, 1>
    affine.parallel (%iter) = (0) to (16) { // Base vector initializer
        %init_vec = vector.broadcast %iter : index to vector<2xindex>
        affine.vector_store %init_vec, %spad1[%iter] : memref<2048xindex, 1>, vector<2xindex>
    }
    %spad2 = memref.get_global @buf1_spad : memref<8x16xf32, 1>
    %spad3 = memref.get_global @buf2_spad : memref<8x16xf32, 1>
    affine.for %index0 = 0 to 8 step 8
    {
        affine.for %index1 = 0 to 16 step 16
        {
            %apply0 = affine.apply #map0(%index0, %index1)[] 
            memref.dma_start %in_ptr0[%index0], %spad0[%const0,%const0], %const2, %alloc0[%const0], %const1, %const2 : memref<8xi64>, memref<8x16xi64, 1>, memref<1xi32> {dram_stride=[1, 0], sram_stride=[16, 1], padding=0}
            memref.dma_start %in_ptr1[%apply0], %spad2[%const0,%const0], %const1, %alloc1[%const0], %const1, %const2 : memref<128xf32>, memref<8x16xf32, 1>, memref<1xi32> {dram_stride=[16, 1], sram_stride=[16, 1], padding=0}
            affine.for %compute_idx = 0 to 16 step 16
            {
                %tmp0 = affine.vector_load %spad0[%const0,%compute_idx] : memref<8x16xi64, 1>, vector<16xi64>
                %tmp23 = affine.vector_load %spad2[%const0,%compute_idx] : memref<8x16xf32, 1>, vector<16xf32>
                %tmp1 = affine.vector_load %spad1[0] : memref<2048xindex, 1>, vector<16xindex>
                %tmp2 = vector.broadcast %compute_idx : index to vector<16xindex>
                %tmp3 = arith.addi %tmp1, %tmp2 : vector<16xindex>
                %tmp4 = arith.divui %tmp3, %const4 : vector<16xindex>
                %tmp5 = arith.remui %tmp4, %const5 : vector<16xindex>
                %tmp6 = arith.divui %tmp3, %const6 : vector<16xindex>
                %tmp7 = arith.remui %tmp6, %const4 : vector<16xindex>
                %tmp8 = arith.remui %tmp7, %const4 : vector<16xindex>
                %tmp9 = arith.divui %tmp7, %const4 : vector<16xindex>
                %tmp10 = arith.remui %tmp9, %const6 : vector<16xindex>
                %tmp11 = arith.muli %tmp10, %const8 : vector<16xindex>
                %tmp12 = arith.addi %tmp8, %tmp11 : vector<16xindex>
                %tmp13 = arith.index_cast %const11 : vector<4xi64> to vector<4xindex>
                %tmp14 = vector.broadcast %tmp13 : vector<4xindex> to vector<4x4xindex>
                %tmp15 = vector.shape_cast %tmp14 : vector<4x4xindex> to vector<16xindex>
                %tmp16 = arith.addi %tmp12, %tmp15 : vector<16xindex>
                %tmp17 = vector.broadcast %index1 : index to vector<16xindex>
                %tmp18 = arith.addi %tmp17, %tmp16 : vector<16xindex>
                %tmp19 = arith.cmpi eq, %tmp0, %tmp18 : vector<16xi64>
                %tmp20 = arith.constant 0 : i1
                %tmp21 = vector.broadcast %tmp20 : i1 to vector<16xi1>
                %tmp22 = arith.cmpi eq, %tmp19, %tmp21 : vector<16xi1>
                %tmp24 = arith.constant 0.00000000000000000000 : f32
                %tmp25 = vector.broadcast %tmp24 : f32 to vector<16xf32>
                %tmp26 = arith.select %tmp22, %tmp25, %tmp23 : vector<16xi1>, vector<16xf32>
                affine.vector_store %tmp26, %spad3[%const0,%compute_idx] : memref<8x16xf32, 1>, vector<16xf32>
            } {inner_loop=false}
            memref.dma_start %spad3[%const0,%const0], %out_ptr0[%apply0], %const12, %alloc2[%const0], %const1, %const2 : memref<8x16xf32, 1>, memref<128xf32>, memref<1xi32> {dram_stride=[16, 1], sram_stride=[16, 1], padding=0}
        } {outer_loop=true}
    } {outer_loop=true}
    return
}
