// RUN: clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" %s -o %t && %t
// pto-isa CPU sim: TFILLPAD of f16 with PadValue::Min/Max writes 0: TFillPad takes the pad from
// std::numeric_limits<half>, and half is _Float16, which libstdc++ (C++20) does not specialise (has_infinity
// false, min()/max() 0). tfillpad.md: +inf/-inf for floating types; the NPU uses PadValueMap (0xFC00/0x7C00).
#include <cstdint>
#include <cstdio>
#include <pto/pto-inst.hpp>
using namespace pto;
template <PadValue P>
using TH = Tile<TileType::Vec, half, 1, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, P, CompactMode::Null>;
int main() {
  TH<PadValue::Null> src(1, 8);
  TH<PadValue::Min> lo(1, 8); // as ptoas emits for pto.tfillpad outs(... pad=3)
  TH<PadValue::Max> hi(1, 8); // pad=2
  TASSIGN(src, 0);
  TASSIGN(lo, 32);
  TASSIGN(hi, 64);
  for (int j = 0; j < 8; ++j)
    src.SetElement(0, j, static_cast<half>(0));
  TFILLPAD(lo, src);
  TFILLPAD(hi, src);
  const float gotLo = static_cast<float>(lo.data()[8]), gotHi = static_cast<float>(hi.data()[8]);
  std::printf("tfillpad f16 pad=min: pad element got %g, expected -inf\n", gotLo);
  std::printf("tfillpad f16 pad=max: pad element got %g, expected inf\n", gotHi);
  const bool bad = gotLo != -__builtin_inff() || gotHi != __builtin_inff();
  std::printf(bad ? "BUG: f16 pad value is not +-inf\n" : "ok\n");
  return bad;
}
