// RUN: clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" %s -o %t && %t
// pto-isa CPU sim: TCVT f32 -> f16 ignores the RoundMode (always round-to-nearest-even); TCVT.md and
// type-system.md ("f32 -> f16/bf16: round according to rnd") say the mode applies.
#include <cstdint>
#include <cstdio>
#include <pto/pto-inst.hpp>
using namespace pto;
using TF = Tile<TileType::Vec, float, 1, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
using TH = Tile<TileType::Vec, half, 1, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
int main() {
  const float in[3] = {1.0007f, -1.0007f, 70000.0f};
  const RoundMode mode[3] = {RoundMode::CAST_TRUNC, RoundMode::CAST_TRUNC, RoundMode::CAST_FLOOR};
  const char *name[3] = {"TRUNC", "TRUNC", "FLOOR"};
  const float want[3] = {1.0f, -1.0f, 65504.0f};
  int bad = 0;
  for (int k = 0; k < 3; ++k) {
    TF src(1, 1);
    TH dst(1, 1);
    TASSIGN(src, 0);
    TASSIGN(dst, 64);
    src.SetElement(0, 0, in[k]);
    TCVT(dst, src, mode[k]); // as ptoas emits pto.tcvt {rmode = #pto<round_mode TRUNC>}
    const float got = static_cast<float>(dst.GetElement(0, 0));
    std::printf("tcvt %s f32 %.7g -> f16: got %.9g, expected %.9g\n", name[k], in[k], got, want[k]);
    bad |= got != want[k];
  }
  std::printf(bad ? "BUG: f32->f16 rounding mode ignored\n" : "ok\n");
  return bad;
}
