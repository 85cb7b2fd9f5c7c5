//===- tests/reference/ViewTest.cpp - Views, sources, valid shapes --------===//

#include "RefTestUtil.h"

#include <climits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

/// 0, 1, 2, ... as i32 of `shape`, every element defined.
RefTensor counting(std::vector<int64_t> shape) {
  const TensorType t = ty(DType::I32, std::move(shape));
  std::vector<int64_t> v(size_t(t.numElements()));
  for (size_t k = 0; k < v.size(); ++k)
    v[k] = int64_t(k);
  return ints(t, v);
}

RefTensor view(OpKind k, const RefTensor &src, OpAttrs a, std::vector<int64_t> shape) {
  TensorType t = src.type;
  t.shape = std::move(shape);
  t.valid.reset();
  return evalOp(k, {src}, std::move(a), t);
}

TEST(Views, Slice) {
  OpAttrs a;
  a.offsets = {1, 0};
  a.sizes = {2, 2};
  a.strides = {2, 3};
  expectInts(view(OpKind::Slice, counting({4, 4}), a, {2, 2}), {4, 7, 12, 15});
}

TEST(Views, Chunk) {
  OpAttrs a;
  a.axis = 1;
  a.count = 3;
  a.index = 1;
  expectInts(view(OpKind::Chunk, counting({2, 6}), a, {2, 2}), {2, 3, 8, 9});
  a.axis = 0;
  a.count = 2;
  a.index = 1;
  expectInts(view(OpKind::Chunk, counting({2, 3}), a, {1, 3}), {3, 4, 5});
}

TEST(Views, Transpose) {
  OpAttrs a;
  a.perm = {1, 0};
  expectInts(view(OpKind::Transpose, counting({2, 3}), a, {3, 2}), {0, 3, 1, 4, 2, 5});
  a.perm = {2, 0, 1};
  // result[i][j][k] = src[j][k][i] over src [2,2,3].
  expectInts(view(OpKind::Transpose, counting({2, 2, 3}), a, {3, 2, 2}),
             {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
}

TEST(Views, ReshapeMovesDefinedness) {
  OpAttrs a;
  a.shape = {3, 2};
  RefTensor src = counting({2, 3});
  src.defined[4] = 0;
  const RefTensor r = view(OpKind::Reshape, src, a, {3, 2});
  expectInts(r, {0, 1, 2, 3, 0, 5});
  expectDefined(r, {1, 1, 1, 1, 0, 1});
}

TEST(Views, Broadcast) {
  OpAttrs a;
  a.shape = {2, 3};
  expectInts(view(OpKind::Broadcast, counting({1, 3}), a, {2, 3}), {0, 1, 2, 0, 1, 2});
  RefTensor col = counting({2, 1});
  col.defined[1] = 0;
  const RefTensor r = view(OpKind::Broadcast, col, a, {2, 3});
  expectInts(r, {0, 0, 0, 0, 0, 0});
  expectDefined(r, {1, 1, 1, 0, 0, 0});
}

TEST(Views, SqueezeUnsqueeze) {
  OpAttrs a;
  a.axis = 1;
  expectInts(view(OpKind::Squeeze, counting({2, 1, 3}), a, {2, 3}), {0, 1, 2, 3, 4, 5});
  a.axis = 0;
  const RefTensor r = view(OpKind::Unsqueeze, counting({2, 3}), a, {1, 2, 3});
  EXPECT_EQ(r.type.shape, (std::vector<int64_t>{1, 2, 3}));
  expectInts(r, {0, 1, 2, 3, 4, 5});
  a.axis = 2;
  expectInts(view(OpKind::Unsqueeze, counting({2, 3}), a, {2, 3, 1}), {0, 1, 2, 3, 4, 5});
}

using E = IndexExpr;

TEST(Views, IndexMapFloorModOfNegatives) {
  // (d0 - 3) mod 16: the intermediate is negative for d0 < 3.
  OpAttrs a;
  a.shape = {16};
  a.map = {E::mod(E::add(E::dim(0), E::constant(-3)), 16)};
  expectInts(view(OpKind::IndexMap, counting({16}), a, {16}),
             {13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // (d0 - 5) floordiv 4 + 2 over d0 in [0, 8): floor(-5/4) = -2.
  a.shape = {8};
  a.map = {E::add(E::floorDiv(E::add(E::dim(0), E::constant(-5)), 4), E::constant(2))};
  expectInts(view(OpKind::IndexMap, counting({4}), a, {8}), {0, 1, 1, 1, 1, 2, 2, 2});
}

TEST(Views, IndexMapMixedRadixAndAffine) {
  // Flatten [4,4] -> [16]: (d0 floordiv 4, d0 mod 4).
  OpAttrs a;
  a.shape = {16};
  a.map = {E::floorDiv(E::dim(0), 4), E::mod(E::dim(0), 4)};
  RefTensor src = counting({4, 4});
  src.defined[6] = 0;
  const RefTensor r = view(OpKind::IndexMap, src, a, {16});
  expectInts(r, {0, 1, 2, 3, 4, 5, 0, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_EQ(r.defined[6], 0);
  EXPECT_EQ(r.defined[7], 1);
  // Affine with a negative coefficient: reverse rows, 2-D result over a
  // 1-D source: src[(3 - d0) * 2 + d1].
  a.shape = {4, 2};
  a.map = {E::add(E::add(E::mul(E::dim(0), -2), E::dim(1)), E::constant(6))};
  expectInts(view(OpKind::IndexMap, counting({8}), a, {4, 2}), {6, 7, 4, 5, 2, 3, 0, 1});
  // A constant floordiv folds: row (7 floordiv 2) = 3 of a [4,3] source.
  a.shape = {3};
  a.map = {E::floorDiv(E::constant(7), 2), E::dim(0)};
  expectInts(view(OpKind::IndexMap, counting({4, 3}), a, {3}), {9, 10, 11});
}

TEST(Sources, Iota) {
  OpAttrs a;
  a.axis = 1;
  CaseBuilder b;
  const ValueId x = b.op(OpKind::Iota, {}, a, ty(DType::Index, {2, 3}));
  a.axis = 0;
  const ValueId y = b.op(OpKind::Iota, {}, a, ty(DType::I64, {2, 3}));
  a.axis = 1;
  const ValueId z = b.op(OpKind::Iota, {}, a, ty(DType::F32, {1, 3}));
  // bf16 holds 256 and 258 but not 257: iota rounds it to nearest even.
  const ValueId w = b.op(OpKind::Iota, {}, a, ty(DType::BF16, {1, 300}));
  b.c.outputs = {x, y, z, w};
  const std::vector<RefTensor> v = b.run();
  expectInts(v[x], {0, 1, 2, 0, 1, 2});
  expectInts(v[y], {0, 0, 0, 1, 1, 1});
  expectFloats(v[z], {0, 1, 2});
  ASSERT_EQ(v[w].f.size(), 300u);
  EXPECT_EQ(v[w].f[255], 255.0f);
  EXPECT_EQ(v[w].f[257], 256.0f);
  EXPECT_EQ(v[w].f[259], 260.0f);
  EXPECT_EQ(v[w].defined[299], 1);
}

TEST(Sources, Const) {
  CaseBuilder b;
  OpAttrs a;
  a.value.f = 1.5f;
  const ValueId f = b.op(OpKind::Const, {}, a, ty(DType::F32, {2}));
  a.value.i = -3;
  const ValueId i = b.op(OpKind::Const, {}, a, ty(DType::I8, {2, 1}));
  a.value.i = 1;
  const ValueId m = b.op(OpKind::Const, {}, a, ty(DType::I1, {3}));
  a.value.f = -0.0f;
  const ValueId z = b.op(OpKind::Const, {}, a, ty(DType::BF16, {1}));
  b.c.outputs = {f, i, m, z};
  const std::vector<RefTensor> v = b.run();
  expectFloats(v[f], {1.5f, 1.5f});
  expectInts(v[i], {-3, -3});
  expectInts(v[m], {1, 1, 1});
  expectFloats(v[z], {-0.0f});
  expectDefined(v[f], {1, 1});
}

OpAttrs validAttr(int64_t rows, int64_t cols) {
  OpAttrs a;
  a.rows = rows;
  a.cols = cols;
  return a;
}

OpAttrs padAttr(PadKind p) {
  OpAttrs a;
  a.pad = p;
  return a;
}

TEST(ValidShape, Seed002RowExpandMulSetValidShapeFillPad) {
  // h = fillpad(set_validshape(row_expand_mul(x[16,256], s[16,1]), 1, 256)):
  // row 0 is x * s[0], rows >= 1 are 0 and defined.
  const TensorType t = ty(DType::F32, {16, 256});
  std::vector<float> xv(16 * 256), sv(16);
  for (int r = 0; r < 16; ++r) {
    sv[r] = float(r + 2);
    for (int c = 0; c < 256; ++c)
      xv[r * 256 + c] = float(c % 7) - 3.0f;
  }
  CaseBuilder b;
  const ValueId x = b.input(floats(t, xv));
  const ValueId s = b.input(floats(ty(DType::F32, {16, 1}), sv));
  const ValueId m = b.op(OpKind::RowExpandMul, {x, s}, {}, t);
  const ValueId v =
      b.op(OpKind::SetValidShape, {m}, validAttr(1, 256), ty(DType::F32, {16, 256}, vs(1, 256)));
  const ValueId h = b.op(OpKind::FillPad, {v}, padAttr(PadKind::Zero), t);
  b.c.outputs = {h};
  const std::vector<RefTensor> vals = b.run();
  ASSERT_EQ(vals.size(), b.c.values.size());
  // The narrowed tile: rows >= 1 undefined.
  EXPECT_EQ(vals[v].defined[0], 1);
  EXPECT_EQ(vals[v].defined[255], 1);
  EXPECT_EQ(vals[v].defined[256], 0);
  const RefTensor &out = vals[h];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 256; ++c) {
      const int k = r * 256 + c;
      ASSERT_EQ(out.defined[k], 1) << r << "," << c;
      const float want = r == 0 ? (float(c % 7) - 3.0f) * 2.0f : 0.0f;
      ASSERT_EQ(bitsOf(out.f[k]), bitsOf(want)) << r << "," << c;
    }
}

TEST(ValidShape, FillPadKinds) {
  const TensorType t = ty(DType::F32, {2, 3}, vs(1, 2));
  const TensorType full = ty(DType::F32, {2, 3});
  const RefTensor x = floats(t, {1, 2, 3, 4, 5, 6});
  expectFloats(evalOp(OpKind::FillPad, {x}, padAttr(PadKind::Min), full),
               {1, 2, -INFINITY, -INFINITY, -INFINITY, -INFINITY});
  expectFloats(evalOp(OpKind::FillPad, {x}, padAttr(PadKind::Max), full),
               {1, 2, INFINITY, INFINITY, INFINITY, INFINITY});
  const TensorType ti = ty(DType::I32, {2, 2}, vs(2, 1));
  const RefTensor xi = ints(ti, {1, 2, 3, 4});
  expectInts(evalOp(OpKind::FillPad, {xi}, padAttr(PadKind::Min), ty(DType::I32, {2, 2})),
             {1, INT32_MIN, 3, INT32_MIN});
  expectInts(evalOp(OpKind::FillPad, {xi}, padAttr(PadKind::Max), ty(DType::I32, {2, 2})),
             {1, INT32_MAX, 3, INT32_MAX});
  const RefTensor x8 = ints(ty(DType::I8, {1, 2}, vs(1, 1)), {5, 6});
  expectInts(evalOp(OpKind::FillPad, {x8}, padAttr(PadKind::Min), ty(DType::I8, {1, 2})),
             {5, -128});
  expectInts(evalOp(OpKind::FillPad, {x8}, padAttr(PadKind::Zero), ty(DType::I8, {1, 2})), {5, 0});
}

TEST(ValidShape, FillPadKeepsInsideDefinedness) {
  // Inside the valid 2x2 region, an undefined element stays undefined; the
  // padding outside is defined.
  const TensorType t = ty(DType::F32, {3, 3}, vs(2, 2));
  const RefTensor x = floats(t, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 0, 1, 1, 1, 1, 1, 1, 1});
  const RefTensor r = evalOp(OpKind::FillPad, {x}, padAttr(PadKind::Zero), ty(DType::F32, {3, 3}));
  expectFloats(r, {1, 0, 0, 4, 5, 0, 0, 0, 0});
  expectDefined(r, {1, 0, 1, 1, 1, 1, 1, 1, 1});
}

OpAttrs offsetsAttr(std::vector<int64_t> offsets) {
  OpAttrs a;
  a.offsets = std::move(offsets);
  return a;
}

TEST(Insert, WritesTheSourcesValidRegionAndKeepsTheRestOfTheDestination) {
  // A KV-cache row update: cache[3,4], a 2x2 tile with one valid row (its
  // second row is undefined), written at (1, 1). Only row 1, cols 1..2
  // change; everything else keeps the cache's values, defined.
  const RefTensor cache = floats(ty(DType::F32, {3, 4}), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const RefTensor tile = floats(ty(DType::F32, {2, 2}, vs(1, 2)), {-1, -2, -3, -4});
  const RefTensor r =
      evalOp(OpKind::Insert, {cache, tile}, offsetsAttr({1, 1}), ty(DType::F32, {3, 4}));
  expectFloats(r, {0, 1, 2, 3, 4, -1, -2, 7, 8, 9, 10, 11});
  expectDefined(r, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
}

TEST(Insert, CarriesDefinednessBothWays) {
  // An undefined source element stays undefined where it lands; an
  // undefined destination element outside the region stays undefined.
  const RefTensor dest = ints(ty(DType::I32, {2, 3}), {1, 2, 3, 4, 5, 6});
  RefTensor src = ints(ty(DType::I32, {1, 2}), {7, 8});
  src.defined = {0, 1};
  RefTensor d = dest;
  d.defined = {1, 1, 1, 1, 1, 0};
  const RefTensor r = evalOp(OpKind::Insert, {d, src}, offsetsAttr({0, 1}), ty(DType::I32, {2, 3}));
  expectInts(r, {1, 0, 8, 4, 5, 0});
  expectDefined(r, {1, 0, 1, 1, 1, 0});
  // Rank 1 and 3 insert the whole source.
  expectInts(evalOp(OpKind::Insert,
                    {ints(ty(DType::I8, {4}), {1, 2, 3, 4}), ints(ty(DType::I8, {2}), {9, 9})},
                    offsetsAttr({2}), ty(DType::I8, {4})),
             {1, 2, 9, 9});
  expectInts(
      evalOp(OpKind::Insert,
             {ints(ty(DType::I32, {2, 1, 2}), {1, 2, 3, 4}), ints(ty(DType::I32, {1, 1, 1}), {0})},
             offsetsAttr({1, 0, 1}), ty(DType::I32, {2, 1, 2})),
      {1, 2, 3, 0});
}

TEST(Insert, ASourceThatDoesNotFitIsRefused) {
  CaseBuilder b;
  const ValueId dest = b.input(floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4}));
  const ValueId src = b.input(floats(ty(DType::F32, {1, 2}), {5, 6}));
  Op op;
  op.kind = OpKind::Insert;
  op.operands = {dest, src};
  op.attrs.offsets = {0, 1};
  std::vector<TensorType> types;
  std::string error;
  EXPECT_FALSE(inferResultTypes(b.c, op, types, error));
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
  op.attrs.offsets = {1, 0};
  EXPECT_TRUE(inferResultTypes(b.c, op, types, error)) << error;
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0], b.c.typeOf(dest));
}

TEST(ValidShape, SetValidShapeCannotDefineUndefinedElements) {
  // Widening the valid shape of a 1x3-valid tile to 2x3 keeps row 1
  // undefined: it was undefined in the source.
  const RefTensor x = floats(ty(DType::F32, {2, 3}, vs(1, 3)), {1, 2, 3, 4, 5, 6});
  const RefTensor r =
      evalOp(OpKind::SetValidShape, {x}, validAttr(2, 3), ty(DType::F32, {2, 3}, vs(2, 3)));
  expectFloats(r, {1, 2, 3, 0, 0, 0});
  expectDefined(r, {1, 1, 1, 0, 0, 0});
  const RefTensor n = evalOp(OpKind::SetValidShape, {floats(ty(DType::F32, {2, 2}), {1, 2, 3, 4})},
                             validAttr(2, 1), ty(DType::F32, {2, 2}, vs(2, 1)));
  expectDefined(n, {1, 0, 1, 0});
}

} // namespace
