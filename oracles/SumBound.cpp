//===- oracles/SumBound.cpp - How far a reordered float sum may stray -----===//
#include "oracles/SumBound.h"
#include "oracles/Exactness.h"

#include "ir/Window.h"

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
/// avg_pool2d's and conv2d's bound: each output's in-bounds taps (times
/// their weights) are its terms; a pool divides by its kernel's taps.
void windowSumBound(const Case &c, const std::vector<RefTensor> &values, const Op &op,
                    const std::vector<bool> &computed, const ExactnessModel &model,
                    std::vector<double> &bound) {
  Window2d w;
  if (!windowOf(c, op, w))
    return;
  const bool conv = op.kind == OpKind::Conv2d;
  const RefTensor &x = values[op.operands[0]];
  const RefTensor *wt = conv ? &values[op.operands[1]] : nullptr;
  const auto &xs = x.type.shape, &os = c.typeOf(op.results[0]).shape;
  const int64_t C = xs[1], H = xs[2], W = xs[3];
  const int64_t Cg = conv ? wt->type.shape[1] : 1, perGroup = conv ? os[1] / op.attrs.groups : 1;
  double termError = heldWideError(c, op.operands[0], computed, model);
  if (conv)
    termError += heldWideError(c, op.operands[1], computed, model);
  const int64_t terms = w.taps() * Cg;
  size_t k = 0;
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t o = 0; o < os[1]; ++o)
      for (int64_t oh = 0; oh < os[2]; ++oh)
        for (int64_t ow = 0; ow < os[3]; ++ow, ++k) {
          double sum = 0;
          for (int64_t ci = 0; ci < Cg; ++ci) {
            const int64_t channel = conv ? (o / perGroup) * Cg + ci : o;
            const int64_t plane = (n * C + channel) * H * W;
            forEachTap(w, H, W, oh, ow, [&](int64_t th, int64_t tw, int64_t h, int64_t x0) {
              const double weight =
                  conv ? magnitude(*wt, ((o * Cg + ci) * w.kernel[0] + th) * w.kernel[1] + tw)
                       : 1.0;
              sum += magnitude(x, plane + h * W + x0) * weight;
            });
          }
          bound[k] = boundOf(terms, sum, termError) / (conv ? 1.0 : double(w.taps()));
        }
}
} // namespace

std::vector<double> reorderedSumBound(const Case &c, const std::vector<RefTensor> &values,
                                      ValueId v, const ExactnessModel &model) {
  const Op &op = c.ops[c.values[v].defOp];
  const std::vector<int64_t> &shape = c.typeOf(v).shape;
  std::vector<double> bound(static_cast<size_t>(product(shape, 0, shape.size())), 0.0);
  const std::vector<bool> computed = computedValues(c);
  if (op.kind == OpKind::ReduceSum || op.kind == OpKind::ReduceMean) {
    // A mean's is its sum's, divided as the sum is (that division's own
    // rounding is the result type's tolerance).
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
            boundOf(n, sum, heldWideError(c, op.operands[0], computed, model)) /
            (op.kind == OpKind::ReduceMean ? double(n) : 1.0);
      }
  } else if (op.kind == OpKind::AvgPool2d || op.kind == OpKind::Conv2d) {
    windowSumBound(c, values, op, computed, model, bound);
  } else if (op.kind == OpKind::Matmul || op.kind == OpKind::Addmm) {
    // addmm's bias is one more term, of the result's shape once broadcast.
    const bool bias = op.kind == OpKind::Addmm;
    const ValueId ai = op.operands[bias ? 1 : 0], bi = op.operands[bias ? 2 : 1];
    const RefTensor &a = values[ai], &b = values[bi];
    const auto &as = a.type.shape, &bs = b.type.shape;
    const size_t r = as.size();
    const int64_t batches = product(as, 0, r - 2), m = as[r - 2], k = as[r - 1], n = bs[r - 1];
    const RefTensor *addend = bias ? &values[op.operands[0]] : nullptr;
    for (int64_t bt = 0; bt < batches; ++bt)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t kk = 0; kk < k; ++kk)
            sum += magnitude(a, (bt * m + i) * k + kk) * magnitude(b, (bt * k + kk) * n + j);
          double termError =
              heldWideError(c, ai, computed, model) + heldWideError(c, bi, computed, model);
          if (addend) {
            const auto &s = addend->type.shape;
            const int64_t at[3] = {bt, i, j};
            int64_t e = 0;
            for (size_t d = 0; d < r; ++d)
              e = e * s[d] + (s[d] == 1 ? 0 : at[d + 3 - r]);
            sum += magnitude(*addend, e);
            termError += heldWideError(c, op.operands[0], computed, model);
          }
          // A product of two unrounded factors: both errors.
          bound[static_cast<size_t>((bt * m + i) * n + j)] =
              boundOf(bias ? k + 1 : k, sum, termError);
        }
  }
  return bound;
}

} // namespace npufuzz
