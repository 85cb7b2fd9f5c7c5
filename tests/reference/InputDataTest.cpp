//===- tests/reference/InputDataTest.cpp - Deterministic input data -------===//

#include "reference/InputData.h"
#include "RefTestUtil.h"
#include "ir/Prng.h"

#include <climits>
#include <set>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

/// A case whose ops are inputs of `types` with `fills`, returning the last.
Case inputCase(const std::vector<TensorType> &types, const std::vector<InputFill> &fills,
               uint64_t seed, double edgeRate) {
  Case c;
  c.dataSeed = seed;
  c.edgeRate = edgeRate;
  for (size_t k = 0; k < types.size(); ++k) {
    OpAttrs a;
    a.fill = fills[k];
    c.addOp(OpKind::Input, {}, a, {types[k]});
  }
  c.outputs = {ValueId(types.size() - 1)};
  return c;
}

InputFill fill(FillKind k, int64_t lo = 0, int64_t hi = 0) {
  InputFill f;
  f.kind = k;
  f.lo = lo;
  f.hi = hi;
  return f;
}

RefTensor one(const TensorType &t, InputFill f, uint64_t seed = 1, double edge = 0.0) {
  std::vector<RefTensor> in = makeInputs(inputCase({t}, {f}, seed, edge));
  EXPECT_EQ(in.size(), 1u);
  return in.empty() ? RefTensor() : in[0];
}

TEST(InputData, DeterministicPerSeedAndOrdinal) {
  const TensorType t = ty(DType::F32, {8, 8});
  const Case c = inputCase({t, t}, {fill(FillKind::Random), fill(FillKind::Random)}, 42, 0.1);
  const std::vector<RefTensor> a = makeInputs(c), b = makeInputs(c);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].f, b[0].f);
  EXPECT_EQ(a[1].f, b[1].f);
  EXPECT_NE(a[0].f, a[1].f); // ordinals draw from different streams
  Case other = c;
  other.dataSeed = 43;
  EXPECT_NE(makeInputs(other)[0].f, a[0].f);
  // Input 1's data do not depend on input 0's shape.
  const Case resized = inputCase({ty(DType::F32, {3}), t},
                                 {fill(FillKind::Random), fill(FillKind::Random)}, 42, 0.1);
  EXPECT_EQ(makeInputs(resized)[1].f, a[1].f);
}

TEST(InputData, RangeUsesTheOrdinalStream) {
  const Case c = inputCase({ty(DType::I32, {2}), ty(DType::I64, {1, 4})},
                           {fill(FillKind::Zeros), fill(FillKind::Range, 0, 7)}, 7, 0.0);
  const std::vector<RefTensor> in = makeInputs(c);
  ASSERT_EQ(in.size(), 2u);
  Prng p = Prng::stream(7, 1);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(in[1].i[k], p.range(0, 7));
  expectInts(in[0], {0, 0});
}

TEST(InputData, FixedFills) {
  expectFloats(one(ty(DType::BF16, {3}), fill(FillKind::Zeros)), {0, 0, 0});
  expectFloats(one(ty(DType::F16, {2}), fill(FillKind::Ones)), {1, 1});
  expectInts(one(ty(DType::I1, {2}), fill(FillKind::Ones)), {1, 1});
  expectInts(one(ty(DType::Index, {2, 2}), fill(FillKind::Iota)), {0, 1, 2, 3});
  expectInts(one(ty(DType::I1, {3}), fill(FillKind::Iota)), {0, 1, 0});
  // i8 iota wraps: position 200 is -56.
  EXPECT_EQ(one(ty(DType::I8, {256}), fill(FillKind::Iota)).i[200], -56);
  // bf16 iota rounds: position 257 is 256.
  EXPECT_EQ(one(ty(DType::BF16, {300}), fill(FillKind::Iota)).f[257], 256.0f);
  const RefTensor r = one(ty(DType::F32, {1000}), fill(FillKind::Range, 2, 5));
  std::set<float> seen(r.f.begin(), r.f.end());
  EXPECT_EQ(seen, (std::set<float>{2, 3, 4, 5}));
  const RefTensor neg = one(ty(DType::I8, {100}), fill(FillKind::Range, -3, -3));
  for (int64_t v : neg.i)
    EXPECT_EQ(v, -3);
}

TEST(InputData, RandomFloatsAreModerateAndRepresentable) {
  for (DType d : {DType::F32, DType::F16, DType::BF16}) {
    const RefTensor r = one(ty(d, {64, 64}), fill(FillKind::Random), 3, 0.0);
    for (float v : r.f) {
      ASSERT_GE(v, -4.0f);
      ASSERT_LE(v, 4.0f);
      ASSERT_EQ(bitsOf(roundFloatTo(v, d, RoundingMode::NearestEven)), bitsOf(v));
    }
    std::set<float> distinct(r.f.begin(), r.f.end());
    EXPECT_GT(distinct.size(), 100u);
  }
}

TEST(InputData, RandomFloatEdges) {
  // Edge rate 1: only edge values, never inf or NaN.
  const RefTensor r = one(ty(DType::F16, {4096}), fill(FillKind::Random), 5, 1.0);
  std::set<uint32_t> seen;
  for (float v : r.f)
    seen.insert(bitsOf(v));
  const std::set<uint32_t> want = {
      bitsOf(0.0f),      bitsOf(-0.0f),    bitsOf(0x1p-24f),  bitsOf(1023 * 0x1p-24f),
      bitsOf(0x1p-14f),  bitsOf(0x1p-10f), bitsOf(-0x1p-10f), bitsOf(65504.0f),
      bitsOf(-65504.0f), bitsOf(32752.0f), bitsOf(-32752.0f)};
  EXPECT_EQ(seen, want);
  const RefTensor b = one(ty(DType::BF16, {4096}), fill(FillKind::Random), 5, 1.0);
  for (float v : b.f)
    ASSERT_TRUE(std::isfinite(v));
}

TEST(InputData, RandomInts) {
  for (DType d : {DType::I8, DType::I32, DType::I64}) {
    const RefTensor r = one(ty(d, {2000}), fill(FillKind::Random), 9, 0.0);
    std::set<int64_t> seen(r.i.begin(), r.i.end());
    EXPECT_EQ(*seen.begin(), -8);
    EXPECT_EQ(*seen.rbegin(), 8);
    EXPECT_EQ(seen.size(), 17u);
    const RefTensor e = one(ty(d, {300}), fill(FillKind::Random), 9, 1.0);
    std::set<int64_t> edges(e.i.begin(), e.i.end());
    EXPECT_EQ(edges, (std::set<int64_t>{minIntValue(d), -1, maxIntValue(d)}));
  }
  const RefTensor idx = one(ty(DType::Index, {500}), fill(FillKind::Random), 9, 0.0);
  std::set<int64_t> seen(idx.i.begin(), idx.i.end());
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 8);
  const RefTensor b = one(ty(DType::I1, {500}), fill(FillKind::Random), 9, 1.0);
  std::set<int64_t> bools(b.i.begin(), b.i.end());
  EXPECT_EQ(bools, (std::set<int64_t>{0, 1}));
}

TEST(InputData, ValidShapeOnlyAffectsDefinedness) {
  const RefTensor full = one(ty(DType::F32, {4, 4}), fill(FillKind::Random), 11, 0.2);
  const RefTensor part = one(ty(DType::F32, {4, 4}, vs(2, 3)), fill(FillKind::Random), 11, 0.2);
  EXPECT_EQ(full.f, part.f);
  expectDefined(full, std::vector<uint8_t>(16, 1));
  expectDefined(part, {1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
}

} // namespace
