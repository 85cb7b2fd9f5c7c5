//===- tests/reference/StructuredTest.cpp - Reductions, topk, matmul, gather -===//

#include "RefTestUtil.h"

#include <climits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

OpAttrs axisAttr(int64_t axis) {
  OpAttrs a;
  a.axis = axis;
  return a;
}

RefTensor reduce(OpKind k, const RefTensor &x, int64_t axis) {
  TensorType t = x.type;
  t.shape[axis] = 1;
  t.valid.reset();
  if (k == OpKind::ArgMax)
    t.dtype = DType::I64;
  return evalOp(k, {x}, axisAttr(axis), t);
}

TEST(Reduce, SumKeepsDim) {
  const RefTensor x = floats(ty(DType::F32, {2, 3}), {1, 2, 3, 4, 5, 6});
  const RefTensor r1 = reduce(OpKind::ReduceSum, x, 1);
  EXPECT_EQ(r1.type.shape, (std::vector<int64_t>{2, 1}));
  expectFloats(r1, {6, 15});
  const RefTensor r0 = reduce(OpKind::ReduceSum, x, 0);
  EXPECT_EQ(r0.type.shape, (std::vector<int64_t>{1, 3}));
  expectFloats(r0, {5, 7, 9});
  const RefTensor x3 = ints(ty(DType::I32, {2, 2, 2}), {1, 2, 3, 4, 5, 6, 7, 8});
  expectInts(reduce(OpKind::ReduceSum, x3, 1), {4, 6, 12, 14});
}

TEST(Reduce, SumIsLeftToRightInF32) {
  // (1 + 1e8) + -1e8 == 0 in f32; any other order would give 1.
  expectFloats(reduce(OpKind::ReduceSum, floats(ty(DType::F32, {1, 3}), {1, 1e8f, -1e8f}), 1),
               {0.0f});
  // bf16: 1 + 2^-8 + 2^-8 accumulates exactly in f32 (1 + 2^-7) and rounds
  // once; rounding every step would stay at 1.
  expectFloats(
      reduce(OpKind::ReduceSum, floats(ty(DType::BF16, {1, 3}), {1.0f, 0x1p-8f, 0x1p-8f}), 1),
      {1.0078125f});
  // f16: 60000 + 60000 is exact in f32 and overflows f16 when rounded.
  expectFloats(reduce(OpKind::ReduceSum, floats(ty(DType::F16, {2, 1}), {60000, 60000}), 0),
               {INFINITY});
  // -0 + -0 stays -0 (the sum starts from the first element).
  expectFloats(reduce(OpKind::ReduceSum, floats(ty(DType::F32, {2}), {-0.0f, -0.0f}), 0), {-0.0f});
}

TEST(Reduce, IntegerSumWraps) {
  expectInts(reduce(OpKind::ReduceSum, ints(ty(DType::I8, {3}), {100, 100, -100}), 0), {100});
  expectInts(reduce(OpKind::ReduceSum, ints(ty(DType::I8, {2}), {127, 1}), 0), {-128});
  expectInts(reduce(OpKind::ReduceSum, ints(ty(DType::I64, {2}), {INT64_MAX, 1}), 0), {INT64_MIN});
}

TEST(Reduce, MaxMinPropagateNaN) {
  const RefTensor x =
      floats(ty(DType::F32, {3, 3}), {1, NAN, 3, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 5});
  expectFloats(reduce(OpKind::ReduceMax, x, 1), {NAN, 0.0f, 5});
  expectFloats(reduce(OpKind::ReduceMin, x, 1), {NAN, -0.0f, -0.0f});
  expectInts(reduce(OpKind::ReduceMax, ints(ty(DType::I32, {2, 2}), {-5, -2, 7, 3}), 1), {-2, 7});
  expectInts(reduce(OpKind::ReduceMin, ints(ty(DType::I32, {2, 2}), {-5, -2, 7, 3}), 0), {-5, -2});
}

TEST(Reduce, Definedness) {
  // One undefined element undefines its reduction.
  const RefTensor x = floats(ty(DType::F32, {2, 3}), {1, 2, 3, 4, 5, 6}, {1, 0, 1, 1, 1, 1});
  const RefTensor r = reduce(OpKind::ReduceSum, x, 1);
  expectFloats(r, {0, 15});
  expectDefined(r, {0, 1});
  expectDefined(reduce(OpKind::ReduceMax, x, 0), {1, 0, 1});
  // A valid shape of 1x3: reducing rows keeps row 0; reducing columns
  // touches the undefined row 1 everywhere.
  const RefTensor v = floats(ty(DType::F32, {2, 3}, vs(1, 3)), {1, 2, 3, 4, 5, 6});
  CaseBuilder b;
  const ValueId in = b.input(v);
  // Inputs arrive undefined outside the valid shape (as makeInputs makes
  // them); the executor enforces it regardless.
  const ValueId r1 = b.op(OpKind::ReduceSum, {in}, axisAttr(1), ty(DType::F32, {2, 1}));
  const ValueId r0 = b.op(OpKind::ReduceMin, {in}, axisAttr(0), ty(DType::F32, {1, 3}));
  b.c.outputs = {r1, r0};
  const std::vector<RefTensor> vals = b.run();
  expectFloats(vals[r1], {6, 0});
  expectDefined(vals[r1], {1, 0});
  expectDefined(vals[r0], {0, 0, 0});
}

TEST(Reduce, ArgMax) {
  const RefTensor x =
      floats(ty(DType::F32, {3, 4}), {3, 7, 7, 1, 1, NAN, NAN, 5, -0.0f, 0.0f, -1, -2});
  const RefTensor r = reduce(OpKind::ArgMax, x, 1);
  EXPECT_EQ(r.type.dtype, DType::I64);
  EXPECT_EQ(r.type.shape, (std::vector<int64_t>{3, 1}));
  expectInts(r, {1, 1, 0});
  expectInts(reduce(OpKind::ArgMax, x, 0), {0, 1, 1, 1});
  expectInts(reduce(OpKind::ArgMax, ints(ty(DType::I8, {1, 3}), {-5, -2, -2}), 1), {1});
  const RefTensor u = floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4}, {1, 1, 0, 1});
  expectDefined(reduce(OpKind::ArgMax, u, 1), {1, 0});
}

std::vector<RefTensor> topk(const RefTensor &x, int64_t axis, int64_t k) {
  CaseBuilder b;
  const ValueId in = b.input(x);
  OpAttrs a;
  a.axis = axis;
  a.k = k;
  TensorType vt = x.type;
  vt.shape[axis] = k;
  TensorType it = vt;
  it.dtype = DType::I64;
  const std::vector<ValueId> res = b.multi(OpKind::TopK, {in}, a, {vt, it});
  b.c.outputs = res;
  const std::vector<RefTensor> vals = b.run();
  if (vals.size() <= size_t(res[1]))
    return {};
  return {vals[res[0]], vals[res[1]]};
}

TEST(TopK, DescendingNaNFirstTiesByIndex) {
  const std::vector<RefTensor> r = topk(floats(ty(DType::F32, {1, 5}), {5, 1, 5, NAN, 3}), 1, 3);
  ASSERT_EQ(r.size(), 2u);
  expectFloats(r[0], {NAN, 5, 5});
  expectInts(r[1], {3, 0, 2});
  const std::vector<RefTensor> ri = topk(ints(ty(DType::I32, {4}), {2, 9, 2, 9}), 0, 3);
  ASSERT_EQ(ri.size(), 2u);
  expectInts(ri[0], {9, 9, 2});
  expectInts(ri[1], {1, 3, 0});
  // -0 and +0 tie: the lower index comes first.
  const std::vector<RefTensor> rz = topk(floats(ty(DType::F32, {2}), {0.0f, -0.0f}), 0, 2);
  ASSERT_EQ(rz.size(), 2u);
  expectInts(rz[1], {0, 1});
}

TEST(TopK, AlongAxis0AndDefinedness) {
  // [3,2] along axis 0, k=2: column 0 = {4, 8, 6}, column 1 = {1, 1, 0}
  // with column 1's last element undefined.
  const RefTensor x = floats(ty(DType::F32, {3, 2}), {4, 1, 8, 1, 6, 0}, {1, 1, 1, 1, 1, 0});
  const std::vector<RefTensor> r = topk(x, 0, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].type.shape, (std::vector<int64_t>{2, 2}));
  expectFloats(r[0], {8, 0, 6, 0});
  expectInts(r[1], {1, 0, 2, 0});
  expectDefined(r[0], {1, 0, 1, 0});
  expectDefined(r[1], {1, 0, 1, 0});
}

RefTensor matmul(const RefTensor &a, const RefTensor &b, DType acc) {
  OpAttrs at;
  at.dtype = acc;
  TensorType t = a.type;
  t.dtype = acc;
  t.shape.back() = b.type.shape.back();
  return evalOp(OpKind::Matmul, {a, b}, at, t);
}

TEST(Matmul, BF16IntoF32) {
  const TensorType t = ty(DType::BF16, {2, 2});
  const RefTensor r =
      matmul(floats(t, {1.5f, 2, 3, -1}), floats(t, {0.5f, 1, 2, 0.25f}), DType::F32);
  EXPECT_EQ(r.type.dtype, DType::F32);
  expectFloats(r, {4.75f, 2.0f, -0.5f, 2.75f});
  // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 is exact in f32 (not in bf16).
  const TensorType t1 = ty(DType::BF16, {1, 1});
  expectFloats(matmul(floats(t1, {1.0078125f}), floats(t1, {1.0078125f}), DType::F32),
               {1.01568603515625f});
}

TEST(Matmul, AccumulatesLeftToRightFromZero) {
  // 0 + 1e8 + 1 == 1e8 in f32, then - 1e8 == 0.
  expectFloats(matmul(floats(ty(DType::F32, {1, 3}), {1e8f, 1, -1e8f}),
                      floats(ty(DType::F32, {3, 1}), {1, 1, 1}), DType::F32),
               {0.0f});
  // Starting from +0: -0 products sum to +0.
  expectFloats(matmul(floats(ty(DType::F32, {1, 1}), {-0.0f}), floats(ty(DType::F32, {1, 1}), {1}),
                      DType::F32),
               {0.0f});
}

TEST(Matmul, IntegerWraps) {
  expectInts(matmul(ints(ty(DType::I8, {1, 2}), {127, -128}),
                    ints(ty(DType::I8, {2, 1}), {127, -128}), DType::I32),
             {16129 + 16384});
  expectInts(matmul(ints(ty(DType::I32, {1, 2}), {65536, 65536}),
                    ints(ty(DType::I32, {2, 1}), {65536, 1}), DType::I32),
             {65536});
  expectInts(matmul(ints(ty(DType::I32, {1, 2}), {INT32_MAX, 1}),
                    ints(ty(DType::I32, {2, 1}), {1, 1}), DType::I32),
             {INT32_MIN});
}

TEST(Matmul, BatchedAndDefinedness) {
  const RefTensor a = floats(ty(DType::F32, {2, 1, 2}), {1, 2, 3, 4});
  const RefTensor b = floats(ty(DType::F32, {2, 2, 1}), {5, 6, 7, 8});
  expectFloats(matmul(a, b, DType::F32), {17, 53});
  // a[0][1] undefined: row 0 undefined. b[1][0] undefined: column 0.
  const RefTensor a2 = floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4}, {1, 0, 1, 1});
  const RefTensor b2 = floats(ty(DType::F32, {2, 2}), {1, 0, 0, 1}, {1, 1, 0, 1});
  const RefTensor r = matmul(a2, b2, DType::F32);
  expectFloats(r, {0, 0, 0, 4});
  expectDefined(r, {0, 0, 0, 1});
}

TEST(Gather, AlongEachAxis) {
  InputFill range;
  range.kind = FillKind::Range;
  range.lo = 0;
  range.hi = 3;
  OpAttrs a1 = axisAttr(1);
  {
    CaseBuilder b;
    const ValueId src = b.input(
        floats(ty(DType::F32, {2, 4}), {10, 11, 12, 13, 20, 21, 22, 23}, {1, 1, 0, 1, 1, 1, 1, 1}));
    const ValueId idx =
        b.input(ints(ty(DType::I64, {2, 3}), {3, 0, 3, 1, 1, 2}, {1, 1, 1, 1, 0, 1}), range);
    const ValueId out = b.op(OpKind::Gather, {src, idx}, a1, ty(DType::F32, {2, 3}));
    const std::vector<RefTensor> v = b.run();
    expectFloats(v[out], {13, 10, 13, 21, 0, 22});
    expectDefined(v[out], {1, 1, 1, 1, 0, 1});
  }
  {
    // Axis 0 with an index tensor of a different length along the axis;
    // element (1, 0) picks the undefined src[2][0].
    range.hi = 2;
    CaseBuilder b;
    const ValueId src =
        b.input(ints(ty(DType::I32, {3, 2}), {1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 0, 1}));
    const ValueId idx = b.input(ints(ty(DType::Index, {2, 2}), {2, 0, 2, 2}), range);
    const ValueId out = b.op(OpKind::Gather, {src, idx}, axisAttr(0), ty(DType::I32, {2, 2}));
    const std::vector<RefTensor> v = b.run();
    expectInts(v[out], {0, 2, 0, 6});
    expectDefined(v[out], {0, 1, 0, 1});
  }
}

} // namespace
