// Seed 002's shape, written by hand as ptoas emitted it there: an op's
// output tile is default-constructed, so its valid shape is garbage when
// TADD reads it, and is set only afterwards. NPF_INIT_OUTPUT_TILE gives the
// fixed kernel: the tile constructed with its valid shape.
#include "pto/pto-inst.hpp"
using namespace pto;

__global__ AICORE void npf_kernel(__gm__ float *in, __gm__ float *out) {
  using Dynamic = Tile<TileType::Vec, float, 2, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox,
                       512, PadValue::Null, CompactMode::Null>;
  using Global = GlobalTensor<float, pto::Shape<1, 1, 1, 2, 8>, pto::Stride<16, 16, 16, 8, 1>,
                              pto::Layout::ND>;
  Global src(in, pto::Shape<1, 1, 1, 2, 8>(), pto::Stride<16, 16, 16, 8, 1>());
  Global dst(out, pto::Shape<1, 1, 1, 2, 8>(), pto::Stride<16, 16, 16, 8, 1>());
  Dynamic a(2, 8);
  TASSIGN(a, (uint64_t)0);
  TLOAD(a, src);
#ifdef NPF_INIT_OUTPUT_TILE
  Dynamic sum(2, 8);
#else
  Dynamic sum;
#endif
  TASSIGN(sum, (uint64_t)256);
  TADD(sum, a, a);
  sum.SetValidShape(2, 8);
  TSTORE(dst, sum);
}
