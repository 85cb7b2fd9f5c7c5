//===- reference/Structured.cpp - Reductions, topk, matmul, gather --------===//
//
// Ops whose result elements combine many source elements. Each result element
// is defined only when every element it was computed from is defined.
// Reductions and matmul keep the accumulation order fixed (left to right
// along the reduced axis) because that order is part of the semantics.
//
//===----------------------------------------------------------------------===//

#include "reference/OpEval.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace npufuzz {
namespace ref {
namespace {

/// A tensor seen as [outer, n, inner] around `axis`.
struct AxisSplit {
  int64_t outer, n, inner;
};

bool splitAxis(OpEval &e, const std::vector<int64_t> &shape, AxisSplit &s) {
  const int64_t axis = e.op.attrs.axis;
  if (axis < 0 || axis >= int64_t(shape.size()))
    return e.fail("axis " + std::to_string(axis) + " out of range");
  s = {product(shape, 0, size_t(axis)), shape[axis],
       product(shape, size_t(axis) + 1, shape.size())};
  return true;
}

/// reduce_sum/max/min: `step(acc, x)` folds elements left to right starting
/// from the first one; `finish` rounds the accumulator to the element type.
template <class T, class Step, class Finish>
void reduceLoop(const AxisSplit &s, const std::vector<T> &xv, const std::vector<uint8_t> &xd,
                std::vector<T> &out, std::vector<uint8_t> &od, Step step, Finish finish) {
  std::vector<T> acc(size_t(s.inner));
  for (int64_t o = 0; o < s.outer; ++o) {
    const int64_t base = o * s.n * s.inner;
    uint8_t *def = &od[size_t(o * s.inner)];
    for (int64_t in = 0; in < s.inner; ++in) {
      acc[in] = xv[base + in];
      def[in] = xd[base + in];
    }
    for (int64_t j = 1; j < s.n; ++j) {
      const int64_t row = base + j * s.inner;
      for (int64_t in = 0; in < s.inner; ++in) {
        acc[in] = step(acc[in], xv[row + in]);
        def[in] &= xd[row + in];
      }
    }
    for (int64_t in = 0; in < s.inner; ++in)
      out[o * s.inner + in] = finish(acc[in]);
  }
}

bool reduce(OpEval &e) {
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  AxisSplit s;
  if (!splitAxis(e, x.type.shape, s))
    return false;
  if (s.n == 0)
    return e.fail("reduction over an empty axis");
  const OpKind k = e.op.kind;
  const DType t = out.type.dtype;
  if (x.isFloat()) {
    auto finish = [t](float v) { return roundRNE(v, t); };
    if (k == OpKind::ReduceSum)
      reduceLoop(
          s, x.f, x.defined, out.f, out.defined, [](float a, float b) { return a + b; }, finish);
    else
      reduceLoop(s, x.f, x.defined, out.f, out.defined, k == OpKind::ReduceMax ? maxNaN : minNaN,
                 finish);
    return true;
  }
  const SignedArith arith(t, e.signedOverflow);
  auto finish = [](int64_t v) { return v; };
  if (k == OpKind::ReduceSum)
    reduceLoop(
        s, x.i, x.defined, out.i, out.defined,
        [&arith](int64_t a, int64_t b) { return arith.add(a, b); }, finish);
  else if (k == OpKind::ReduceMax)
    reduceLoop(
        s, x.i, x.defined, out.i, out.defined, [](int64_t a, int64_t b) { return std::max(a, b); },
        finish);
  else
    reduceLoop(
        s, x.i, x.defined, out.i, out.defined, [](int64_t a, int64_t b) { return std::min(a, b); },
        finish);
  return true;
}

/// A totally ordered key for argmax and topk: NaN above everything,
/// -0 == +0, otherwise numeric order (float sign-magnitude bits mapped to
/// integers).
inline int64_t rankKey(float v) {
  if (std::isnan(v))
    return INT64_MAX;
  if (v == 0.0f)
    return 0;
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  const int64_t mag = int64_t(b & 0x7FFFFFFFu);
  return (b >> 31) ? -mag : mag;
}
inline int64_t rankKey(int64_t v) { return v; }

/// argmax: index of the first maximum along the axis.
template <class T>
void argmaxLoop(const AxisSplit &s, const std::vector<T> &xv, const std::vector<uint8_t> &xd,
                RefTensor &out) {
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.n * s.inner + in;
      int64_t best = 0, bestKey = rankKey(xv[base]);
      uint8_t def = 1;
      for (int64_t j = 0; j < s.n; ++j) {
        const int64_t idx = base + j * s.inner;
        def &= xd[idx];
        const int64_t key = rankKey(xv[idx]);
        if (key > bestKey) {
          best = j;
          bestKey = key;
        }
      }
      out.i[o * s.inner + in] = best;
      out.defined[o * s.inner + in] = def;
    }
}

/// topk: the k elements ranking highest, ties broken by the lower index.
/// (key, index) pairs are distinct, so selecting the first k and sorting
/// them is deterministic.
template <class T>
void topkLoop(const AxisSplit &s, int64_t k, const std::vector<T> &xv,
              const std::vector<uint8_t> &xd, std::vector<T> &vals, RefTensor &vOut,
              RefTensor &iOut) {
  struct Entry {
    int64_t key, index;
  };
  auto before = [](const Entry &a, const Entry &b) {
    return a.key > b.key || (a.key == b.key && a.index < b.index);
  };
  std::vector<Entry> line(static_cast<size_t>(s.n));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t in = 0; in < s.inner; ++in) {
      const int64_t base = o * s.n * s.inner + in;
      uint8_t def = 1;
      for (int64_t j = 0; j < s.n; ++j) {
        line[j] = {rankKey(xv[base + j * s.inner]), j};
        def &= xd[base + j * s.inner];
      }
      std::nth_element(line.begin(), line.begin() + (k - 1), line.end(), before);
      std::sort(line.begin(), line.begin() + k, before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = (o * k + j) * s.inner + in;
        vals[dst] = xv[base + line[j].index * s.inner];
        iOut.i[dst] = line[j].index;
        vOut.defined[dst] = def;
        iOut.defined[dst] = def;
      }
    }
}

bool argmaxOrTopk(OpEval &e) {
  const RefTensor &x = e.operand(0);
  AxisSplit s;
  if (!splitAxis(e, x.type.shape, s))
    return false;
  if (s.n == 0)
    return e.fail("argmax/topk over an empty axis");
  if (e.op.kind == OpKind::ArgMax) {
    if (x.isFloat())
      argmaxLoop(s, x.f, x.defined, e.result());
    else
      argmaxLoop(s, x.i, x.defined, e.result());
    return true;
  }
  const int64_t k = e.op.attrs.k;
  if (k < 1 || k > s.n || e.results.size() != 2 ||
      e.result(0).numElements() != s.outer * k * s.inner ||
      e.result(1).numElements() != s.outer * k * s.inner)
    return e.fail("topk: k or the result shapes do not match the operand");
  RefTensor &vOut = e.result(0), &iOut = e.result(1);
  if (x.isFloat())
    topkLoop(s, k, x.f, x.defined, vOut.f, vOut, iOut);
  else
    topkLoop(s, k, x.i, x.defined, vOut.i, vOut, iOut);
  return true;
}

/// matmul over [B, M, K] x [B, K, N]. Loops run m, k, n so each output's
/// accumulator still receives its products in k order, while the inner loop
/// stays contiguous. `mulAdd(acc, a, b)` returns acc + a*b in the acc type.
template <class T, class MulAdd>
void matmulLoop(int64_t B, int64_t M, int64_t K, int64_t N, const std::vector<T> &av,
                const std::vector<T> &bv, const RefTensor &a, const RefTensor &b,
                std::vector<T> &out, std::vector<uint8_t> &od, MulAdd mulAdd) {
  std::vector<uint8_t> colDef(static_cast<size_t>(N));
  for (int64_t bt = 0; bt < B; ++bt) {
    const int64_t aBase = bt * M * K, bBase = bt * K * N, oBase = bt * M * N;
    // Column n of b is defined when all of b[:, n] is.
    std::fill(colDef.begin(), colDef.end(), uint8_t(1));
    for (int64_t kk = 0; kk < K; ++kk)
      for (int64_t n = 0; n < N; ++n)
        colDef[n] &= b.defined[bBase + kk * N + n];
    for (int64_t m = 0; m < M; ++m) {
      T *acc = &out[oBase + m * N];
      std::fill(acc, acc + N, T(0));
      uint8_t rowDef = 1;
      for (int64_t kk = 0; kk < K; ++kk) {
        const T x = av[aBase + m * K + kk];
        rowDef &= a.defined[aBase + m * K + kk];
        const T *brow = &bv[bBase + kk * N];
        for (int64_t n = 0; n < N; ++n)
          acc[n] = mulAdd(acc[n], x, brow[n]);
      }
      for (int64_t n = 0; n < N; ++n)
        od[oBase + m * N + n] = rowDef & colDef[n];
    }
  }
}

bool matmul(OpEval &e) {
  const RefTensor &a = e.operand(0), &b = e.operand(1);
  RefTensor &out = e.result();
  const auto &as = a.type.shape, &bs = b.type.shape;
  const size_t r = as.size();
  if (r < 2 || bs.size() != r || out.type.rank() != r || as[r - 1] != bs[r - 2] ||
      product(as, 0, r - 2) != product(bs, 0, r - 2))
    return e.fail("matmul: operand shapes do not match");
  const int64_t B = product(as, 0, r - 2), M = as[r - 2], K = as[r - 1], N = bs[r - 1];
  if (out.numElements() != B * M * N)
    return e.fail("matmul: result shape does not match the operands");
  const DType acc = out.type.dtype;
  if (a.isFloat() && b.isFloat() && acc == DType::F32) {
    // Products of bf16/f16 values are exact in f32; f32 products round once.
    matmulLoop(B, M, K, N, a.f, b.f, a, b, out.f, out.defined,
               [](float s, float x, float y) { return s + x * y; });
    return true;
  }
  if (!a.isFloat() && !b.isFloat() && isInteger(acc)) {
    // Operands are sign-extended; products and sums wrap at the acc width.
    const SignedArith arith(acc, e.signedOverflow);
    matmulLoop(B, M, K, N, a.i, b.i, a, b, out.i, out.defined,
               [&arith](int64_t s, int64_t x, int64_t y) { return arith.add(s, arith.mul(x, y)); });
    return true;
  }
  return e.fail("matmul: unsupported operand/accumulator dtypes");
}

/// gather along `axis`: out[..i..] = src[.. idx[..i..] ..]. An index outside
/// the source (the verifier proves defined indices in bounds) yields an
/// undefined element.
bool gather(OpEval &e) {
  const RefTensor &src = e.operand(0), &idx = e.operand(1);
  RefTensor &out = e.result();
  AxisSplit so, ss;
  if (!splitAxis(e, out.type.shape, so) || !splitAxis(e, src.type.shape, ss))
    return false;
  if (idx.numElements() != out.numElements() || so.outer != ss.outer || so.inner != ss.inner ||
      idx.isFloat())
    return e.fail("gather: index/source shapes do not match");
  for (int64_t o = 0; o < so.outer; ++o)
    for (int64_t j = 0; j < so.n; ++j)
      for (int64_t in = 0; in < so.inner; ++in) {
        const int64_t k = (o * so.n + j) * so.inner + in;
        const int64_t p = idx.i[k];
        if (p < 0 || p >= ss.n) {
          out.defined[k] = 0;
          continue;
        }
        const int64_t from = (o * ss.n + p) * ss.inner + in;
        if (out.isFloat())
          out.f[k] = src.f[from];
        else
          out.i[k] = src.i[from];
        out.defined[k] = idx.defined[k] & src.defined[from];
      }
  return true;
}

} // namespace

bool evalStructured(OpEval &e) {
  switch (e.op.kind) {
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: return reduce(e);
  case OpKind::ArgMax:
  case OpKind::TopK: return argmaxOrTopk(e);
  case OpKind::Matmul: return matmul(e);
  case OpKind::Gather: return gather(e);
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return e.fail("not a structured op: " + std::string(opName(e.op.kind)));
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace ref
} // namespace npufuzz
