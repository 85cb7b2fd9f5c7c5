//===- tests/reference/DTypeTest.cpp - Exact dtype conversions ------------===//
//
// Hand-computed goldens for every rounding mode of the f32 -> bf16/f16,
// int -> float and float -> int conversions, plus properties checked against
// independent oracles (the compiler's _Float16 and int64 -> float
// conversions, which are IEEE round-to-nearest-even).
//
//===----------------------------------------------------------------------===//

#include "RefTestUtil.h"
#include "reference/OpEval.h"

#include <rapidcheck/gtest.h>

#include <climits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

constexpr RoundingMode RNE = RoundingMode::NearestEven;
constexpr RoundingMode RNA = RoundingMode::NearestAway;
constexpr RoundingMode RTZ = RoundingMode::TowardZero;
constexpr RoundingMode RDN = RoundingMode::Down;
constexpr RoundingMode RUP = RoundingMode::Up;

uint16_t bf16(uint32_t f32bits, RoundingMode m) { return floatToBF16Bits(fromBits(f32bits), m); }

TEST(DTypeNames, RoundTrip) {
  for (int k = 0; k < kNumDTypes; ++k) {
    const DType t = static_cast<DType>(k);
    EXPECT_EQ(parseDType(dtypeName(t)), t);
  }
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(dtypeName(DType::Index), "index");
  EXPECT_FALSE(parseDType("f64"));
  for (RoundingMode m : {RNE, RNA, RTZ, RDN, RUP})
    EXPECT_EQ(parseRounding(roundingName(m)), m);
  EXPECT_EQ(roundingName(RDN), "rdn");
  EXPECT_EQ(roundingName(RUP), "rup");
  EXPECT_FALSE(parseRounding("rnd"));
}

TEST(DTypeNames, Classes) {
  EXPECT_TRUE(isFloat(DType::BF16));
  EXPECT_FALSE(isFloat(DType::I1));
  EXPECT_TRUE(isInteger(DType::Index));
  EXPECT_FALSE(isInteger(DType::I1));
  EXPECT_TRUE(isIntLike(DType::I1));
  EXPECT_FALSE(isIntLike(DType::F16));
  EXPECT_EQ(bitWidth(DType::I1), 1u);
  EXPECT_EQ(bitWidth(DType::Index), 64u);
  EXPECT_EQ(bitWidth(DType::BF16), 16u);
  EXPECT_EQ(byteSize(DType::I1), 1u);
  EXPECT_EQ(byteSize(DType::Index), 8u);
  EXPECT_EQ(byteSize(DType::F16), 2u);
  EXPECT_EQ(byteSize(DType::I8), 1u);
}

TEST(DTypeInt, WrapAndLimits) {
  EXPECT_EQ(wrapToWidth(128, DType::I8), -128);
  EXPECT_EQ(wrapToWidth(255, DType::I8), -1);
  EXPECT_EQ(wrapToWidth(-129, DType::I8), 127);
  EXPECT_EQ(wrapToWidth(int64_t(1) << 31, DType::I32), INT32_MIN);
  EXPECT_EQ(wrapToWidth(-(int64_t(1) << 32) + 5, DType::I32), 5);
  EXPECT_EQ(wrapToWidth(3, DType::I1), 1);
  EXPECT_EQ(wrapToWidth(2, DType::I1), 0);
  EXPECT_EQ(wrapToWidth(-1, DType::I1), 1);
  EXPECT_EQ(wrapToWidth(INT64_MIN, DType::I64), INT64_MIN);
  EXPECT_EQ(wrapToWidth(INT64_MAX, DType::Index), INT64_MAX);
  EXPECT_EQ(minIntValue(DType::I8), -128);
  EXPECT_EQ(maxIntValue(DType::I8), 127);
  EXPECT_EQ(minIntValue(DType::I32), INT32_MIN);
  EXPECT_EQ(maxIntValue(DType::I32), INT32_MAX);
  EXPECT_EQ(minIntValue(DType::I64), INT64_MIN);
  EXPECT_EQ(maxIntValue(DType::Index), INT64_MAX);
  EXPECT_EQ(minIntValue(DType::I1), 0);
  EXPECT_EQ(maxIntValue(DType::I1), 1);
}

TEST(DTypeBF16, NearestEvenTies) {
  // 1.00390625 is halfway between bf16 1.0 (even) and 1.0078125.
  EXPECT_EQ(bf16(0x3F808000, RNE), 0x3F80);
  // Halfway between 0x3F81 (odd) and 0x3F82: to even, up.
  EXPECT_EQ(bf16(0x3F818000, RNE), 0x3F82);
  EXPECT_EQ(bf16(0x3F808001, RNE), 0x3F81); // just above half
  EXPECT_EQ(bf16(0x3F807FFF, RNE), 0x3F80); // just below half
  EXPECT_EQ(bf16(0xBF808000, RNE), 0xBF80);
}

TEST(DTypeBF16, OtherModes) {
  EXPECT_EQ(bf16(0x3F808000, RNA), 0x3F81); // tie away from zero
  EXPECT_EQ(bf16(0x3F818000, RNA), 0x3F82);
  EXPECT_EQ(bf16(0xBF808000, RNA), 0xBF81);
  EXPECT_EQ(bf16(0x3F80FFFF, RTZ), 0x3F80);
  EXPECT_EQ(bf16(0xBF80FFFF, RTZ), 0xBF80);
  EXPECT_EQ(bf16(0x3F800001, RUP), 0x3F81);
  EXPECT_EQ(bf16(0xBF80FFFF, RUP), 0xBF80); // toward +inf: smaller magnitude
  EXPECT_EQ(bf16(0xBF800001, RDN), 0xBF81); // toward -inf: larger magnitude
  EXPECT_EQ(bf16(0x3F80FFFF, RDN), 0x3F80);
  EXPECT_EQ(bf16(0x3F800000, RUP), 0x3F80); // exact values never move
}

TEST(DTypeBF16, OverflowSpecialsSubnormals) {
  // f32 max is above the midpoint between bf16 max 0x7F7F and 2^128.
  EXPECT_EQ(bf16(0x7F7FFFFF, RNE), 0x7F80);
  EXPECT_EQ(bf16(0x7F7FFFFF, RNA), 0x7F80);
  EXPECT_EQ(bf16(0x7F7FFFFF, RTZ), 0x7F7F);
  EXPECT_EQ(bf16(0x7F7FFFFF, RDN), 0x7F7F);
  EXPECT_EQ(bf16(0x7F7FFFFF, RUP), 0x7F80);
  EXPECT_EQ(bf16(0xFF7FFFFF, RDN), 0xFF80);
  EXPECT_EQ(bf16(0xFF7FFFFF, RUP), 0xFF7F);
  EXPECT_EQ(bf16(0xFF7FFFFF, RTZ), 0xFF7F);
  EXPECT_EQ(bf16(0x7F800000, RTZ), 0x7F80); // inf stays inf
  EXPECT_EQ(bf16(0xFF800000, RNE), 0xFF80);
  EXPECT_EQ(bf16(0x7F800001, RNE), 0x7FC0); // signaling NaN -> quiet
  EXPECT_EQ(bf16(0xFFC00000, RTZ), 0xFFC0); // sign kept
  EXPECT_EQ(bf16(0x80000000, RNE), 0x8000); // -0
  EXPECT_EQ(bf16(0x00000000, RUP), 0x0000);
  EXPECT_EQ(bf16(0x00010000, RNE), 0x0001); // exact subnormal
  EXPECT_EQ(bf16(0x00008000, RNE), 0x0000); // half of the smallest: to even
  EXPECT_EQ(bf16(0x00008000, RNA), 0x0001);
  EXPECT_EQ(bf16(0x00000001, RUP), 0x0001);
  EXPECT_EQ(bf16(0x80000001, RDN), 0x8001);
  EXPECT_EQ(bf16(0x80000001, RNE), 0x8000);
  EXPECT_EQ(bf16(0x00018000, RNE), 0x0002);
  EXPECT_EQ(bf16(0x007F8000, RNE), 0x0080); // largest subnormal carries
}

TEST(DTypeBF16, Decode) {
  EXPECT_EQ(bf16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16BitsToFloat(0xC040), -3.0f);
  EXPECT_EQ(bf16BitsToFloat(0x0001), 0x1p-133f);
  EXPECT_EQ(bitsOf(bf16BitsToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(bf16BitsToFloat(0x7F80), INFINITY);
  EXPECT_TRUE(std::isnan(bf16BitsToFloat(0x7FC1)));
}

TEST(DTypeF16, Rounding) {
  EXPECT_EQ(floatToF16Bits(1.0f, RNE), 0x3C00);
  EXPECT_EQ(floatToF16Bits(-2.0f, RNE), 0xC000);
  EXPECT_EQ(floatToF16Bits(1.0f + 0x1p-11f, RNE), 0x3C00); // tie to even
  EXPECT_EQ(floatToF16Bits(1.0f + 0x1p-11f, RNA), 0x3C01);
  EXPECT_EQ(floatToF16Bits(1.0f + 3 * 0x1p-11f, RNE), 0x3C02);
  EXPECT_EQ(floatToF16Bits(1.0f + 0x1p-12f, RUP), 0x3C01);
  EXPECT_EQ(floatToF16Bits(-1.0f - 0x1p-12f, RDN), 0xBC01);
  EXPECT_EQ(floatToF16Bits(-1.0f - 0x1p-12f, RTZ), 0xBC00);
}

TEST(DTypeF16, Overflow) {
  EXPECT_EQ(floatToF16Bits(65504.0f, RNE), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(65519.0f, RNE), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(65520.0f, RNE), 0x7C00); // tie; 0x7BFF is odd
  EXPECT_EQ(floatToF16Bits(65520.0f, RTZ), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(1e5f, RNE), 0x7C00);
  EXPECT_EQ(floatToF16Bits(1e5f, RNA), 0x7C00);
  EXPECT_EQ(floatToF16Bits(1e5f, RTZ), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(1e5f, RDN), 0x7BFF);
  EXPECT_EQ(floatToF16Bits(1e5f, RUP), 0x7C00);
  EXPECT_EQ(floatToF16Bits(-1e5f, RDN), 0xFC00);
  EXPECT_EQ(floatToF16Bits(-1e5f, RUP), 0xFBFF);
  EXPECT_EQ(floatToF16Bits(-1e5f, RTZ), 0xFBFF);
  EXPECT_EQ(floatToF16Bits(INFINITY, RTZ), 0x7C00);
  EXPECT_EQ(floatToF16Bits(NAN, RNE), 0x7E00);
  EXPECT_EQ(floatToF16Bits(-NAN, RNE), 0xFE00);
}

TEST(DTypeF16, Subnormals) {
  EXPECT_EQ(floatToF16Bits(0x1p-24f, RNE), 0x0001);
  EXPECT_EQ(floatToF16Bits(0x1p-25f, RNE), 0x0000); // tie with 0: even
  EXPECT_EQ(floatToF16Bits(0x1p-25f, RNA), 0x0001);
  EXPECT_EQ(floatToF16Bits(0x1p-25f, RUP), 0x0001);
  EXPECT_EQ(floatToF16Bits(0x1p-25f, RDN), 0x0000);
  EXPECT_EQ(floatToF16Bits(-0x1p-25f, RDN), 0x8001);
  EXPECT_EQ(floatToF16Bits(-0x1p-25f, RNE), 0x8000);
  EXPECT_EQ(floatToF16Bits(0.75f * 0x1p-24f, RNE), 0x0001);
  EXPECT_EQ(floatToF16Bits(1.5f * 0x1p-24f, RNE), 0x0002);
  EXPECT_EQ(floatToF16Bits(1023.5f * 0x1p-24f, RNE), 0x0400); // into normal
  EXPECT_EQ(floatToF16Bits(1023.5f * 0x1p-24f, RTZ), 0x03FF);
  EXPECT_EQ(floatToF16Bits(0x1p-14f, RNE), 0x0400);
  EXPECT_EQ(floatToF16Bits(0x1p-149f, RUP), 0x0001); // f32 subnormal
  EXPECT_EQ(floatToF16Bits(0x1p-149f, RNE), 0x0000);
  EXPECT_EQ(floatToF16Bits(-0.0f, RNE), 0x8000);
}

TEST(DTypeF16, Decode) {
  EXPECT_EQ(f16BitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(f16BitsToFloat(0x03FF), 1023.0f * 0x1p-24f);
  EXPECT_EQ(f16BitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16BitsToFloat(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(f16BitsToFloat(0x7E00)));
  EXPECT_EQ(bitsOf(f16BitsToFloat(0x8000)), 0x80000000u);
  EXPECT_EQ(f16BitsToFloat(0x3555), 0x1.554p-2f);
}

TEST(DTypeRound, RoundFloatTo) {
  EXPECT_EQ(bitsOf(roundFloatTo(fromBits(0x3F818000), DType::BF16, RNE)), 0x3F820000u);
  EXPECT_EQ(bitsOf(roundFloatTo(fromBits(0x3F818000), DType::BF16, RTZ)), 0x3F810000u);
  EXPECT_EQ(roundFloatTo(65520.0f, DType::F16, RTZ), 65504.0f);
  EXPECT_EQ(bitsOf(roundFloatTo(fromBits(0x3F818001), DType::F32, RTZ)), 0x3F818001u);
}

TEST(DTypeIntToFloat, SingleRounding) {
  const int64_t p24 = int64_t(1) << 24;
  EXPECT_EQ(intToFloat(p24 + 1, DType::F32, RNE), 16777216.0f); // tie, even
  EXPECT_EQ(intToFloat(p24 + 1, DType::F32, RNA), 16777218.0f);
  EXPECT_EQ(intToFloat(p24 + 1, DType::F32, RUP), 16777218.0f);
  EXPECT_EQ(intToFloat(p24 + 1, DType::F32, RTZ), 16777216.0f);
  EXPECT_EQ(intToFloat(p24 + 3, DType::F32, RNE), 16777220.0f);
  EXPECT_EQ(intToFloat(-p24 - 1, DType::F32, RDN), -16777218.0f);
  EXPECT_EQ(intToFloat(INT64_MIN, DType::F32, RNE), -0x1p63f);
  EXPECT_EQ(intToFloat(INT64_MAX, DType::F32, RNE), 0x1p63f);
  EXPECT_EQ(bitsOf(intToFloat(INT64_MAX, DType::F32, RTZ)), 0x5EFFFFFFu);
  EXPECT_EQ(bitsOf(intToFloat(0, DType::BF16, RDN)), 0u);
  // bf16 has 8 significant bits: 257 is a tie between 256 and 258.
  EXPECT_EQ(intToFloat(257, DType::BF16, RNE), 256.0f);
  EXPECT_EQ(intToFloat(257, DType::BF16, RNA), 258.0f);
  EXPECT_EQ(intToFloat(-257, DType::BF16, RDN), -258.0f);
  // 2^24 + 2^16 + 1 is just above a bf16 midpoint: direct rounding goes up;
  // rounding through f32 first would give the midpoint and then 2^24.
  EXPECT_EQ(intToFloat(p24 + (1 << 16) + 1, DType::BF16, RNE), 16908288.0f);
  EXPECT_EQ(intToFloat(2049, DType::F16, RNE), 2048.0f);
  EXPECT_EQ(intToFloat(-2049, DType::F16, RDN), -2050.0f);
  EXPECT_EQ(intToFloat(65519, DType::F16, RNE), 65504.0f);
  EXPECT_EQ(intToFloat(65520, DType::F16, RNE), INFINITY);
  EXPECT_EQ(intToFloat(70000, DType::F16, RTZ), 65504.0f);
  EXPECT_EQ(intToFloat(-70000, DType::F16, RUP), -65504.0f);
  EXPECT_EQ(intToFloat(INT64_MIN, DType::F16, RNE), -INFINITY);
}

TEST(DTypeFloatToInt, RoundAndSaturate) {
  EXPECT_EQ(floatToInt(2.5f, DType::I32, RNE), 2);
  EXPECT_EQ(floatToInt(3.5f, DType::I32, RNE), 4);
  EXPECT_EQ(floatToInt(2.5f, DType::I32, RNA), 3);
  EXPECT_EQ(floatToInt(2.5f, DType::I32, RTZ), 2);
  EXPECT_EQ(floatToInt(2.5f, DType::I32, RDN), 2);
  EXPECT_EQ(floatToInt(2.5f, DType::I32, RUP), 3);
  EXPECT_EQ(floatToInt(-2.5f, DType::I32, RNE), -2);
  EXPECT_EQ(floatToInt(-2.5f, DType::I32, RNA), -3);
  EXPECT_EQ(floatToInt(-2.5f, DType::I32, RTZ), -2);
  EXPECT_EQ(floatToInt(-2.5f, DType::I32, RDN), -3);
  EXPECT_EQ(floatToInt(-2.5f, DType::I32, RUP), -2);
  EXPECT_EQ(floatToInt(-0.5f, DType::I32, RNE), 0);
  EXPECT_EQ(floatToInt(2.75f, DType::I64, RNE), 3);
  EXPECT_EQ(floatToInt(NAN, DType::I32, RNE), 0);
  EXPECT_EQ(floatToInt(-NAN, DType::I8, RUP), 0);
  EXPECT_EQ(floatToInt(300.0f, DType::I8, RNE), 127);
  EXPECT_EQ(floatToInt(-300.0f, DType::I8, RNE), -128);
  EXPECT_EQ(floatToInt(127.5f, DType::I8, RNE), 127); // 128 saturates
  EXPECT_EQ(floatToInt(1e10f, DType::I32, RTZ), INT32_MAX);
  EXPECT_EQ(floatToInt(-INFINITY, DType::I64, RNE), INT64_MIN);
  EXPECT_EQ(floatToInt(INFINITY, DType::Index, RNE), INT64_MAX);
  EXPECT_EQ(floatToInt(0x1p63f, DType::I64, RNE), INT64_MAX);
  EXPECT_EQ(floatToInt(-0x1p63f, DType::I64, RNE), INT64_MIN);
  EXPECT_EQ(floatToInt(0x1p62f, DType::I64, RNE), int64_t(1) << 62);
  EXPECT_EQ(floatToInt(0.6f, DType::I1, RNE), 1);
  EXPECT_EQ(floatToInt(5.0f, DType::I1, RNE), 1);
}

// --- Properties against independent oracles -------------------------------

/// Float bit patterns drawn uniformly from all 2^32 (rapidcheck's default
/// integers are size-scaled and would favor tiny denormals).
uint32_t anyBits() { return *rc::gen::inRange<uint64_t>(0, uint64_t(1) << 32); }

RC_GTEST_PROP(DTypeProps, F16NearestEvenMatchesCompiler, ()) {
  const float v = fromBits(anyBits());
  RC_PRE(!std::isnan(v));
  const _Float16 h = static_cast<_Float16>(v);
  uint16_t hb;
  std::memcpy(&hb, &h, sizeof hb);
  RC_ASSERT(floatToF16Bits(v, RNE) == hb);
  RC_ASSERT(bitsOf(f16BitsToFloat(hb)) == bitsOf(static_cast<float>(h)));
}

RC_GTEST_PROP(DTypeProps, IntToF32NearestEvenMatchesCompiler, (int64_t v)) {
  RC_ASSERT(bitsOf(intToFloat(v, DType::F32, RNE)) == bitsOf(static_cast<float>(v)));
}

RC_GTEST_PROP(DTypeProps, DirectedModesBracketTheValue, ()) {
  const float v = fromBits(anyBits());
  RC_PRE(std::isfinite(v));
  for (DType t : {DType::BF16, DType::F16}) {
    const float dn = roundFloatTo(v, t, RDN), up = roundFloatTo(v, t, RUP);
    const float tz = roundFloatTo(v, t, RTZ);
    RC_ASSERT(dn <= v);
    RC_ASSERT(v <= up);
    RC_ASSERT(tz == (v < 0 ? up : dn));
    // Nearest modes pick one of the two neighbors.
    for (RoundingMode m : {RNE, RNA}) {
      const float r = roundFloatTo(v, t, m);
      RC_ASSERT(r == dn || r == up);
    }
  }
}

RC_GTEST_PROP(DTypeProps, FastRoundingMatchesExact, ()) {
  const float v = fromBits(anyBits());
  RC_PRE(!std::isnan(v));
  for (DType t : {DType::BF16, DType::F16})
    RC_ASSERT(bitsOf(ref::roundRNE(v, t)) == bitsOf(roundFloatTo(v, t, RNE)));
}

TEST(DTypeSweep, EveryExponentAgainstOracles) {
  // About a million patterns spread over all exponents and both signs.
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 4093) {
    const float v = fromBits(uint32_t(b));
    if (std::isnan(v))
      continue;
    const _Float16 h = static_cast<_Float16>(v);
    uint16_t hb;
    std::memcpy(&hb, &h, sizeof hb);
    ASSERT_EQ(floatToF16Bits(v, RNE), hb) << std::hex << b;
    ASSERT_EQ(bitsOf(ref::roundRNE(v, DType::F16)), bitsOf(static_cast<float>(h))) << std::hex << b;
    ASSERT_EQ(bitsOf(ref::roundRNE(v, DType::BF16)),
              bitsOf(bf16BitsToFloat(floatToBF16Bits(v, RNE))))
        << std::hex << b;
  }
}

TEST(DTypeSweep, BF16NearestEvenIsTheNearestOfTheDirectedRoundings) {
  // floatToBF16Bits rounds to nearest-even in a carry form of its own; the
  // directed modes go through the exact integer rounding. Nearest-even must
  // be the nearer of the two neighbours they give, the even one on a tie
  // (every f32 and bf16 difference is exact in double).
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 4093) {
    for (uint32_t low : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u}) {
      const uint32_t bits = (uint32_t(b) & 0xFFFF0000u) | low;
      const float v = fromBits(bits);
      if (std::isnan(v))
        continue;
      const uint16_t ne = floatToBF16Bits(v, RNE);
      const uint16_t dn = floatToBF16Bits(v, RDN), up = floatToBF16Bits(v, RUP);
      const double dDn = double(v) - double(bf16BitsToFloat(dn));
      const double dUp = double(bf16BitsToFloat(up)) - double(v);
      uint16_t want = dDn < dUp ? dn : up;
      if (dn != up && dDn == dUp)
        want = (dn & 1) == 0 ? dn : up;
      if (std::isinf(v))
        want = dn; // both directed roundings keep an infinity
      else if (std::isinf(bf16BitsToFloat(up)) && !std::isinf(bf16BitsToFloat(dn)))
        // Above the largest finite bf16: nearest-even overflows from its
        // midpoint with infinity on, as IEEE defines.
        want = v >= 0x1.FFp127 ? up : dn;
      else if (std::isinf(bf16BitsToFloat(dn)) && !std::isinf(bf16BitsToFloat(up)))
        want = v <= -0x1.FFp127 ? dn : up;
      ASSERT_EQ(ne, want) << std::hex << bits;
    }
  }
}

TEST(DTypeFastRounding, Boundaries) {
  // Around the f16 fast path's edges: 2^-14 (smallest normal), the largest
  // subnormal's midpoint, 65504 / 65519 / 65520 and 2^16.
  for (uint32_t b : {0x38800000u, 0x387FF000u, 0x387FEFFFu, 0x477FE000u, 0x477FEFFFu, 0x477FF000u,
                     0x47800000u, 0x7F800000u, 0xFF7FFFFFu, 0x00000001u, 0x80000000u}) {
    EXPECT_EQ(bitsOf(ref::roundRNE(fromBits(b), DType::F16)),
              bitsOf(roundFloatTo(fromBits(b), DType::F16, RNE)))
        << std::hex << b;
    EXPECT_EQ(bitsOf(ref::roundRNE(fromBits(b), DType::BF16)),
              bitsOf(roundFloatTo(fromBits(b), DType::BF16, RNE)))
        << std::hex << b;
  }
  EXPECT_EQ(ref::roundRNE(65520.0f, DType::F16), INFINITY);
  EXPECT_EQ(ref::roundRNE(-65519.0f, DType::F16), -65504.0f);
}

RC_GTEST_PROP(DTypeProps, WrapIsModular, (int64_t v)) {
  RC_ASSERT(wrapToWidth(v, DType::I8) == int64_t(int8_t(uint8_t(v))));
  RC_ASSERT(wrapToWidth(v, DType::I32) == int64_t(int32_t(uint32_t(v))));
}

} // namespace
