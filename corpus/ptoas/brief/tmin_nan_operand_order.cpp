// RUN: clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" %s -o %t && %t
// pto-isa CPU sim: TMIN/TMAX (std::min/std::max) return the other operand when the NaN is src1, and NaN when
// it is src0. type-system.md: "Quiet NaN in -> quiet NaN out"; vmin.md/vmax.md: "If either operand is NaN,
// the result is NaN". TMIN.md/TMAX.md themselves say nothing of NaN.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <pto/pto-inst.hpp>
using namespace pto;
using TF = Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
int main() {
  TF a(1, 2), b(1, 2), mn(1, 2), mx(1, 2);
  TASSIGN(a, 0);
  TASSIGN(b, 32);
  TASSIGN(mn, 64);
  TASSIGN(mx, 96);
  a.SetElement(0, 0, 1.0f), b.SetElement(0, 0, NAN); // (x, NaN)
  a.SetElement(0, 1, NAN), b.SetElement(0, 1, 1.0f); // (NaN, x)
  TMIN(mn, a, b);
  TMAX(mx, a, b);
  int bad = 0;
  for (int j = 0; j < 2; ++j) {
    const char *args = j ? "NaN, 1" : "1, NaN";
    std::printf("tmin(%s): got %g, expected nan\n", args, mn.GetElement(0, j));
    std::printf("tmax(%s): got %g, expected nan\n", args, mx.GetElement(0, j));
    bad |= !std::isnan(mn.GetElement(0, j)) || !std::isnan(mx.GetElement(0, j));
  }
  std::printf(bad ? "BUG: NaN does not propagate from src1\n" : "ok\n");
  return bad;
}
