//===- ir/DType.h - Element types and rounding modes ------------*- C++ -*-===//
//
// Element types of the case model and the exact float-format conversions that
// both the reference executor and the backends' runtimes rely on.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_DTYPE_H
#define NPUFUZZ_IR_DTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace npufuzz {

/// Element types. Float types are stored in the reference as `float` values
/// that are exactly representable in the type; integer types, `index` and
/// `i1` as `int64_t` values already wrapped to their width.
enum class DType : uint8_t { F32, F16, BF16, I8, I32, I64, Index, I1 };
constexpr int kNumDTypes = 8;

std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view s);

bool isFloat(DType t);
/// True for i8, i32, i64 and index (not i1).
bool isInteger(DType t);
/// Integer types, index and i1: everything stored as int64 in the reference.
bool isIntLike(DType t);
/// The smallest positive normal value of float type `t` (bf16 shares f32's
/// exponent range, f16's is 2^-14); 0 for the others, which have none.
float smallestNormal(DType t);
/// Bit width of the integer-like types (index is 64); 32/16/16 for floats.
unsigned bitWidth(DType t);
/// Size in bytes of one element in memory (i1 is one byte, index eight).
unsigned byteSize(DType t);

/// The numpy `.npy` descr an element type travels as: `<f4`, `<f2`, `|i1`,
/// `<i4`, `<i8`, `|b1` (bf16 as f32 values, since numpy has no bf16).
std::string_view npyDescr(DType t);

/// Rounding modes for casts, named as in the text format:
/// rne (to nearest, ties to even), rna (to nearest, ties away from zero),
/// rtz (toward zero), rdn (toward -inf), rup (toward +inf).
enum class RoundingMode : uint8_t { NearestEven, NearestAway, TowardZero, Down, Up };
constexpr int kNumRoundingModes = 5;
std::string_view roundingName(RoundingMode m);
std::optional<RoundingMode> parseRounding(std::string_view s);

/// Wraps `v` to the two's-complement width of `t` (sign-extends back to 64
/// bits). i1 becomes 0 or 1 (its low bit). Float types are not accepted.
int64_t wrapToWidth(int64_t v, DType t);
int64_t minIntValue(DType t);
int64_t maxIntValue(DType t);

/// The bit pattern of an f32 and back (memcpy, no UB).
uint32_t floatBits(float v);
float bitsToFloat(uint32_t bits);

/// `d` rounded to an integral value by mode `m`, exactly; infinities, NaN
/// and the sign of zero are kept (round(-0.3) is -0).
double roundToIntegral(double d, RoundingMode m);

/// f32 -> bf16 to nearest, ties to even, in its carry form: bf16 keeps
/// f32's exponent, so adding just under half a bf16 ulp (plus the kept last
/// bit, for ties) and dropping the low half is exact for every value,
/// subnormals and overflow to infinity included. NaN becomes the quiet NaN
/// with its sign, as floatToBF16Bits gives. Inline: a kernel's every f32 ->
/// bf16 truncation calls it (the runtime's __truncsfbf2).
inline uint16_t floatToBF16BitsNearestEven(float v) {
  uint32_t b;
  __builtin_memcpy(&b, &v, sizeof b);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t(((b >> 16) & 0x8000u) | 0x7FC0u);
  return uint16_t((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

/// Exact IEEE conversions between f32 and the 16-bit formats.
uint16_t floatToBF16Bits(float v, RoundingMode m);
uint16_t floatToF16Bits(float v, RoundingMode m);
float bf16BitsToFloat(uint16_t bits);
float f16BitsToFloat(uint16_t bits);
/// Rounds an f32 value to the nearest value of float type `t` under `m`
/// (identity for f32). The result is exactly representable in `t`.
float roundFloatTo(float v, DType t, RoundingMode m);
/// Converts an integer exactly to float type `t` with a single rounding.
float intToFloat(int64_t v, DType t, RoundingMode m);
/// Rounds a float to an integer under `m`, saturating to the range of integer
/// type `t`; NaN becomes 0.
int64_t floatToInt(float v, DType t, RoundingMode m);

} // namespace npufuzz

#endif // NPUFUZZ_IR_DTYPE_H
