//===- tests/reference/WorkloadTest.cpp - concat, pad, mean, conv, pools ---===//
//
// The reference's semantics of the workload ops (ir/Case.h), each by a
// case small enough to work out by hand, and the behaviours torch's CPU
// kernels have that a backend is held to: the divisor of a padded average,
// the index of tied and NaN maxima, the sign of a zero sum, grouped and
// integer convolutions.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

OpAttrs window(std::vector<int64_t> kernel, std::vector<int64_t> stride,
               std::vector<int64_t> padding, std::vector<int64_t> dilation = {1, 1}) {
  OpAttrs a;
  a.kernel = std::move(kernel);
  a.strides = std::move(stride);
  a.padding = std::move(padding);
  a.dilation = std::move(dilation);
  return a;
}

TEST(Concat, LaysOperandsAlongTheAxisWithTheirDefinedness) {
  CaseBuilder b;
  const ValueId x = b.input(floats(ty(DType::F32, {2, 1}), {1, 2}, {1, 0}));
  const ValueId y = b.input(floats(ty(DType::F32, {2, 2}), {3, 4, 5, 6}));
  OpAttrs a;
  a.axis = 1;
  const ValueId r = b.op(OpKind::Concat, {x, y, x}, a, ty(DType::F32, {2, 4}));
  const std::vector<RefTensor> v = b.run();
  // An undefined element's value is never compared: the input holds 0.
  expectFloats(v[r], {1, 3, 4, 1, 0, 5, 6, 0});
  expectDefined(v[r], {1, 1, 1, 1, 0, 1, 1, 0});
}

TEST(Pad, SurroundsWithTheValueRoundedToTheType) {
  OpAttrs a;
  a.low = {1, 0};
  a.high = {0, 2};
  a.value.f = 0.1f; // bf16 0.10009765625
  const RefTensor r = evalOp(OpKind::Pad, {floats(ty(DType::BF16, {1, 2}), {1, 2}, {1, 0})}, a,
                             ty(DType::BF16, {2, 4}));
  const float p = 0.10009765625f;
  expectFloats(r, {p, p, p, p, 1, 0, p, p}); // the undefined 2 is held as 0
  expectDefined(r, {1, 1, 1, 1, 1, 0, 1, 1});
  OpAttrs i;
  i.low = {2};
  i.high = {1};
  i.value.i = -7;
  expectInts(evalOp(OpKind::Pad, {ints(ty(DType::I32, {1}), {5})}, i, ty(DType::I32, {4})),
             {-7, -7, 5, -7});
}

TEST(Mean, SumsInF32FromTheFirstTermThenDivides) {
  OpAttrs a;
  a.axis = 1;
  // bf16: (1 + 2^-8 + 2^-8) / 3 in f32, rounded once.
  expectFloats(evalOp(OpKind::ReduceMean, {floats(ty(DType::BF16, {1, 3}), {1, 0x1p-8f, 0x1p-8f})},
                      a, ty(DType::BF16, {1, 1})),
               {roundFloatTo(1.0078125f / 3.0f, DType::BF16, RoundingMode::NearestEven)});
  expectFloats(evalOp(OpKind::ReduceMean, {floats(ty(DType::F32, {1, 2}), {-0.0f, -0.0f})}, a,
                      ty(DType::F32, {1, 1})),
               {-0.0f});
}

TEST(AvgPool, CountsThePaddingInItsDivisor) {
  // ones(1,1,4,4), kernel 3, stride 2, padding 1: 4/9, 6/9, 6/9, 9/9.
  const RefTensor r =
      evalOp(OpKind::AvgPool2d, {floats(ty(DType::F32, {1, 1, 4, 4}), std::vector<float>(16, 1))},
             window({3, 3}, {2, 2}, {1, 1}), ty(DType::F32, {1, 1, 2, 2}));
  expectFloats(r, {4.0f / 9, 6.0f / 9, 6.0f / 9, 1.0f});
}

TEST(MaxPool, IndexIsTheFirstMaximumOrTheLastNaN) {
  const float nan = std::nanf("");
  CaseBuilder b;
  // Two 1x1x2x2 planes in one window each: ties, then two NaNs.
  const ValueId x = b.input(floats(ty(DType::F32, {1, 2, 2, 2}), {5, 1, 2, 5, 1, nan, nan, 2}));
  const std::vector<ValueId> r =
      b.multi(OpKind::MaxPool2d, {x}, window({2, 2}, {2, 2}, {0, 0}),
              {ty(DType::F32, {1, 2, 1, 1}), ty(DType::I64, {1, 2, 1, 1})});
  b.c.outputs = {r[0], r[1]};
  const std::vector<RefTensor> v = b.run();
  EXPECT_EQ(v[r[0]].f[0], 5.0f);
  EXPECT_TRUE(std::isnan(v[r[0]].f[1]));
  expectInts(v[r[1]], {0, 2});
}

TEST(MaxPool, PaddedTapsAreNeverTheIndex) {
  const float inf = INFINITY;
  CaseBuilder b;
  const ValueId x = b.input(floats(ty(DType::F32, {1, 1, 2, 2}), {-inf, -inf, -inf, -inf}));
  const std::vector<ValueId> r =
      b.multi(OpKind::MaxPool2d, {x}, window({2, 2}, {2, 2}, {1, 1}),
              {ty(DType::F32, {1, 1, 2, 2}), ty(DType::I64, {1, 1, 2, 2})});
  b.c.outputs = {r[0], r[1]};
  const std::vector<RefTensor> v = b.run();
  expectInts(v[r[1]], {0, 1, 2, 3});
}

TEST(Conv2d, GroupsReadTheirOwnChannels) {
  // Two channels, two groups: each output channel scales its own input.
  CaseBuilder b;
  const ValueId x = b.input(floats(ty(DType::F32, {1, 2, 1, 2}), {1, 2, 3, 4}));
  const ValueId w = b.input(floats(ty(DType::F32, {2, 1, 1, 1}), {10, 100}));
  OpAttrs a = window({}, {1, 1}, {0, 0});
  a.kernel.clear();
  a.groups = 2;
  const ValueId r = b.op(OpKind::Conv2d, {x, w}, a, ty(DType::F32, {1, 2, 1, 2}));
  expectFloats(b.run()[r], {10, 20, 300, 400});
}

TEST(Conv2d, PaddingAddsNoTermsAndIntegersWrap) {
  CaseBuilder b;
  // A 1x1x1x1 input under a 3x3 kernel padded by 1: only the centre tap.
  const ValueId x = b.input(floats(ty(DType::F32, {1, 1, 1, 1}), {-0.0f}));
  const ValueId w = b.input(floats(ty(DType::F32, {1, 1, 3, 3}), std::vector<float>(9, 2)));
  OpAttrs a = window({}, {1, 1}, {1, 1});
  a.kernel.clear();
  const ValueId r = b.op(OpKind::Conv2d, {x, w}, a, ty(DType::F32, {1, 1, 1, 1}));
  expectFloats(b.run()[r], {-0.0f});
  // 9 taps of 100 * 3 = 2700, wrapped to i8: -116.
  CaseBuilder i;
  const ValueId xi = i.input(ints(ty(DType::I8, {1, 1, 3, 3}), std::vector<int64_t>(9, 100)));
  const ValueId wi = i.input(ints(ty(DType::I8, {1, 1, 3, 3}), std::vector<int64_t>(9, 3)));
  OpAttrs ai = window({}, {1, 1}, {0, 0});
  ai.kernel.clear();
  const ValueId ri = i.op(OpKind::Conv2d, {xi, wi}, ai, ty(DType::I8, {1, 1, 1, 1}));
  expectInts(i.run()[ri], {-116});
}

TEST(Addmm, AddsTheBroadcastBiasAfterTheProducts) {
  CaseBuilder b;
  // [2,2] x [2,2] plus a bias per column; the products 1e8 and -1e8 cancel
  // before the bias is added, so the bias survives.
  const ValueId bias = b.input(floats(ty(DType::F32, {1, 2}), {1, 2}));
  const ValueId x = b.input(floats(ty(DType::F32, {2, 2}), {1e8f, -1e8f, 0, 0}));
  const ValueId y = b.input(floats(ty(DType::F32, {2, 2}), {1, 1, 1, 1}));
  const ValueId r = b.op(OpKind::Addmm, {bias, x, y}, OpAttrs(), ty(DType::F32, {2, 2}));
  expectFloats(b.run()[r], {1, 2, 1, 2});
}

} // namespace
