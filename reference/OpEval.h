//===- reference/OpEval.h - Per-op evaluation (internal) --------*- C++ -*-===//
//
// Internal interface between the executor's dispatch loop and the files that
// implement the op families. Not installed for backends.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_REFERENCE_OPEVAL_H
#define NPUFUZZ_REFERENCE_OPEVAL_H

#include "ir/Case.h"
#include "ir/RefTensor.h"
#include "reference/Executor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace npufuzz {
namespace ref {

/// One op being evaluated. `results` arrive as RefTensor::zeros of the
/// result types; the dispatcher normalizes them afterwards, so evaluators
/// need not zero undefined elements or apply the result's valid shape.
struct OpEval {
  const Case &c;
  const Op &op;
  const std::vector<RefTensor> &values;
  std::vector<RefTensor> &results;
  std::string &error;
  SignedOverflow signedOverflow = SignedOverflow::Wraps;

  const RefTensor &operand(unsigned k) const { return values[op.operands[k]]; }
  RefTensor &result(unsigned k = 0) { return results[k]; }
  bool fail(std::string message) {
    error = std::move(message);
    return false;
  }
};

/// Unary, Binary, Compare, RowExpand, ColExpand, select, masked_fill, cast.
bool evalElementwise(OpEval &e);
/// reduce_*, argmax, topk, matmul, gather.
bool evalStructured(OpEval &e);
/// slice, chunk, transpose, reshape, broadcast, squeeze, unsqueeze,
/// index_map.
bool evalView(OpEval &e);
/// concat, pad, reduce_mean, conv2d, avg_pool2d, max_pool2d.
bool evalWorkload(OpEval &e);

/// Float max/min of the case model: NaN propagates (the first NaN operand is
/// returned) and -0 < +0.
inline float maxNaN(float a, float b) {
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float minNaN(float a, float b) {
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

/// Round-to-nearest-even of an f32 value to `t` (a float type), the
/// elementwise ops' final rounding. Bit-trick fast paths (round the f32
/// mantissa in place) cover bf16 (every non-NaN value: bf16 shares f32's
/// exponent range) and f16 normals; f16 subnormals, overflow and NaN go
/// through the exact DType conversion.
inline float roundRNE(float v, DType t) {
  if (t == DType::F32)
    return v;
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  const uint32_t sign = b & 0x80000000u, mag = b & 0x7FFFFFFFu;
  uint32_t r;
  if (t == DType::BF16 && mag <= 0x7F800000u) {
    r = uint32_t(floatToBF16BitsNearestEven(v)) << 16;
  } else if (t == DType::F16 && mag >= 0x38800000u && mag < 0x47800000u) {
    // [2^-14, 2^16): round to 10 mantissa bits; reaching 2^16 means the f16
    // value overflowed to infinity.
    r = (mag + 0xFFFu + ((mag >> 13) & 1u)) & 0xFFFFE000u;
    r = sign | (r >= 0x47800000u ? 0x7F800000u : r);
  } else {
    return roundFloatTo(v, t, RoundingMode::NearestEven);
  }
  float out;
  std::memcpy(&out, &r, sizeof out);
  return out;
}

/// Wraps integers to a fixed integer-like type without a per-element switch.
class Wrapper {
public:
  explicit Wrapper(DType t) : shift_(64 - bitWidth(t)), isBool_(t == DType::I1) {}
  int64_t operator()(uint64_t v) const {
    if (isBool_)
      return static_cast<int64_t>(v & 1);
    // Arithmetic right shift of the sign-extended low bits (defined for
    // signed values since C++20 and by clang in C++17).
    return static_cast<int64_t>(v << shift_) >> shift_;
  }

private:
  unsigned shift_;
  bool isBool_;
};

/// Signed add, sub, mul and negation at a fixed integer width, with
/// `SignedOverflow`'s result where an i32, i64 or index one overflows (i8
/// and i1 always wrap: TVM's code generation marks only 32 bits and wider
/// nsw). Operands are values of the type.
class SignedArith {
public:
  SignedArith(DType t, SignedOverflow overflow)
      : wrap_(t), overflow_(saturating(t, overflow)),
        negationOverflow_(
            saturating(t, overflow == SignedOverflow::NegationGivesMax   ? SignedOverflow::GivesMax
                          : overflow == SignedOverflow::NegationGivesMin ? SignedOverflow::GivesMin
                                                                         : overflow)),
        is32_(t == DType::I32) {}
  int64_t add(int64_t x, int64_t y) const {
    int64_t r;
    return finish(__builtin_add_overflow(x, y, &r), r, uint64_t(x) + uint64_t(y));
  }
  int64_t sub(int64_t x, int64_t y) const {
    int64_t r;
    return finish(__builtin_sub_overflow(x, y, &r), r, uint64_t(x) - uint64_t(y));
  }
  int64_t mul(int64_t x, int64_t y) const {
    int64_t r;
    return finish(__builtin_mul_overflow(x, y, &r), r, uint64_t(x) * uint64_t(y));
  }
  int64_t neg(int64_t x) const { return sub(0, x); }
  /// A neg or abs op's negation: neg, and saturated by the Negation
  /// alternates too.
  int64_t negation(int64_t x) const {
    int64_t r;
    return finish(__builtin_sub_overflow(int64_t(0), x, &r), r, uint64_t(0) - uint64_t(x),
                  negationOverflow_);
  }

private:
  /// Wraps for the negation-only alternates and for types that always wrap
  /// (i8, i1): what add, sub, mul and neg do under `overflow`.
  static SignedOverflow saturating(DType t, SignedOverflow overflow) {
    const bool saturates = t == DType::I32 || t == DType::I64 || t == DType::Index;
    return saturates &&
                   (overflow == SignedOverflow::GivesMax || overflow == SignedOverflow::GivesMin)
               ? overflow
               : SignedOverflow::Wraps;
  }
  /// `exact`: the 64-bit result, meaningful unless `overflowed64`.
  int64_t finish(bool overflowed64, int64_t exact, uint64_t wrapped) const {
    return finish(overflowed64, exact, wrapped, overflow_);
  }
  int64_t finish(bool overflowed64, int64_t exact, uint64_t wrapped,
                 SignedOverflow overflow) const {
    if (overflow != SignedOverflow::Wraps &&
        (overflowed64 || (is32_ && exact != int64_t(int32_t(exact))))) {
      const bool max = overflow == SignedOverflow::GivesMax;
      if (is32_)
        return max ? INT32_MAX : INT32_MIN;
      return max ? INT64_MAX : INT64_MIN;
    }
    return wrap_(wrapped);
  }

  Wrapper wrap_;
  SignedOverflow overflow_, negationOverflow_;
  bool is32_;
};

/// The product of shape[begin..end).
int64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end);

} // namespace ref
} // namespace npufuzz

#endif // NPUFUZZ_REFERENCE_OPEVAL_H
