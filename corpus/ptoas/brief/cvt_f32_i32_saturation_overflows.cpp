// RUN: clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" %s -o %t && %t
// pto-isa CPU sim: TCVT f32 -> i32 of values >= 2^31 gives INT_MIN (g++ 12 cannot compile pto-isa; use clang++).
// docs/isa/state-and-types/type-system.md: f32 -> i32 overflow "saturates on CPU simulator"; the A2A3 TCVT_IMPL
// defaults f32->i32 to SaturationMode::ON. The sim defaults to OFF (plain UB cast), and its ON path clamps to
// 2147483647.0 in the *source* type (float), i.e. to 2^31, and still overflows.
#include <cstdint>
#include <cstdio>
#include <pto/pto-inst.hpp>
using namespace pto;
using TF = Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
using TI = Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
int main() {
  const float in[4] = {3e9f, 2147483648.0f, 2147483520.0f, -3e9f};
  const int32_t want[4] = {INT32_MAX, INT32_MAX, 2147483520, INT32_MIN};
  TF src(1, 4);
  TI dst(1, 4), dstSat(1, 4);
  TASSIGN(src, 0);
  TASSIGN(dst, 32);
  TASSIGN(dstSat, 64);
  for (int j = 0; j < 4; ++j)
    src.SetElement(0, j, in[j]);
  TCVT(dst, src, RoundMode::CAST_RINT);                       // what ptoas emits for pto.tcvt
  TCVT(dstSat, src, RoundMode::CAST_RINT, SaturationMode::ON); // explicit saturation
  int bad = 0;
  for (int j = 0; j < 4; ++j) {
    const int32_t a = dst.GetElement(0, j), b = dstSat.GetElement(0, j);
    std::printf("tcvt rint f32 %.1f -> i32: got %d (SaturationMode::ON: %d), expected %d\n", in[j], a, b, want[j]);
    bad |= a != want[j] || b != want[j];
  }
  std::printf(bad ? "BUG: f32->i32 overflow is not saturated\n" : "ok\n");
  return bad;
}
