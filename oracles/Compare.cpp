//===- oracles/Compare.cpp - Compare backend outputs with the reference ---===//
#include "oracles/Compare.h"

#include "reference/Executor.h"

#include "ir/Storage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace npufuzz {

namespace {
std::string indexText(const TensorType &t, int64_t k) {
  std::vector<int64_t> idx(t.shape.size());
  for (size_t i = t.shape.size(); i-- > 0;) {
    idx[i] = k % t.shape[i];
    k /= t.shape[i];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

/// Bits of a float value in its own dtype (f32 bits, or the 16-bit pattern).
uint32_t bitsIn(float v, DType t) {
  if (t == DType::BF16)
    return floatToBF16Bits(v, RoundingMode::NearestEven);
  if (t == DType::F16)
    return floatToF16Bits(v, RoundingMode::NearestEven);
  return floatBits(v);
}

/// An ordered integer image of the float's bits (adjacent floats differ by 1).
int64_t ordered(float v, DType t) {
  const uint32_t b = bitsIn(v, t);
  const unsigned width = t == DType::F32 ? 32 : 16;
  const uint32_t sign = 1u << (width - 1);
  return (b & sign) ? -static_cast<int64_t>(b & (sign - 1)) : static_cast<int64_t>(b);
}

/// Whether `x` is zero or below the smallest normal of `t`.
bool isSubnormalOrZero(float x, DType t) { return std::fabs(x) < smallestNormal(t); }

/// The widest relative tolerance compounded approximations reach.
constexpr double kMaxCompoundedRtol = 0.05;

bool floatsMatch(float want, float got, DType t, Exactness e, double extra = 0,
                 unsigned approximations = 1) {
  if (e == Exactness::Reordered) {
    // Partial sums may overflow, or meet an inf and a -inf, in one order
    // and not in another: where the terms allow that, any value is right.
    if (!std::isfinite(extra))
      return true;
    if (std::isnan(want) || std::isnan(got) || std::isinf(want) || std::isinf(got))
      return std::isnan(want) == std::isnan(got) && (std::isnan(want) || want == got);
    const Tolerance tol = toleranceFor(t);
    return std::fabs(static_cast<double>(got) - want) <=
           tol.atol + tol.rtol * std::fabs(want) + extra;
  }
  if (e == Exactness::Approx && !std::isfinite(want) && !std::isfinite(got))
    return true; // formulas differ at overflow: silu(-inf) is NaN as x*sigmoid(x)
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  // Where the reference flushes subnormals (reference/Executor.h), a
  // subnormal and the zero of its sign are one value: an arithmetic op
  // flushes it, a move or select or a software conversion keeps it (an f16
  // one, normal in f32, is flushed by IREE's software conversion and kept
  // by F16C's). Either is the target's.
  if (referenceFlushesSubnormals() && isSubnormalOrZero(want, t) && isSubnormalOrZero(got, t) &&
      std::signbit(want) == std::signbit(got))
    return true;
  if (e == Exactness::Exact)
    return bitsIn(want, t) == bitsIn(got, t);
  if (std::isinf(want) || std::isinf(got))
    return want == got;
  // A zero result has a definite sign even when computed approximately.
  if (want == 0 && got == 0)
    return std::signbit(want) == std::signbit(got);
  const Tolerance tol = toleranceFor(t);
  // Compounded errors widen the bound, never past 5 %: a miscompiled op
  // deep in a chain of products must still show.
  const double rtol = std::max(tol.rtol, std::min(tol.rtol * approximations, kMaxCompoundedRtol));
  return std::fabs(static_cast<double>(got) - want) <= tol.atol + rtol * std::fabs(want);
}
} // namespace

Tolerance toleranceFor(DType t) {
  switch (t) {
  case DType::F16: return {1.0 / 256, 1e-3};
  case DType::BF16: return {1.0 / 64, 1e-2};
  default: return {1e-5, 1e-6};
  }
}

std::string_view differenceKind(float want, float got, DType t) {
  if (want == 0 && got == 0)
    return "signed-zero";
  if (std::isnan(want) != std::isnan(got))
    return "nan";
  if (std::isinf(want) || std::isinf(got))
    return "infinity";
  return ulpDistance(want, got, t) <= 1 ? "rounding" : "value";
}

std::string_view differenceKind(int64_t want, int64_t got, DType t) {
  const int64_t lo = minIntValue(t), hi = maxIntValue(t);
  if (want == lo || want == hi || got == lo || got == hi)
    return "extreme";
  // Written so as not to overflow at the ends of i64.
  return (want > got ? want - 1 == got : got - 1 == want) ? "rounding" : "value";
}

int64_t ulpDistance(float a, float b, DType t) {
  const int64_t d = ordered(a, t) - ordered(b, t);
  return d < 0 ? -d : d;
}

bool definedOutputsDiffer(const std::vector<RefTensor> &reference, const std::vector<TensorData> &a,
                          const std::vector<TensorData> &b) {
  for (size_t k = 0; k < reference.size() && k < a.size() && k < b.size(); ++k) {
    const unsigned width = a[k].elementBytes();
    for (int64_t e = 0; e < reference[k].numElements(); ++e)
      if (reference[k].isDefined(e) &&
          std::memcmp(a[k].data() + e * width, b[k].data() + e * width, width) != 0)
        return true;
  }
  return false;
}

Comparison compareOutput(const RefTensor &expected, const TensorData &actual, Exactness e,
                         const std::vector<double> *bound, unsigned approximations) {
  Comparison r;
  if (e == Exactness::Unstable || (e == Exactness::Reordered && !bound))
    return r;
  if (actual.type.shape != expected.type.shape || actual.type.dtype != expected.type.dtype) {
    r.match = false;
    r.firstMismatch = "output has type " + actual.type.str() + ", expected " + expected.type.str();
    return r;
  }
  const RefTensor got = fromTensorData(actual);
  const DType t = expected.type.dtype;
  for (int64_t k = 0; k < expected.numElements(); ++k) {
    if (!expected.isDefined(k))
      continue;
    ++r.compared;
    bool same;
    if (expected.isFloat())
      same = floatsMatch(expected.f[k], got.f[k], t, e,
                         bound ? (*bound)[static_cast<size_t>(k)] : 0.0, approximations);
    else
      same = expected.i[k] == got.i[k];
    if (same)
      continue;
    const std::string_view kind = expected.isFloat() ? differenceKind(expected.f[k], got.f[k], t)
                                                     : differenceKind(expected.i[k], got.i[k], t);
    r.onlyRounding = (r.mismatches == 0 || r.onlyRounding) && kind == "rounding";
    r.grossMismatches += kind != "rounding" && kind != "signed-zero" && kind != "nan";
    if (r.mismatches++ == 0) {
      std::ostringstream os;
      os << indexText(expected.type, k) << ": expected ";
      if (expected.isFloat()) {
        os.precision(9);
        os << expected.f[k] << " (0x" << std::hex << bitsIn(expected.f[k], t) << "), got "
           << std::dec << got.f[k] << " (0x" << std::hex << bitsIn(got.f[k], t) << std::dec
           << "), abs error " << std::fabs(static_cast<double>(got.f[k]) - expected.f[k]);
        if (std::isfinite(expected.f[k]) && std::isfinite(got.f[k]))
          os << ", " << ulpDistance(expected.f[k], got.f[k], t) << " ulp";
      } else {
        os << expected.i[k] << ", got " << got.i[k];
      }
      r.firstMismatch = os.str();
      r.firstElement = k;
      r.difference = kind;
    }
  }
  r.match = r.mismatches == 0;
  return r;
}

} // namespace npufuzz
