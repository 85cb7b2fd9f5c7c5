//===- generators/WorkloadBuilders.cpp - concat, pad, mean, conv, pools ---===//
//
// Builders for the ops NPU workloads are made of. Windows (conv2d and the
// pools) take NCHW tensors: an existing one, a new input, or, as a model
// hands a convolution its activations, an NHWC input permuted to NCHW
// (channels-last strides, which compilers lay out and lower differently).
// Their windows are small, as models' are, and their multiply-adds count
// against the case's element budget as a matmul's do.
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include "ir/Verifier.h"
#include "ir/Window.h"

#include <algorithm>

namespace npufuzz::gen {

namespace {

/// Above this many inputs Inductor lowers a cat as its own kernel rather
/// than fusing it pointwise (config.max_pointwise_cat_inputs = 8).
constexpr int64_t kManyCatInputs = 9;

/// An op of kind `k` with `attrs`, for asking its window before it exists.
Op opOf(OpKind k, const OpAttrs &attrs) {
  Op op;
  op.kind = k;
  op.attrs = attrs;
  return op;
}

bool numericDType(DType t) { return t != DType::I1 && t != DType::Index; }

ValueId pick(GenContext &g, const DTypePred &dtypes, unsigned minRank = 1) {
  return g.operand([&](const TensorType &t) { return dtypes(t.dtype) && t.rank() >= minRank; },
                   [&] { return g.drawType(dtypes, minRank, kMaxRank); });
}

bool buildConcat(GenContext &g) {
  const ValueId x = pick(g, [](DType t) { return t != DType::Index; });
  if (x == kNoValue)
    return false;
  const TensorType xt = g.c.typeOf(x);
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(xt.rank()));
  const size_t axis = static_cast<size_t>(attrs.axis);
  const int64_t count =
      g.rng.chance(0.15) ? g.rng.range(kManyCatInputs, kManyCatInputs + 3) : g.rng.range(2, 4);
  const int64_t rest = xt.numElements() / xt.shape[axis];
  int64_t budget = g.elementsLeft() - xt.numElements();
  std::vector<ValueId> operands = {x};
  for (int64_t k = 1; k < count && budget >= rest; ++k) {
    TensorType t{xt.dtype, xt.shape, std::nullopt};
    // The same operand again, or one of another extent along the axis.
    if (!g.rng.chance(0.25))
      t.shape[axis] = g.drawDim(std::max<int64_t>(1, std::min<int64_t>(16, budget / rest)));
    const ValueId y = t.shape == xt.shape && g.rng.chance(0.5) ? x : g.operandLike(t);
    if (y == kNoValue)
      break;
    operands.push_back(y);
    budget -= g.c.typeOf(y).numElements();
  }
  return operands.size() >= 2 && g.emit(OpKind::Concat, operands, attrs) >= 0;
}

bool buildPad(GenContext &g) {
  const ValueId x = pick(g, numericDType);
  if (x == kNoValue)
    return false;
  const TensorType &xt = g.c.typeOf(x);
  OpAttrs attrs;
  for (unsigned d = 0; d < xt.rank(); ++d) {
    // Mostly the last dims, as models pad a sequence or an image.
    const double rate = d + 2 >= xt.rank() ? 0.7 : 0.15;
    attrs.low.push_back(g.rng.chance(rate) ? g.rng.range(0, 3) : 0);
    attrs.high.push_back(g.rng.chance(rate) ? g.rng.range(0, 3) : 0);
  }
  attrs.value = g.rng.chance(0.5) ? Scalar{} : g.drawScalar(xt.dtype);
  return g.emit(OpKind::Pad, {x}, attrs) >= 0;
}

bool buildMean(GenContext &g) {
  const ValueId x = pick(g, isFloat);
  if (x == kNoValue)
    return false;
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(g.c.typeOf(x).rank()));
  return g.emit(OpKind::ReduceMean, {x}, attrs) >= 0;
}

/// An NCHW float operand: an existing rank-4 value, or a new input, NCHW or
/// NHWC permuted to NCHW.
ValueId nchwOperand(GenContext &g, const DTypePred &dtypes) {
  std::optional<ValueId> existing =
      g.pickExisting([&](const TensorType &t) { return t.rank() == 4 && dtypes(t.dtype); });
  if (existing && g.rng.chance(g.policy.reuseRate))
    return *existing;
  const DType dt = g.drawDType(dtypes);
  const int64_t n = g.rng.chance(0.7) ? 1 : 2, ch = g.drawDim(8);
  const int64_t h = g.drawDim(16), w = g.drawDim(16);
  if (n * ch * h * w > g.elementsLeft())
    return kNoValue;
  if (!g.rng.chance(0.3))
    return g.newInput(TensorType{dt, {n, ch, h, w}, std::nullopt});
  const ValueId nhwc = g.newInput(TensorType{dt, {n, h, w, ch}, std::nullopt});
  if (nhwc == kNoValue)
    return kNoValue;
  OpAttrs perm;
  perm.perm = {0, 3, 1, 2};
  return g.emitValue(OpKind::Transpose, {nhwc}, perm);
}

/// Two values in [lo, hi], each clamped to at least lo.
std::vector<int64_t> pair(GenContext &g, int64_t lo, int64_t hi0, int64_t hi1) {
  return {g.rng.range(lo, std::max(lo, hi0)), g.rng.range(lo, std::max(lo, hi1))};
}

bool buildPool(GenContext &g, OpKind k) {
  const ValueId x = nchwOperand(g, isFloat);
  if (x == kNoValue)
    return false;
  const std::vector<int64_t> s = g.c.typeOf(x).shape;
  OpAttrs attrs;
  // Small windows mostly; now and then one past Inductor's unrolled form
  // (16 taps) or past what it lowers at all (25 taps, an aten fallback).
  const int64_t widest = g.rng.chance(0.2) ? 7 : 4;
  attrs.kernel = pair(g, 1, std::min<int64_t>(widest, s[2]), std::min<int64_t>(widest, s[3]));
  attrs.strides = g.rng.chance(0.4) ? std::vector<int64_t>{1, 1} : pair(g, 1, 3, 3);
  attrs.padding = g.rng.chance(0.5) ? std::vector<int64_t>{0, 0}
                                    : pair(g, 0, attrs.kernel[0] / 2, attrs.kernel[1] / 2);
  if (k == OpKind::MaxPool2d) {
    attrs.dilation = g.rng.chance(0.8) ? std::vector<int64_t>{1, 1} : pair(g, 1, 2, 2);
    Window2d w;
    if (!windowOf(opOf(k, attrs), TensorType{}, w) || w.outExtent(0, s[2]) < 1 ||
        w.outExtent(1, s[3]) < 1)
      attrs.dilation = {1, 1};
  }
  return g.emit(k, {x}, attrs) >= 0;
}

bool buildConv(GenContext &g) {
  // Integer convolutions too (i8, i32, i64): they wrap, in any order.
  const ValueId x = nchwOperand(g, [](DType t) {
    return isFloat(t) || t == DType::I8 || t == DType::I32 || t == DType::I64;
  });
  if (x == kNoValue)
    return false;
  const TensorType xt = g.c.typeOf(x);
  const int64_t ch = xt.shape[1];
  OpAttrs attrs;
  // Grouped and depthwise convolutions, as mobile models have them.
  std::vector<int64_t> divisors;
  for (int64_t d = 2; d <= ch; ++d)
    if (ch % d == 0)
      divisors.push_back(d);
  attrs.groups = !divisors.empty() && g.rng.chance(0.3) ? g.rng.pick(divisors) : 1;
  const int64_t cout = attrs.groups * g.rng.range(1, std::max<int64_t>(1, 8 / attrs.groups));
  const std::vector<int64_t> kernel =
      pair(g, 1, std::min<int64_t>(5, xt.shape[2]), std::min<int64_t>(5, xt.shape[3]));
  attrs.strides = g.rng.chance(0.6) ? std::vector<int64_t>{1, 1} : pair(g, 1, 2, 2);
  attrs.padding = g.rng.chance(0.4) ? std::vector<int64_t>{0, 0}
                                    : pair(g, 0, kernel[0] / 2 + 1, kernel[1] / 2 + 1);
  attrs.dilation = g.rng.chance(0.85) ? std::vector<int64_t>{1, 1} : pair(g, 1, 2, 2);
  // torch dilates no 8- or 32-bit integer convolution (slow_conv_dilated).
  if (xt.dtype == DType::I8 || xt.dtype == DType::I32)
    attrs.dilation = {1, 1};
  const TensorType wt{xt.dtype, {cout, ch / attrs.groups, kernel[0], kernel[1]}, std::nullopt};
  Window2d w;
  if (!windowOf(opOf(OpKind::Conv2d, attrs), wt, w))
    return false;
  if (w.outExtent(0, xt.shape[2]) < 1 || w.outExtent(1, xt.shape[3]) < 1) {
    attrs.dilation = {1, 1};
    w.dilation = {1, 1};
  }
  // Multiply-adds against the case's budget, as a matmul's.
  const int64_t macs = xt.shape[0] * cout * w.outExtent(0, xt.shape[2]) *
                       w.outExtent(1, xt.shape[3]) * wt.shape[1] * w.taps();
  if (macs > std::max<int64_t>(1, g.elementsLeft()) * 4)
    return false;
  const ValueId weight = g.newInput(wt);
  return weight != kNoValue && g.emit(OpKind::Conv2d, {x, weight}, attrs) >= 0;
}

/// addmm: a bias added to a matmul of floats, as a linear layer's; b is
/// sometimes a weight [N, K] transposed, as F.linear reads it.
bool buildAddmm(GenContext &g) {
  const DType dt = g.drawDType(isFloat);
  const unsigned rank = g.rng.chance(0.25) ? 3 : 2;
  const int64_t batch = rank == 3 ? g.drawDim(4) : 1, m = g.drawDim(32), k = g.drawDim(64);
  const int64_t n = g.drawDim(64);
  if (batch * m * n * k > std::max<int64_t>(1, g.elementsLeft()) * 4)
    return false;
  auto shape = [&](int64_t rows, int64_t cols) {
    return rank == 3 ? std::vector<int64_t>{batch, rows, cols} : std::vector<int64_t>{rows, cols};
  };
  const ValueId a = g.operandLike(TensorType{dt, shape(m, k), std::nullopt});
  ValueId b = kNoValue;
  if (rank == 2 && g.rng.chance(0.5)) {
    const ValueId weight = g.newInput(TensorType{dt, {n, k}, std::nullopt});
    OpAttrs perm;
    perm.perm = {1, 0};
    b = weight == kNoValue ? kNoValue : g.emitValue(OpKind::Transpose, {weight}, perm);
  } else {
    b = g.operandLike(TensorType{dt, shape(k, n), std::nullopt});
  }
  // A bias per output column (a linear layer's), or per element.
  std::vector<int64_t> bs = shape(1, n);
  if (rank == 3)
    bs[0] = g.rng.chance(0.5) ? 1 : batch;
  if (g.rng.chance(0.3))
    bs[rank - 2] = m;
  // A constant bias now and then: the program is then a matmul plus a
  // constant, the form Inductor's patterns fold into an addmm.
  ValueId bias = kNoValue;
  if (g.policy.opWeights[static_cast<size_t>(OpKind::Const)] > 0 && g.rng.chance(0.3)) {
    OpAttrs value;
    value.value = g.drawScalar(dt);
    bias = g.emitSource(OpKind::Const, TensorType{dt, bs, std::nullopt}, value);
  } else {
    bias = g.operandLike(TensorType{dt, bs, std::nullopt});
  }
  if (a == kNoValue || b == kNoValue || bias == kNoValue)
    return false;
  return g.emit(OpKind::Addmm, {bias, a, b}, OpAttrs()) >= 0;
}

} // namespace

bool buildWorkload(GenContext &g, OpKind k) {
  if (k == OpKind::Concat)
    return buildConcat(g);
  if (k == OpKind::Pad)
    return buildPad(g);
  if (k == OpKind::ReduceMean)
    return buildMean(g);
  if (k == OpKind::AvgPool2d || k == OpKind::MaxPool2d)
    return buildPool(g, k);
  if (k == OpKind::Conv2d)
    return buildConv(g);
  if (k == OpKind::Addmm)
    return buildAddmm(g);
  return false;
}

} // namespace npufuzz::gen
