//===- tests/reference/ElementwiseTest.cpp - Elementwise op goldens -------===//

#include "RefTestUtil.h"

#include <climits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

RefTensor unary(OpKind k, const RefTensor &x) { return evalOp(k, {x}, {}, x.type); }

RefTensor binary(OpKind k, const RefTensor &a, const RefTensor &b) {
  TensorType t = a.type;
  if (opCategory(k) == OpCategory::Compare)
    t.dtype = DType::I1;
  return evalOp(k, {a, b}, {}, t);
}

RefTensor f32v(std::vector<float> v) {
  const int64_t n = int64_t(v.size());
  return floats(ty(DType::F32, {n}), std::move(v));
}

RefTensor typed(DType d, std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return ints(ty(d, {n}), std::move(v));
}

TEST(Elementwise, FloatArithmetic) {
  const RefTensor a = f32v({1.0f, INFINITY, 1.0f, -1.0f, 0.0f, 6.0f});
  const RefTensor b = f32v({2.0f, INFINITY, 0.0f, 0.0f, 0.0f, -4.0f});
  expectFloats(binary(OpKind::Add, a, b), {3.0f, INFINITY, 1.0f, -1.0f, 0.0f, 2.0f});
  expectFloats(binary(OpKind::Sub, a, b), {-1.0f, NAN, 1.0f, -1.0f, 0.0f, 10.0f});
  expectFloats(binary(OpKind::Mul, a, b), {2.0f, INFINITY, 0.0f, -0.0f, 0.0f, -24.0f});
  expectFloats(binary(OpKind::Div, a, b), {0.5f, NAN, INFINITY, -INFINITY, NAN, -1.5f});
}

TEST(Elementwise, BF16RoundsOnceToNearestEven) {
  const TensorType t = ty(DType::BF16, {2});
  // 1 + 2^-8 is a tie between 1 (even) and 1 + 2^-7; 1 + 3*2^-8 is a tie
  // between 1 + 2^-7 (odd) and 1 + 2^-6.
  const RefTensor a = floats(t, {1.0f, 1.0f});
  const RefTensor b = floats(t, {0x1p-8f, 3 * 0x1p-8f});
  expectFloats(binary(OpKind::Add, a, b), {1.0f, 1.015625f});
}

TEST(Elementwise, F16OverflowsToInf) {
  const TensorType t = ty(DType::F16, {2});
  expectFloats(binary(OpKind::Mul, floats(t, {256.0f, -256.0f}), floats(t, {256.0f, 255.0f})),
               {INFINITY, -65280.0f});
  expectFloats(unary(OpKind::Exp, floats(t, {12.0f, 0.0f})), {INFINITY, 1.0f});
}

TEST(Elementwise, IntegerWrap) {
  const RefTensor a = typed(DType::I8, {127, -128, -128, 100});
  const RefTensor b = typed(DType::I8, {1, -1, 1, 100});
  expectInts(binary(OpKind::Add, a, b), {-128, 127, -127, -56});
  expectInts(binary(OpKind::Mul, a, b), {127, -128, -128, 16});
  expectInts(binary(OpKind::Sub, a, b), {126, -127, 127, 0});
  expectInts(unary(OpKind::Neg, a), {-127, -128, -128, -100});
  expectInts(unary(OpKind::Abs, a), {127, -128, -128, 100});
  const RefTensor c = typed(DType::I32, {INT32_MAX, 65536, INT32_MIN});
  const RefTensor d = typed(DType::I32, {1, 65536, 1});
  expectInts(binary(OpKind::Add, c, d), {INT32_MIN, 131072, INT32_MIN + 1});
  expectInts(binary(OpKind::Mul, c, d), {INT32_MAX, 0, INT32_MIN});
  const RefTensor e = typed(DType::I64, {INT64_MAX, INT64_MIN});
  expectInts(binary(OpKind::Add, e, typed(DType::I64, {1, -1})), {INT64_MIN, INT64_MAX});
}

TEST(Elementwise, IntegerFloorDivision) {
  const RefTensor a = typed(DType::I32, {7, -7, 7, -7, 5, -8, 0, -1});
  const RefTensor b = typed(DType::I32, {2, 2, -2, -2, 0, 2, 3, 3});
  expectInts(binary(OpKind::Div, a, b), {3, -4, -4, 3, 0, -4, 0, -1});
  expectInts(binary(OpKind::Div, typed(DType::I8, {-128, 100}), typed(DType::I8, {-1, -1})),
             {-128, -100});
  expectInts(binary(OpKind::Div, typed(DType::I64, {INT64_MIN}), typed(DType::I64, {-1})),
             {INT64_MIN});
  expectInts(binary(OpKind::Div, typed(DType::Index, {9}), typed(DType::Index, {4})), {2});
}

TEST(Elementwise, MaxMinNaNAndSignedZero) {
  const RefTensor a = f32v({NAN, 1.0f, -0.0f, 0.0f, 1.0f, -3.0f});
  const RefTensor b = f32v({1.0f, NAN, 0.0f, -0.0f, 2.0f, -4.0f});
  expectFloats(binary(OpKind::Max, a, b), {NAN, NAN, 0.0f, 0.0f, 2.0f, -3.0f});
  expectFloats(binary(OpKind::Min, a, b), {NAN, NAN, -0.0f, -0.0f, 1.0f, -4.0f});
  expectInts(binary(OpKind::Max, typed(DType::I8, {-5, 3}), typed(DType::I8, {-6, 4})), {-5, 4});
  expectInts(binary(OpKind::Min, typed(DType::I8, {-5, 3}), typed(DType::I8, {-6, 4})), {-6, 3});
}

TEST(Elementwise, CompareOrderedExceptNe) {
  const RefTensor a = f32v({NAN, NAN, -0.0f, 1.0f, 2.0f});
  const RefTensor b = f32v({NAN, 1.0f, 0.0f, 1.0f, 1.0f});
  expectInts(binary(OpKind::CmpEq, a, b), {0, 0, 1, 1, 0});
  expectInts(binary(OpKind::CmpNe, a, b), {1, 1, 0, 0, 1});
  expectInts(binary(OpKind::CmpLt, a, b), {0, 0, 0, 0, 0});
  expectInts(binary(OpKind::CmpLe, a, b), {0, 0, 1, 1, 0});
  expectInts(binary(OpKind::CmpGt, a, b), {0, 0, 0, 0, 1});
  expectInts(binary(OpKind::CmpGe, a, b), {0, 0, 1, 1, 1});
  expectInts(binary(OpKind::CmpLt, typed(DType::I64, {-1, 5}), typed(DType::I64, {0, 5})), {1, 0});
  expectInts(binary(OpKind::CmpEq, typed(DType::I1, {0, 1, 1}), typed(DType::I1, {0, 0, 1})),
             {1, 0, 1});
  expectInts(binary(OpKind::CmpNe, typed(DType::I1, {0, 1}), typed(DType::I1, {0, 0})), {0, 1});
}

TEST(Elementwise, Bitwise) {
  const RefTensor a = typed(DType::I32, {12, -1}), b = typed(DType::I32, {10, 5});
  expectInts(binary(OpKind::And, a, b), {8, 5});
  expectInts(binary(OpKind::Or, a, b), {14, -1});
  expectInts(binary(OpKind::Xor, a, b), {6, -6});
  expectInts(binary(OpKind::Xor, typed(DType::I1, {1, 1, 0}), typed(DType::I1, {1, 0, 0})),
             {0, 1, 0});
  expectInts(unary(OpKind::Not, typed(DType::I1, {0, 1})), {1, 0});
  expectInts(unary(OpKind::Not, typed(DType::I8, {0, 127})), {-1, -128});
}

TEST(Elementwise, Transcendentals) {
  // Goldens: the double-precision value rounded to the nearest f32.
  expectFloats(unary(OpKind::Exp, f32v({0.0f, 1.0f, -1.0f})),
               {1.0f, fromBits(0x402DF854), fromBits(0x3EBC5AB2)});
  expectFloats(unary(OpKind::Log, f32v({1.0f, 0.0f, -1.0f, 2.0f})),
               {0.0f, -INFINITY, NAN, fromBits(0x3F317218)});
  expectFloats(unary(OpKind::Sqrt, f32v({4.0f, 2.0f, -1.0f, -0.0f})),
               {2.0f, fromBits(0x3FB504F3), NAN, -0.0f});
  expectFloats(unary(OpKind::Rsqrt, f32v({4.0f, 2.0f, 0.0f, -0.0f})),
               {0.5f, fromBits(0x3F3504F3), INFINITY, -INFINITY});
  expectFloats(unary(OpKind::Tanh, f32v({0.0f, 1.0f, -0.5f})),
               {0.0f, fromBits(0x3F42F7D6), fromBits(0xBEEC9A9F)});
  expectFloats(unary(OpKind::Erf, f32v({0.0f, 0.5f, -1.0f})),
               {0.0f, fromBits(0x3F053F7B), fromBits(0xBF57BB3D)});
  expectFloats(unary(OpKind::Sigmoid, f32v({0.0f, 1.0f, -1.0f})),
               {0.5f, fromBits(0x3F3B26A8), fromBits(0x3E89B2B1)});
  expectFloats(unary(OpKind::Silu, f32v({0.0f, 1.0f, -1.0f, 2.0f})),
               {0.0f, fromBits(0x3F3B26A8), fromBits(0xBE89B2B1), fromBits(0x3FE17BEB)});
  // bf16: tanh(1) = 0x3F42F7D6 in f32 rounds (rne) to bf16 0x3F43.
  expectFloats(unary(OpKind::Tanh, floats(ty(DType::BF16, {1}), {1.0f})), {fromBits(0x3F430000)});
}

TEST(Elementwise, NegAbsRelu) {
  expectFloats(unary(OpKind::Neg, f32v({0.0f, -2.0f})), {-0.0f, 2.0f});
  expectFloats(unary(OpKind::Abs, f32v({-0.0f, -2.0f})), {0.0f, 2.0f});
  // relu(x) = x > 0 ? x : +0, NaN stays NaN.
  expectFloats(unary(OpKind::Relu, f32v({-0.0f, -1.0f, NAN, 2.0f})), {0.0f, 0.0f, NAN, 2.0f});
  expectInts(unary(OpKind::Relu, typed(DType::I32, {-5, 3, 0})), {0, 3, 0});
}

TEST(Elementwise, RowAndColExpand) {
  const TensorType x23 = ty(DType::F32, {2, 3});
  const RefTensor x = floats(x23, {1, 2, 3, 4, 5, 6});
  const RefTensor r = floats(ty(DType::F32, {2, 1}), {10, -1});
  const RefTensor c = floats(ty(DType::F32, {1, 3}), {100, 200, 300});
  expectFloats(evalOp(OpKind::RowExpandMul, {x, r}, {}, x23), {10, 20, 30, -4, -5, -6});
  expectFloats(evalOp(OpKind::RowExpandSub, {x, r}, {}, x23), {-9, -8, -7, 5, 6, 7});
  expectFloats(evalOp(OpKind::RowExpandMax, {x, r}, {}, x23), {10, 10, 10, 4, 5, 6});
  expectFloats(evalOp(OpKind::ColExpandAdd, {x, c}, {}, x23), {101, 202, 303, 104, 205, 306});
  expectFloats(evalOp(OpKind::ColExpandDiv, {x, c}, {}, x23),
               {0.01f, 0.01f, 0.01f, 0.04f, 0.025f, 0.02f});
  expectFloats(evalOp(OpKind::ColExpandMin, {x, c}, {}, x23), {1, 2, 3, 4, 5, 6});
  // An undefined scale element makes its whole row (or column) undefined.
  const RefTensor rU = floats(ty(DType::F32, {2, 1}), {10, -1}, {1, 0});
  const RefTensor out = evalOp(OpKind::RowExpandAdd, {x, rU}, {}, x23);
  expectFloats(out, {11, 12, 13, 0, 0, 0});
  expectDefined(out, {1, 1, 1, 0, 0, 0});
  const RefTensor cU = floats(ty(DType::F32, {1, 3}), {1, 1, 1}, {1, 0, 1});
  expectDefined(evalOp(OpKind::ColExpandMul, {x, cU}, {}, x23), {1, 0, 1, 1, 0, 1});
  const TensorType i23 = ty(DType::I8, {2, 3});
  expectInts(evalOp(OpKind::RowExpandDiv,
                    {ints(i23, {7, -7, 0, 100, 1, 2}), ints(ty(DType::I8, {2, 1}), {2, 0})}, {},
                    i23),
             {3, -4, 0, 0, 0, 0});
}

TEST(Elementwise, DefinednessAndValidShape) {
  // Definedness is the AND of the operands'; the result's valid shape (the
  // intersection of the operands') undefines the rest. Undefined elements
  // hold 0.
  const TensorType t = ty(DType::F32, {2, 2}, vs(1, 2));
  const RefTensor a = floats(t, {1, 2, 3, 4}, {1, 0, 0, 0});
  const RefTensor b = floats(ty(DType::F32, {2, 2}), {1, 1, 1, 1}, {1, 1, 1, 0});
  const RefTensor out = evalOp(OpKind::Add, {a, b}, {}, t);
  expectFloats(out, {2, 0, 0, 0});
  expectDefined(out, {1, 0, 0, 0});
}

TEST(Elementwise, Select) {
  const TensorType t = ty(DType::F32, {4});
  const RefTensor cond = ints(ty(DType::I1, {4}), {1, 0, 1, 0});
  const RefTensor a = floats(t, {1, 2, 3, 4});
  // b[0] is undefined and not chosen: the result is still undefined there
  // (every operand element counts).
  const RefTensor b = floats(t, {-1, -2, -3, -4}, {0, 1, 1, 1});
  const RefTensor out = evalOp(OpKind::Select, {cond, a, b}, {}, t);
  expectFloats(out, {0, -2, 3, -4});
  expectDefined(out, {0, 1, 1, 1});
  const TensorType ti = ty(DType::I32, {2});
  expectInts(evalOp(OpKind::Select,
                    {ints(ty(DType::I1, {2}), {0, 1}), ints(ti, {5, 6}), ints(ti, {7, 8})}, {}, ti),
             {7, 6});
}

TEST(Elementwise, MaskedFill) {
  const TensorType t = ty(DType::F32, {4});
  const RefTensor mask = ints(ty(DType::I1, {4}), {0, 1, 0, 1}, {1, 1, 0, 1});
  OpAttrs a;
  a.value.f = -INFINITY;
  const RefTensor out = evalOp(OpKind::MaskedFill, {floats(t, {1, 2, 3, 4}), mask}, a, t);
  expectFloats(out, {1, -INFINITY, 0, -INFINITY});
  expectDefined(out, {1, 1, 0, 1});
  OpAttrs ai;
  ai.value.i = -7;
  const TensorType ti = ty(DType::I64, {2});
  expectInts(
      evalOp(OpKind::MaskedFill, {ints(ti, {1, 2}), ints(ty(DType::I1, {2}), {1, 0})}, ai, ti),
      {-7, 2});
}

RefTensor castTo(const RefTensor &x, DType to, RoundingMode m) {
  OpAttrs a;
  a.dtype = to;
  a.rounding = m;
  TensorType t = x.type;
  t.dtype = to;
  return evalOp(OpKind::Cast, {x}, a, t);
}

TEST(Elementwise, Cast) {
  const RoundingMode rne = RoundingMode::NearestEven, rtz = RoundingMode::TowardZero;
  const RefTensor x = f32v({fromBits(0x3F808000), fromBits(0x3F818000), -0.0f, NAN});
  expectFloats(castTo(x, DType::BF16, rne), {1.0f, fromBits(0x3F820000), -0.0f, NAN});
  expectFloats(castTo(x, DType::BF16, rtz), {1.0f, fromBits(0x3F810000), -0.0f, NAN});
  expectFloats(castTo(x, DType::BF16, RoundingMode::NearestAway),
               {fromBits(0x3F810000), fromBits(0x3F820000), -0.0f, NAN});
  const RefTensor y = f32v({300.0f, -300.0f, NAN, -2.5f, 2.5f});
  expectInts(castTo(y, DType::I8, rne), {127, -128, 0, -2, 2});
  expectInts(castTo(y, DType::I8, RoundingMode::Up), {127, -128, 0, -2, 3});
  expectInts(castTo(y, DType::I32, RoundingMode::Down), {300, -300, 0, -3, 2});
  expectInts(castTo(typed(DType::I32, {200, -1, 128}), DType::I8, rne), {-56, -1, -128});
  expectInts(castTo(typed(DType::I8, {-1, -128}), DType::I32, rne), {-1, -128});
  expectInts(castTo(typed(DType::I64, {-3}), DType::Index, rne), {-3});
  expectFloats(castTo(typed(DType::I1, {1, 0}), DType::F32, rne), {1.0f, 0.0f});
  expectInts(castTo(typed(DType::I1, {1, 0}), DType::I32, rne), {1, 0});
  expectInts(castTo(f32v({0.0f, -0.0f, NAN, 0.5f}), DType::I1, rne), {0, 0, 1, 1});
  expectInts(castTo(typed(DType::I32, {0, 2, -1}), DType::I1, rne), {0, 1, 1});
  const int64_t v = (int64_t(1) << 24) + (1 << 16) + 1;
  expectFloats(castTo(typed(DType::I64, {v}), DType::BF16, rne), {16908288.0f});
  expectFloats(castTo(floats(ty(DType::F16, {2}), {65504.0f, 0x1p-24f}), DType::F32, rtz),
               {65504.0f, 0x1p-24f});
  expectFloats(castTo(f32v({1e5f, 1e5f}), DType::F16, rtz), {65504.0f, 65504.0f});
}

} // namespace

TEST(Elementwise, RoundByMode) {
  // Ties, the sign of zero, infinities, NaN and an odd integer above 2^23.
  const RefTensor x = f32v({2.5f, -2.5f, 0.5f, -0.3f, 1.7f, -1.7f, INFINITY, NAN, 8388609.0f});
  auto round = [&](RoundingMode m) {
    OpAttrs a;
    a.rounding = m;
    return evalOp(OpKind::Round, {x}, a, x.type);
  };
  expectFloats(round(RoundingMode::NearestEven),
               {2.0f, -2.0f, 0.0f, -0.0f, 2.0f, -2.0f, INFINITY, NAN, 8388609.0f});
  expectFloats(round(RoundingMode::NearestAway),
               {3.0f, -3.0f, 1.0f, -0.0f, 2.0f, -2.0f, INFINITY, NAN, 8388609.0f});
  expectFloats(round(RoundingMode::TowardZero),
               {2.0f, -2.0f, 0.0f, -0.0f, 1.0f, -1.0f, INFINITY, NAN, 8388609.0f});
  expectFloats(round(RoundingMode::Down),
               {2.0f, -3.0f, 0.0f, -1.0f, 1.0f, -2.0f, INFINITY, NAN, 8388609.0f});
  expectFloats(round(RoundingMode::Up),
               {3.0f, -2.0f, 1.0f, -0.0f, 2.0f, -1.0f, INFINITY, NAN, 8388609.0f});
}

TEST(Elementwise, ClampByBoundsOfTheOpsType) {
  OpAttrs a;
  a.lo.f = 0.0f;
  a.hi.f = 1.5f;
  // NaN propagates, -0 < +0 (so -0 clamps to +0), infinities clamp.
  const RefTensor x = f32v({-0.0f, NAN, -INFINITY, INFINITY, 0.75f, 2.0f});
  expectFloats(evalOp(OpKind::Clamp, {x}, a, x.type), {0.0f, NAN, 0.0f, 1.5f, 0.75f, 1.5f});
  // A bound is rounded to the type first: 1.003 is 1.0 in bf16.
  const TensorType bf = ty(DType::BF16, {2});
  a.lo.f = -1.0f;
  a.hi.f = 1.003f;
  expectFloats(evalOp(OpKind::Clamp, {floats(bf, {1.5f, -2.0f})}, a, bf), {1.0f, -1.0f});
  // min > max gives max; integers.
  a.lo.i = 10;
  a.hi.i = -3;
  const RefTensor i = typed(DType::I8, {-128, 0, 127});
  expectInts(evalOp(OpKind::Clamp, {i}, a, i.type), {-3, -3, -3});
  a.lo.i = -5;
  a.hi.i = 100;
  expectInts(evalOp(OpKind::Clamp, {i}, a, i.type), {-5, 0, 100});
}
