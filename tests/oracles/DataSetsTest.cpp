//===- tests/oracles/DataSetsTest.cpp - Input data for any MLIR -----------===//
#include "oracles/DataSets.h"

#include "ir/Storage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace npufuzz;

namespace {
TensorType typeOf(DType d, std::vector<int64_t> shape) {
  TensorType t;
  t.dtype = d;
  t.shape = std::move(shape);
  return t;
}
} // namespace

TEST(DataSets, AScalarTakesEveryEdgeValueOverTheSweeps) {
  const auto sets = verificationDataSets({typeOf(DType::F32, {1}), typeOf(DType::F16, {1})}, 7);
  bool nan = false, posInf = false, negInf = false, negZero = false;
  std::set<double> halves;
  for (const auto &set : sets) {
    ASSERT_EQ(set.size(), 2u);
    const float v = fromTensorData(set[0]).f[0];
    nan |= std::isnan(v);
    posInf |= v == INFINITY;
    negInf |= v == -INFINITY;
    negZero |= v == 0 && std::signbit(v);
    halves.insert(fromTensorData(set[1]).f[0]);
  }
  EXPECT_TRUE(nan && posInf && negInf && negZero);
  EXPECT_TRUE(halves.count(65504.0)) << "f16's largest finite";
}

TEST(DataSets, IntegersReachTheirExtremesAndIndicesStaySmall) {
  const auto sets = verificationDataSets({typeOf(DType::I8, {4}), typeOf(DType::Index, {4})}, 0);
  bool min = false, max = false;
  for (const auto &set : sets) {
    const RefTensor i8 = fromTensorData(set[0]);
    const RefTensor index = fromTensorData(set[1]);
    for (int64_t k = 0; k < 4; ++k) {
      min |= i8.i[k] == -128;
      max |= i8.i[k] == 127;
      EXPECT_GE(index.i[k], 0);
      EXPECT_LE(index.i[k], 8);
    }
  }
  EXPECT_TRUE(min && max);
}

TEST(DataSets, TheSameSeedGivesTheSameBytes) {
  const std::vector<TensorType> types = {typeOf(DType::BF16, {3, 5}), typeOf(DType::I64, {2})};
  const auto a = verificationDataSets(types, 3), b = verificationDataSets(types, 3);
  ASSERT_EQ(a.size(), b.size());
  for (size_t s = 0; s < a.size(); ++s)
    for (size_t i = 0; i < a[s].size(); ++i)
      EXPECT_EQ(a[s][i].bytes, b[s][i].bytes);
  EXPECT_NE(verificationDataSets(types, 4)[0][0].bytes, a[0][0].bytes);
}
