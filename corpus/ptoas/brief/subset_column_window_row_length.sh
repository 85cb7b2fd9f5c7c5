#!/bin/sh
# ptoas 0.27: pto.subset of a column window (4x8 at row 2, column 8 of a 16x32 tile) reads wrong elements.
# RUN: sh %s
# (PTOAS: ptoas; PTO_ISA: pto-isa's include directory) exits 1 while the bug shows, 0 once it is right.
[ -x "$PTOAS" ] && [ -d "$PTO_ISA" ] || { echo "set PTOAS to ptoas and PTO_ISA to pto-isa's include"; exit 2; }
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; cd "$d" || exit 2
cat > k.pto <<'PTO'
!tb = !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, blayout=row_major, slayout=none_box, fractal=512, pad=0>
!ts = !pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=8, v_row=4, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
!tv = !pto.tensor_view<?x?xf32>
module {
  func.func @kernel(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) attributes {pto.entry, pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tv0 = pto.make_tensor_view %a, shape = [%c16, %c32], strides = [%c32, %c1] : !tv
    %pv0 = pto.partition_view %tv0, offsets = [%c0, %c0], sizes = [%c16, %c32] : !tv -> !pto.partition_tensor_view<16x32xf32>
    %x = pto.alloc_tile : !tb
    pto.tload ins(%pv0 : !pto.partition_tensor_view<16x32xf32>) outs(%x : !tb)
    %s = pto.subset %x[%c2, %c8] sizes [4, 8] : !tb
    %tv1 = pto.make_tensor_view %o, shape = [%c4, %c8], strides = [%c8, %c1] : !tv
    %pv1 = pto.partition_view %tv1, offsets = [%c0, %c0], sizes = [%c4, %c8] : !tv -> !pto.partition_tensor_view<4x8xf32>
    pto.tstore ins(%s : !ts) outs(%pv1 : !pto.partition_tensor_view<4x8xf32>)
    return
  }
}
PTO
"$PTOAS" --pto-arch=a3 k.pto -o k.cpp >log 2>&1 || { cat log; exit 2; }
printf '%s\n' '#include <cstdint>' '#include <cstdio>' '#include <cstdlib>' '#include "k.cpp"' \
  'static float in[512], out[32];' 'int main() { setenv("PTO_CPU_SIM_UB_BYTES", "196608", 1);' \
  '  for (int i = 0; i < 512; ++i) in[i] = i;  kernel(in, out); int bad = 0;' \
  '  for (int r = 0; r < 4; ++r) { for (int c = 0; c < 8; ++c) { printf(" %3g", out[r * 8 + c]);' \
  '    bad |= out[r * 8 + c] != (2 + r) * 32 + 8 + c; } printf("   expected %d..%d\n", (2 + r) * 32 + 8, (2 + r) * 32 + 15); }' \
  '  return bad; }' > main.cpp
clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" main.cpp -o main || exit 2
./main
