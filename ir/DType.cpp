//===- ir/DType.cpp - Element types and exact conversions -----------------===//
//
// All float-format conversions go through one integer rounding routine
// (roundToFormat) that takes an exact value `mant * 2^exp` and rounds it once
// to a binary format. Using integer arithmetic keeps every rounding mode exact
// and independent of the host's floating-point environment, and it lets
// int -> bf16/f16 round once instead of twice through f32.
//
//===----------------------------------------------------------------------===//

#include "ir/DType.h"

#include <limits>

#include <cassert>
#include <cmath>
#include <cstring>

namespace npufuzz {

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I8: return "i8";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::Index: return "index";
  case DType::I1: return "i1";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view s) {
  for (int k = 0; k < kNumDTypes; ++k) {
    DType t = static_cast<DType>(k);
    if (dtypeName(t) == s)
      return t;
  }
  return std::nullopt;
}

std::string_view npyDescr(DType t) {
  switch (t) {
  case DType::F32:
  case DType::BF16: return "<f4";
  case DType::F16: return "<f2";
  case DType::I8: return "|i1";
  case DType::I32: return "<i4";
  case DType::I64:
  case DType::Index: return "<i8";
  case DType::I1: return "|b1";
  }
  return "";
}

bool isFloat(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

bool isInteger(DType t) {
  return t == DType::I8 || t == DType::I32 || t == DType::I64 || t == DType::Index;
}

bool isIntLike(DType t) { return !isFloat(t); }

float smallestNormal(DType t) {
  switch (t) {
  case DType::F32:
  case DType::BF16: return std::numeric_limits<float>::min();
  case DType::F16: return 0x1p-14f;
  case DType::I8:
  case DType::I32:
  case DType::I64:
  case DType::Index:
  case DType::I1: return 0;
  }
  return 0;
}

unsigned bitWidth(DType t) {
  switch (t) {
  case DType::F32: return 32;
  case DType::F16: return 16;
  case DType::BF16: return 16;
  case DType::I8: return 8;
  case DType::I32: return 32;
  case DType::I64: return 64;
  case DType::Index: return 64;
  case DType::I1: return 1;
  }
  return 0;
}

unsigned byteSize(DType t) { return t == DType::I1 ? 1 : bitWidth(t) / 8; }

std::string_view roundingName(RoundingMode m) {
  switch (m) {
  case RoundingMode::NearestEven: return "rne";
  case RoundingMode::NearestAway: return "rna";
  case RoundingMode::TowardZero: return "rtz";
  case RoundingMode::Down: return "rdn";
  case RoundingMode::Up: return "rup";
  }
  return "?";
}

std::optional<RoundingMode> parseRounding(std::string_view s) {
  for (RoundingMode m : {RoundingMode::NearestEven, RoundingMode::NearestAway,
                         RoundingMode::TowardZero, RoundingMode::Down, RoundingMode::Up})
    if (roundingName(m) == s)
      return m;
  return std::nullopt;
}

int64_t wrapToWidth(int64_t v, DType t) {
  assert(isIntLike(t) && "wrapToWidth takes integer-like types");
  const unsigned w = bitWidth(t);
  if (w == 64)
    return v;
  const uint64_t u = static_cast<uint64_t>(v);
  if (w == 1)
    return static_cast<int64_t>(u & 1);
  // Sign-extend the low w bits with unsigned arithmetic only.
  const uint64_t mask = (uint64_t(1) << w) - 1;
  const uint64_t sign = uint64_t(1) << (w - 1);
  const uint64_t low = u & mask;
  return static_cast<int64_t>((low ^ sign) - sign);
}

int64_t minIntValue(DType t) {
  assert(isIntLike(t) && "minIntValue takes integer-like types");
  if (t == DType::I1)
    return 0;
  const unsigned w = bitWidth(t);
  return static_cast<int64_t>(uint64_t(0) - (uint64_t(1) << (w - 1)));
}

int64_t maxIntValue(DType t) {
  assert(isIntLike(t) && "maxIntValue takes integer-like types");
  if (t == DType::I1)
    return 1;
  const unsigned w = bitWidth(t);
  return static_cast<int64_t>((uint64_t(1) << (w - 1)) - 1);
}

namespace {

/// A binary interchange format: `mantBits` stored fraction bits, `expBits`
/// exponent bits.
struct Format {
  unsigned expBits;
  unsigned mantBits;
};
constexpr Format kF32{8, 23};
constexpr Format kF16{5, 10};
constexpr Format kBF16{8, 7};

uint32_t signBit(Format f) { return uint32_t(1) << (f.expBits + f.mantBits); }
uint32_t infBits(Format f) { return ((uint32_t(1) << f.expBits) - 1) << f.mantBits; }
uint32_t maxFiniteBits(Format f) { return infBits(f) - 1; }
uint32_t quietNaNBits(Format f) { return infBits(f) | (uint32_t(1) << (f.mantBits - 1)); }

unsigned highestBit(uint64_t x) { return 63u - unsigned(__builtin_clzll(x)); }

/// Rounds the exact value (-1)^neg * mant * 2^exp (mant > 0) once to format
/// `f` under `m`, returning its bit pattern.
uint32_t roundToFormat(bool neg, uint64_t mant, int exp, Format f, RoundingMode m) {
  const int bias = (1 << (f.expBits - 1)) - 1;
  const int emin = 1 - bias;
  const int emax = bias;
  const int M = int(f.mantBits);
  const int e = exp + int(highestBit(mant)); // exponent of the leading bit
  // Exponent of the last kept bit: fixed at the subnormal quantum below emin.
  int q = (e < emin ? emin : e) - M;
  const int shift = q - exp;

  uint64_t n;
  bool up = false;
  if (shift <= 0) {
    // Exact: the value has at most M+1 significant bits above the quantum.
    n = mant << (-shift);
  } else {
    uint64_t rem, half;
    bool remAboveHalfBits; // rem can't be represented when shift >= 65
    if (shift >= 65) {
      n = 0;
      rem = mant;
      half = 0;
      remAboveHalfBits = false; // 0 < rem < 2^64 <= half
    } else if (shift == 64) {
      n = 0;
      rem = mant;
      half = uint64_t(1) << 63;
      remAboveHalfBits = true;
    } else {
      n = mant >> shift;
      rem = mant & ((uint64_t(1) << shift) - 1);
      half = uint64_t(1) << (shift - 1);
      remAboveHalfBits = true;
    }
    const bool inexact = rem != 0;
    const bool gtHalf = remAboveHalfBits && rem > half;
    const bool eqHalf = remAboveHalfBits && rem == half;
    switch (m) {
    case RoundingMode::NearestEven: up = gtHalf || (eqHalf && (n & 1)); break;
    case RoundingMode::NearestAway: up = gtHalf || eqHalf; break;
    case RoundingMode::TowardZero: up = false; break;
    case RoundingMode::Down: up = neg && inexact; break;
    case RoundingMode::Up: up = !neg && inexact; break;
    }
  }
  n += up ? 1 : 0;
  if (n == (uint64_t(1) << (M + 1))) { // carried into a new binade
    n >>= 1;
    ++q;
  }
  const uint32_t sign = neg ? signBit(f) : 0;
  if (n < (uint64_t(1) << M)) // subnormal or zero
    return sign | uint32_t(n);
  const int biased = q + M + bias;
  if (q + M > emax) {
    bool toInf = m == RoundingMode::NearestEven || m == RoundingMode::NearestAway ||
                 (m == RoundingMode::Up && !neg) || (m == RoundingMode::Down && neg);
    return sign | (toInf ? infBits(f) : maxFiniteBits(f));
  }
  return sign | (uint32_t(biased) << M) | uint32_t(n - (uint64_t(1) << M));
}

/// Converts an f32 value to the 16-bit format `f`: NaN becomes the quiet NaN
/// with the input's sign (payload dropped), infinities and zeros keep sign.
uint16_t floatTo16(float v, Format f, RoundingMode m) {
  const uint32_t b = floatBits(v);
  const bool neg = (b >> 31) != 0;
  const uint32_t sign = neg ? signBit(f) : 0;
  const uint32_t exp = (b >> 23) & 0xFF;
  const uint32_t frac = b & 0x7FFFFF;
  if (exp == 0xFF)
    return uint16_t(sign | (frac ? quietNaNBits(f) : infBits(f)));
  if (exp == 0 && frac == 0)
    return uint16_t(sign);
  const uint64_t mant = exp == 0 ? frac : (frac | 0x800000);
  const int e2 = (exp == 0 ? 1 : int(exp)) - 127 - 23;
  return uint16_t(roundToFormat(neg, mant, e2, f, m));
}

/// Decodes 16-bit format `f` exactly into f32 (both 16-bit formats are
/// subsets of f32).
float decode16(uint16_t bits, Format f) {
  const uint32_t b = bits;
  const bool neg = (b & signBit(f)) != 0;
  const uint32_t exp = (b >> f.mantBits) & ((1u << f.expBits) - 1);
  const uint32_t frac = b & ((1u << f.mantBits) - 1);
  const uint32_t sign = neg ? 0x80000000u : 0;
  const int bias = (1 << (f.expBits - 1)) - 1;
  if (exp == (1u << f.expBits) - 1)
    return bitsToFloat(sign | 0x7F800000u | (frac << (23 - f.mantBits)) | (frac ? 0x400000u : 0));
  if (exp == 0) {
    // Subnormal (or zero): frac * 2^(1 - bias - mantBits), exact in f32.
    const float mag = std::ldexp(float(frac), 1 - bias - int(f.mantBits));
    return neg ? -mag : mag;
  }
  const uint32_t e32 = exp - uint32_t(bias) + 127;
  return bitsToFloat(sign | (e32 << 23) | (frac << (23 - f.mantBits)));
}

} // namespace

uint32_t floatBits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

float bitsToFloat(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

uint16_t floatToBF16Bits(float v, RoundingMode m) {
  return m == RoundingMode::NearestEven ? floatToBF16BitsNearestEven(v) : floatTo16(v, kBF16, m);
}

uint16_t floatToF16Bits(float v, RoundingMode m) { return floatTo16(v, kF16, m); }

float bf16BitsToFloat(uint16_t bits) { return decode16(bits, kBF16); }

float f16BitsToFloat(uint16_t bits) { return decode16(bits, kF16); }

float roundFloatTo(float v, DType t, RoundingMode m) {
  assert(isFloat(t) && "roundFloatTo takes float types");
  switch (t) {
  case DType::BF16: return bf16BitsToFloat(floatToBF16Bits(v, m));
  case DType::F16: return f16BitsToFloat(floatToF16Bits(v, m));
  default: return v;
  }
}

float intToFloat(int64_t v, DType t, RoundingMode m) {
  assert(isFloat(t) && "intToFloat takes float types");
  if (v == 0)
    return 0.0f;
  const bool neg = v < 0;
  const uint64_t mag = neg ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  switch (t) {
  case DType::BF16: return bf16BitsToFloat(uint16_t(roundToFormat(neg, mag, 0, kBF16, m)));
  case DType::F16: return f16BitsToFloat(uint16_t(roundToFormat(neg, mag, 0, kF16, m)));
  default: return bitsToFloat(roundToFormat(neg, mag, 0, kF32, m));
  }
}

double roundToIntegral(double d, RoundingMode m) {
  // trunc/floor/ceil are exact, and so is the fraction below (d - trunc(d)
  // loses no bits), so the rounding decision is exact. The sign of zero
  // survives: trunc(-0.3) is -0.
  const double tr = std::trunc(d);
  if (!std::isfinite(d) || tr == d)
    return d;
  const double frac = std::fabs(d - tr);
  const double away = tr + (d < 0 ? -1.0 : 1.0);
  switch (m) {
  case RoundingMode::NearestEven:
    return frac > 0.5 || (frac == 0.5 && std::fmod(tr, 2.0) != 0.0) ? away : tr;
  case RoundingMode::NearestAway: return frac >= 0.5 ? away : tr;
  case RoundingMode::TowardZero: return tr;
  case RoundingMode::Down: return std::floor(d);
  case RoundingMode::Up: return std::ceil(d);
  }
  return tr; // unreachable: every RoundingMode is a case above
}

int64_t floatToInt(float v, DType t, RoundingMode m) {
  assert(isIntLike(t) && "floatToInt takes integer-like types");
  if (std::isnan(v))
    return 0;
  const double r = roundToIntegral(v, m); // every float is exact in double
  const int64_t lo = minIntValue(t), hi = maxIntValue(t);
  // r is an integer: r >= (double)hi also covers hi = 2^63 - 1, whose double
  // is 2^63 (out of range).
  if (r < double(lo))
    return lo;
  if (r >= double(hi))
    return hi;
  return static_cast<int64_t>(r);
}

} // namespace npufuzz
