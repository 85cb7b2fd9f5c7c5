//===- oracles/Compare.h - Compare backend outputs with the reference -*- C++ -*-===//
//
// Only elements the reference defines are compared. Exact values must match
// bit for bit (any NaN matches any NaN; -0 and +0 differ). Approx values
// match within a tolerance per dtype; Reordered sums within that plus a
// bound on their terms' magnitudes; Unstable values are skipped.
//
// Tolerances for Approx (|actual - expected| <= atol + rtol * |expected|;
// a non-finite value matches any non-finite value, since formulas differ at
// overflow; a finite one never matches a non-finite one; a zero only the
// same zero):
//   f32   rtol 1e-5     atol 1e-6
//   f16   rtol 2^-8     atol 1e-3
//   bf16  rtol 2^-6     atol 1e-2
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_COMPARE_H
#define NPUFUZZ_ORACLES_COMPARE_H

#include "ir/RefTensor.h"
#include "ir/TensorData.h"
#include "oracles/Exactness.h"

#include <string>
#include <vector>

namespace npufuzz {

struct Comparison {
  bool match = true;
  int64_t compared = 0;   ///< defined elements compared
  int64_t mismatches = 0; ///< elements outside tolerance
  /// The first differing element: its indices, values, ULP and absolute
  /// error, e.g. `[3,1]: expected 0.5 (0x3f000000), got 0.5000001 ...`.
  std::string firstMismatch;
  /// Its position, row-major in the output's shape; -1 when none.
  int64_t firstElement = -1;
  /// The kind of the first difference, which tells two wrong results of
  /// one op apart (differenceKind below).
  std::string difference;
  /// Every element outside tolerance is one rounding step off (a float 1
  /// ulp, an integer 1) and none is another kind.
  bool onlyRounding = false;
  /// Elements off by more than a rounding step, a zero's sign or a NaN's
  /// presence (a wrong value, an infinity, an extreme): what corrupted
  /// memory gives, where a simulator's -0 and NaN quirks and a compiler's
  /// rounding give none.
  int64_t grossMismatches = 0;
};

/// `bound`: for a Reordered output, how far each element may be from the
/// reference beyond the Approx tolerance (oracles/SumBound.h); a Reordered
/// output without one is not compared. `approximations`: for an Approx
/// output, how many approximate results' errors it compounds
/// (approximationCounts): its relative tolerance is that many times one's,
/// up to 5 %.
Comparison compareOutput(const RefTensor &expected, const TensorData &actual, Exactness e,
                         const std::vector<double> *bound = nullptr, unsigned approximations = 1);

/// True when some element that `reference` defines differs, byte for byte,
/// between two runs' outputs `a` and `b` (one run's outputs against the
/// same kernel's run again).
bool definedOutputsDiffer(const std::vector<RefTensor> &reference, const std::vector<TensorData> &a,
                          const std::vector<TensorData> &b);

/// What kind of difference `got` is from `want` (both of dtype `t`):
///   signed-zero   +0 for -0 or the reverse
///   nan           NaN for a number or a number for NaN
///   infinity      an infinity for a finite value or the reverse, or the
///                 other infinity
///   rounding      a float 1 ulp away, or an integer 1 away
///   extreme       an integer at its dtype's minimum or maximum for another
///                 value, or the reverse (saturation, overflow)
///   value         anything else
/// How far an approximate float of type `t` may be from the reference:
/// |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double rtol, atol;
};
Tolerance toleranceFor(DType t);

std::string_view differenceKind(float want, float got, DType t);
std::string_view differenceKind(int64_t want, int64_t got, DType t);

/// Distance in units in the last place of `t` between two finite values.
int64_t ulpDistance(float a, float b, DType t);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_COMPARE_H
