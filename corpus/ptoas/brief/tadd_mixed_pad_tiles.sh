#!/bin/sh
# pto-isa CPU sim: TADD of tiles with different pad kinds (ptoas verifies and emits it) does not compile.
# RUN: sh %s
# (PTOAS: ptoas; PTO_ISA: pto-isa's include directory) exits 1 while the bug shows, 0 once it compiles.
[ -x "$PTOAS" ] && [ -d "$PTO_ISA" ] || { echo "set PTOAS to ptoas and PTO_ISA to pto-isa's include"; exit 2; }
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; cd "$d" || exit 2
cat > k.pto <<'EOF'
!t0 = !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=32, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
!t2 = !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=32, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=2>
!tv = !pto.tensor_view<?x?xf32>
!pv = !pto.partition_tensor_view<8x32xf32>
module {
  func.func @kernel(%a: !pto.ptr<f32>, %o: !pto.ptr<f32>) attributes {pto.entry, pto.kernel_kind = #pto.kernel_kind<vector>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %tv0 = pto.make_tensor_view %a, shape = [%c8, %c32], strides = [%c32, %c1] : !tv
    %pv0 = pto.partition_view %tv0, offsets = [%c0, %c0], sizes = [%c8, %c32] : !tv -> !pv
    %x = pto.alloc_tile valid_row = %c8 valid_col = %c32 : !t0
    pto.tload ins(%pv0 : !pv) outs(%x : !t0)
    %p = pto.alloc_tile valid_row = %c8 valid_col = %c32 : !t2
    pto.tfillpad ins(%x : !t0) outs(%p : !t2)
    %s = pto.alloc_tile valid_row = %c8 valid_col = %c32 : !t0
    pto.tadd ins(%x, %p : !t0, !t2) outs(%s : !t0)
    %tv1 = pto.make_tensor_view %o, shape = [%c8, %c32], strides = [%c32, %c1] : !tv
    %pv1 = pto.partition_view %tv1, offsets = [%c0, %c0], sizes = [%c8, %c32] : !tv -> !pv
    pto.tstore ins(%s : !t0) outs(%pv1 : !pv)
    return
  }
}
EOF
"$PTOAS" --pto-arch=a3 k.pto -o k.cpp 2>/dev/null || { echo "ptoas rejects the kernel (verifier closed the gap)"; exit 0; }
echo "ptoas accepts pto.tadd of pad=0 and pad=2 (max) tiles and emits: $(grep -o 'TADD(.*' k.cpp)"
printf '#include <cstdint>\n#include "k.cpp"\nint main() { return 0; }\n' > main.cpp
if clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" -fsyntax-only main.cpp 2> err.txt; then
  echo "got: pto-isa compiles it; expected: same"; exit 0; fi
echo "got: pto-isa (CPU sim) does not compile it:"; grep -E 'error|candidate' err.txt
echo "expected: it compiles (pto-isa's NPU TADD_IMPL and the CPU TSUB/TMUL/TMAX take three tile types)"; exit 1
