// RUN: clang++-22 -std=c++20 -D__CPU_SIM -D__DAV_VEC__ -O0 -w -I "$PTO_ISA" %s -o %t && %t
// pto-isa CPU sim: TMAX of -0 and +0 is std::max's first operand, so the result depends on operand order
// (IEEE 754-2019 maximum gives +0 either way). TMAX.md does not say how signed zeros compare.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <pto/pto-inst.hpp>
using namespace pto;
using TF = Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;
int main() {
  TF a(1, 2), b(1, 2), d(1, 2);
  TASSIGN(a, 0);
  TASSIGN(b, 32);
  TASSIGN(d, 64);
  a.SetElement(0, 0, -0.0f), b.SetElement(0, 0, +0.0f); // tmax(-0, +0)
  a.SetElement(0, 1, +0.0f), b.SetElement(0, 1, -0.0f); // tmax(+0, -0)
  TMAX(d, a, b);
  const float r0 = d.GetElement(0, 0), r1 = d.GetElement(0, 1);
  std::printf("tmax(-0, +0): got %+g, expected +0\n", r0);
  std::printf("tmax(+0, -0): got %+g, expected +0\n", r1);
  const bool bad = std::signbit(r0) || std::signbit(r1);
  std::printf(bad ? "BUG (or docs-allowed): signed-zero max depends on operand order\n" : "ok\n");
  return bad;
}
