#map0 = affine_map<(index1) -> ((index1 floordiv 1) mod 8)>
#map1 = affine_map<(index1) -> ((index1 floordiv 8))>
#map2 = affine_map<(index0, apply0, apply1)[] -> (8*apply0 + apply1 + 64*index0)>
memref.global @buf0_spad : memref<8x64xf32, 1>
#map3 = affine_map<(index0, index1)[] -> (64*index0 + index1)>
memref.global @buf1_spad : memref<8x64xf32, 1>
func.func @kernel(%in_ptr0: memref<4096xf32>,
                       %out_ptr0: memref<4096xf32>)
{
    %const0 = arith.constant 0 : index
    %const1 = arith.constant 1 : index
    %const2 = arith.constant 2 : index
    %const3 = arith.constant 3 : index
    %alloc0 = memref.alloc() : memref<1xi32> // 0
    %alloc1 = memref.alloc() : memref<1xi32> // 1
    %spad0 = memref.get_global @buf0_spad : memref<8x64xf32, 1>
    %spad1 = memref.get_global @buf1_spad : memref<8x64xf32, 1>
    affine.for %index0 = 0 to 64 step 8
    {
        affine.for %index1 = 0 to 64 step 64
        {
            %apply0 = affine.apply #map0(%index1)
            %apply1 = affine.apply #map1(%index1)
            %apply2 = affine.apply #map2(%index0, %apply0, %apply1)[] 
            %apply3 = affine.apply #map3(%index0, %index1)[] 
            memref.dma_start %in_ptr0[%apply2], %spad0[%const0,%const0], %const2, %alloc0[%const0], %const1, %const2 : memref<4096xf32>, memref<8x64xf32, 1>, memref<1xi32> {dram_stride=[64, 8], sram_stride=[64, 1], padding=0}
            affine.for %compute_idx = 0 to 16 step 16
            {
                %tmp0 = affine.vector_load %spad0[%const0,%compute_idx] : memref<8x64xf32, 1>, vector<16xf32>
                %tmp1 = arith.constant 1.00000000000000000000 : f32
                %tmp2 = vector.broadcast %tmp1 : f32 to vector<16xf32>
                %tmp3 = arith.addf %tmp0, %tmp2 : vector<16xf32>
                affine.vector_store %tmp3, %spad1[%const0,%compute_idx] : memref<8x64xf32, 1>, vector<16xf32>
            } {inner_loop=false}
            memref.dma_start %spad1[%const0,%const0], %out_ptr0[%apply3], %const3, %alloc1[%const0], %const1, %const2 : memref<8x64xf32, 1>, memref<4096xf32>, memref<1xi32> {dram_stride=[64, 1], sram_stride=[64, 1], padding=0}
        } {outer_loop=true}
    } {outer_loop=true}
    return
}
