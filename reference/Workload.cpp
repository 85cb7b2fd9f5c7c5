//===- reference/Workload.cpp - concat, pad, mean, conv2d and the pools ---===//
//
// The ops NPU workloads are made of, by the semantics ir/Case.h states:
// data movement (concat, pad) copies values and their definedness; the
// sums (reduce_mean, avg_pool2d, conv2d) add their terms in one fixed
// order in f32, which oracles/SumBound's bound frees for the backends, and
// max_pool2d keeps the index torch's CPU kernel keeps.
//
//===----------------------------------------------------------------------===//
#include "ir/Window.h"
#include "reference/OpEval.h"

namespace npufuzz {
namespace ref {
namespace {

/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

void copyElement(const RefTensor &from, int64_t i, RefTensor &to, int64_t j) {
  if (to.isFloat())
    to.f[size_t(j)] = from.f[size_t(i)];
  else
    to.i[size_t(j)] = from.i[size_t(i)];
  to.defined[size_t(j)] = from.defined[size_t(i)];
}

bool concat(OpEval &e) {
  RefTensor &out = e.result();
  const size_t axis = size_t(e.op.attrs.axis);
  const auto &os = out.type.shape;
  const int64_t outer = product(os, 0, axis), inner = product(os, axis + 1, os.size());
  int64_t at = 0; // where along axis the operand starts
  for (unsigned k = 0; k < e.op.operands.size(); ++k) {
    const RefTensor &x = e.operand(k);
    const int64_t n = x.type.shape[axis];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n * inner; ++j)
        copyElement(x, o * n * inner + j, out, (o * os[axis] + at) * inner + j);
    at += n;
  }
  return at == os[axis] || e.fail("concat: operands do not fill the result");
}

bool pad(OpEval &e) {
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  const OpAttrs &a = e.op.attrs;
  const DType t = out.type.dtype;
  if (out.isFloat())
    std::fill(out.f.begin(), out.f.end(), roundRNE(a.value.f, t));
  else
    std::fill(out.i.begin(), out.i.end(), a.value.i);
  std::fill(out.defined.begin(), out.defined.end(), uint8_t(1));
  const std::vector<int64_t> &xs = x.type.shape, os = stridesOf(out.type.shape);
  std::vector<int64_t> idx(xs.size(), 0);
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t j = 0;
    for (size_t d = 0; d < xs.size(); ++d)
      j += (idx[d] + a.low[d]) * os[d];
    copyElement(x, i, out, j);
    for (size_t d = xs.size(); d-- > 0;) // the next index, row-major
      if (++idx[d] < xs[d])
        break;
      else
        idx[d] = 0;
  }
  return true;
}

bool mean(OpEval &e) {
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  const size_t axis = size_t(e.op.attrs.axis);
  const auto &xs = x.type.shape;
  const int64_t outer = product(xs, 0, axis), n = xs[axis],
                inner = product(xs, axis + 1, xs.size());
  const DType t = out.type.dtype;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      float acc = 0.0f;
      uint8_t def = 1;
      for (int64_t j = 0; j < n; ++j) {
        const size_t k = size_t((o * n + j) * inner + in);
        acc = j ? acc + x.f[k] : x.f[k];
        def &= x.defined[k];
      }
      out.f[size_t(o * inner + in)] = roundRNE(acc / float(n), t);
      out.defined[size_t(o * inner + in)] = def;
    }
  return true;
}

// A sum starts from its first term, as reduce_sum's does: the sign of a
// zero sum is the terms' (-0 + -0 is -0), and a one-term sum is exact.

/// Calls `visit(n, c, oh, ow, out)` for every output element of a window
/// op over NCHW input `x` into `out`'s [N, C', OH, OW].
template <class Visit> void eachOutput(const RefTensor &out, Visit visit) {
  const auto &s = out.type.shape;
  int64_t k = 0;
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t oh = 0; oh < s[2]; ++oh)
        for (int64_t ow = 0; ow < s[3]; ++ow)
          visit(n, c, oh, ow, k++);
}

bool pool(OpEval &e, const Window2d &w) {
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  const auto &xs = x.type.shape;
  const int64_t C = xs[1], H = xs[2], W = xs[3];
  const DType t = out.type.dtype;
  if (e.op.kind == OpKind::AvgPool2d) {
    eachOutput(out, [&](int64_t n, int64_t c, int64_t oh, int64_t ow, int64_t k) {
      const int64_t plane = (n * C + c) * H * W;
      float acc = 0.0f;
      bool first = true;
      uint8_t def = 1;
      forEachTap(w, H, W, oh, ow, [&](int64_t, int64_t, int64_t h, int64_t x0) {
        const float v = x.f[size_t(plane + h * W + x0)];
        acc = first ? v : acc + v;
        first = false;
        def &= x.defined[size_t(plane + h * W + x0)];
      });
      out.f[size_t(k)] = roundRNE(acc / float(w.taps()), t);
      out.defined[size_t(k)] = def;
    });
    return true;
  }
  RefTensor &indices = e.result(1);
  eachOutput(out, [&](int64_t n, int64_t c, int64_t oh, int64_t ow, int64_t k) {
    const int64_t plane = (n * C + c) * H * W;
    float best = 0.0f;
    int64_t at = -1;
    uint8_t def = 1;
    // torch's CPU kernel: the first tap, then any tap greater than the best
    // or NaN (so the last NaN).
    forEachTap(w, H, W, oh, ow, [&](int64_t, int64_t, int64_t h, int64_t x0) {
      const float v = x.f[size_t(plane + h * W + x0)];
      def &= x.defined[size_t(plane + h * W + x0)];
      if (at < 0 || v > best || std::isnan(v)) {
        best = v;
        at = h * W + x0;
      }
    });
    out.f[size_t(k)] = best;
    out.defined[size_t(k)] = def;
    indices.i[size_t(k)] = at;
    indices.defined[size_t(k)] = def;
  });
  (void)t;
  return true;
}

/// conv2d's loops; `mulAdd(acc, first, x, w)` adds the product x * w to
/// acc, or starts acc with it when `first`.
template <class T, class MulAdd>
void convLoop(const Window2d &w, int64_t groups, const std::vector<T> &xv, const RefTensor &x,
              const std::vector<T> &wv, const RefTensor &wt, std::vector<T> &ov, RefTensor &out,
              MulAdd mulAdd) {
  const auto &xs = x.type.shape, &ws = wt.type.shape;
  const int64_t C = xs[1], H = xs[2], W = xs[3], Cout = ws[0], Cg = ws[1];
  const int64_t perGroup = Cout / groups;
  eachOutput(out, [&](int64_t n, int64_t o, int64_t oh, int64_t ow, int64_t k) {
    const int64_t c0 = (o / perGroup) * Cg;
    T acc = T(0); // +0 for a window wholly in the padding
    bool first = true;
    uint8_t def = 1;
    for (int64_t ci = 0; ci < Cg; ++ci) {
      const int64_t plane = (n * C + c0 + ci) * H * W, kernel = (o * Cg + ci) * ws[2] * ws[3];
      forEachTap(w, H, W, oh, ow, [&](int64_t th, int64_t tw, int64_t h, int64_t x0) {
        const size_t xi = size_t(plane + h * W + x0), wi = size_t(kernel + th * ws[3] + tw);
        acc = mulAdd(acc, first, xv[xi], wv[wi]);
        first = false;
        def &= x.defined[xi] & wt.defined[wi];
      });
    }
    ov[size_t(k)] = acc;
    out.defined[size_t(k)] = def;
  });
}

bool conv(OpEval &e, const Window2d &w) {
  const RefTensor &x = e.operand(0), &wt = e.operand(1);
  RefTensor &out = e.result();
  const int64_t groups = e.op.attrs.groups;
  if (x.isFloat()) {
    convLoop(w, groups, x.f, x, wt.f, wt, out.f, out, [](float acc, bool first, float a, float b) {
      const float product = a * b;
      return first ? product : acc + product;
    });
    return true;
  }
  const SignedArith arith(out.type.dtype, SignedOverflow::Wraps);
  convLoop(w, groups, x.i, x, wt.i, wt, out.i, out,
           [&arith](int64_t acc, bool first, int64_t a, int64_t b) {
             return arith.add(first ? 0 : acc, arith.mul(a, b));
           });
  return true;
}

/// addmm: the products in k order from the first, in f32, then the bias.
bool addmm(OpEval &e) {
  const RefTensor &bias = e.operand(0), &a = e.operand(1), &b = e.operand(2);
  RefTensor &out = e.result();
  const auto &os = out.type.shape;
  const size_t r = os.size();
  const int64_t B = r == 3 ? os[0] : 1, M = os[r - 2], N = os[r - 1], K = a.type.shape[r - 1];
  const std::vector<int64_t> bs = stridesOf(bias.type.shape);
  for (int64_t bt = 0; bt < B; ++bt)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        float acc = 0.0f;
        uint8_t def = 1;
        for (int64_t k = 0; k < K; ++k) {
          const size_t ai = size_t((bt * M + m) * K + k), bi = size_t((bt * K + k) * N + n);
          const float product = a.f[ai] * b.f[bi];
          acc = k ? acc + product : product;
          def &= a.defined[ai] & b.defined[bi];
        }
        // The bias element this output reads: its size-1 dims broadcast.
        const int64_t at[3] = {bt, m, n};
        int64_t j = 0;
        for (size_t d = 0; d < r; ++d)
          j += (bias.type.shape[d] == 1 ? 0 : at[d + 3 - r]) * bs[d];
        const size_t o = size_t((bt * M + m) * N + n);
        out.f[o] = acc + bias.f[size_t(j)];
        out.defined[o] = def & bias.defined[size_t(j)];
      }
  return true;
}

bool window(OpEval &e) {
  Window2d w;
  if (!windowOf(e.c, e.op, w) || (!e.operand(0).isFloat() && e.op.kind != OpKind::Conv2d))
    return e.fail(std::string(opName(e.op.kind)) + ": not a window over a float NCHW tensor");
  return e.op.kind == OpKind::Conv2d ? conv(e, w) : pool(e, w);
}

} // namespace

bool evalWorkload(OpEval &e) {
  if (e.op.kind == OpKind::Concat)
    return concat(e);
  if (e.op.kind == OpKind::Pad)
    return pad(e);
  if (e.op.kind == OpKind::ReduceMean)
    return mean(e);
  if (e.op.kind == OpKind::Addmm)
    return addmm(e);
  if (e.op.kind == OpKind::Conv2d || e.op.kind == OpKind::AvgPool2d ||
      e.op.kind == OpKind::MaxPool2d)
    return window(e);
  return e.fail("not a workload op: " + std::string(opName(e.op.kind)));
}

} // namespace ref
} // namespace npufuzz
