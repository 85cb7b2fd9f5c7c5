//===- oracles/Exactness.h - How exactly a value can be compared -*- C++ -*-===//
//
// Which values a backend must reproduce bit for bit. IEEE basic operations
// (+ - * / sqrt, conversions, min/max, ...) are exactly rounded, so their
// results must match exactly. Transcendental functions may differ by a few
// ULP between the reference and a compiler's libm or polynomial, so values
// downstream of them are Approx. A discontinuous op (compare, float->int
// cast, argmax, topk indices, widening casts) applied to an Approx value
// can flip, a sum of many terms (reduce_sum, matmul) or of two terms that
// share an ancestor (x - silu(x)) can cancel and turn ULPs of input error
// into any relative error, and one singular at zero
// (sqrt, rsqrt, log, div) turns them into NaN or infinities; all make the
// result Unstable, and Unstable values are not compared.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_EXACTNESS_H
#define NPUFUZZ_ORACLES_EXACTNESS_H

#include "ir/Case.h"

#include <string_view>
#include <vector>

namespace npufuzz {

enum class Exactness : uint8_t { Exact, Approx, Unstable };
std::string_view exactnessName(Exactness e);

/// True for ops whose float result is not exactly rounded in the reference's
/// sense (exp, log, tanh, erf, sigmoid, silu, rsqrt).
bool isApproximateOp(OpKind k);

/// The exactness of every value, indexed by ValueId.
std::vector<Exactness> classifyValues(const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_EXACTNESS_H
