//===- oracles/SumBound.cpp - How far a reordered float sum may stray -----===//
#include "oracles/SumBound.h"
#include "oracles/Exactness.h"

#include <cmath>
#include <limits>

namespace npufuzz {

namespace {
constexpr double kUnitRoundoff = 0x1p-24;

/// The bound of a sum of n terms of magnitudes `sum`: infinite when some
/// order of adding them may overflow (the reference's order may give inf
/// where another meets an inf and a -inf: NaN).
double boundOf(int64_t n, double sum, double termError) {
  if (!(sum <= std::numeric_limits<float>::max()))
    return std::numeric_limits<double>::infinity();
  return (2.0 * n * kUnitRoundoff + termError) * sum;
}

/// The relative error a term of a sum reading value `x` of `c` may carry
/// when the compiler holds it unrounded: the unit roundoff of x's narrow
/// type (bf16 keeps 8 significant bits, f16 11), none for other types and
/// none for a value nothing computed (`computed`, computedValues: an
/// input's f16 is exact, there is no rounding to skip, and an f16
/// accumulator's errors must still show).
double heldWideError(const Case &c, ValueId x, const std::vector<bool> &computed,
                     const ExactnessModel &model) {
  if (!model.lowPrecisionHeldWide || !computed[static_cast<size_t>(x)])
    return 0;
  switch (c.typeOf(x).dtype) {
  case DType::BF16: return 0x1p-8;
  case DType::F16: return 0x1p-11;
  case DType::F32:
  case DType::I1:
  case DType::I8:
  case DType::I32:
  case DType::I64:
  case DType::Index: return 0;
  }
  return 0;
}

int64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d)
    p *= shape[d];
  return p;
}

/// |x| of element k, 0 where the reference leaves it undefined.
double magnitude(const RefTensor &t, int64_t k) {
  return t.defined[static_cast<size_t>(k)] ? std::fabs(static_cast<double>(t.f[k])) : 0.0;
}
} // namespace

std::vector<double> reorderedSumBound(const Case &c, const std::vector<RefTensor> &values,
                                      ValueId v, const ExactnessModel &model) {
  const Op &op = c.ops[c.values[v].defOp];
  const std::vector<int64_t> &shape = c.typeOf(v).shape;
  std::vector<double> bound(static_cast<size_t>(product(shape, 0, shape.size())), 0.0);
  const std::vector<bool> computed = computedValues(c);
  if (op.kind == OpKind::ReduceSum) {
    const RefTensor &x = values[op.operands[0]];
    const auto &shape = x.type.shape;
    const size_t axis = static_cast<size_t>(op.attrs.axis);
    const int64_t outer = product(shape, 0, axis), n = shape[axis],
                  inner = product(shape, axis + 1, shape.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j)
          sum += magnitude(x, (o * n + j) * inner + in);
        bound[static_cast<size_t>(o * inner + in)] =
            boundOf(n, sum, heldWideError(c, op.operands[0], computed, model));
      }
  } else if (op.kind == OpKind::Matmul) {
    const RefTensor &a = values[op.operands[0]], &b = values[op.operands[1]];
    const auto &as = a.type.shape, &bs = b.type.shape;
    const size_t r = as.size();
    const int64_t batches = product(as, 0, r - 2), m = as[r - 2], k = as[r - 1], n = bs[r - 1];
    for (int64_t bt = 0; bt < batches; ++bt)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t kk = 0; kk < k; ++kk)
            sum += magnitude(a, (bt * m + i) * k + kk) * magnitude(b, (bt * k + kk) * n + j);
          // A product of two unrounded factors: both errors.
          bound[static_cast<size_t>((bt * m + i) * n + j)] =
              boundOf(k, sum,
                      heldWideError(c, op.operands[0], computed, model) +
                          heldWideError(c, op.operands[1], computed, model));
        }
  }
  return bound;
}

} // namespace npufuzz
