//===- tests/reference/RefTestUtil.h - Helpers for reference tests -*- C++ -*-===//
//
// Builds small cases by hand (Case::addOp with hand-written result types),
// feeds hand-written input tensors and compares results bit-exactly.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_REFERENCE_REFTESTUTIL_H
#define NPUFUZZ_TESTS_REFERENCE_REFTESTUTIL_H

#include "ir/Verifier.h"
#include "reference/Executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace npufuzz {
namespace test {

inline uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline float fromBits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

inline TensorType ty(DType d, std::vector<int64_t> shape,
                     std::optional<ValidShape> valid = std::nullopt) {
  TensorType t;
  t.dtype = d;
  t.shape = std::move(shape);
  t.valid = valid;
  return t;
}

inline ValidShape vs(int64_t rows, int64_t cols) { return {rows, cols, false}; }

/// A float tensor; `def` defaults to all defined.
inline RefTensor floats(const TensorType &t, std::vector<float> v, std::vector<uint8_t> def = {}) {
  RefTensor r = RefTensor::zeros(t);
  EXPECT_EQ(int64_t(v.size()), r.numElements());
  r.f = std::move(v);
  r.defined = def.empty() ? std::vector<uint8_t>(r.f.size(), 1) : std::move(def);
  return r;
}

/// An integer-like tensor; `def` defaults to all defined.
inline RefTensor ints(const TensorType &t, std::vector<int64_t> v, std::vector<uint8_t> def = {}) {
  RefTensor r = RefTensor::zeros(t);
  EXPECT_EQ(int64_t(v.size()), r.numElements());
  r.i = std::move(v);
  r.defined = def.empty() ? std::vector<uint8_t>(r.i.size(), 1) : std::move(def);
  return r;
}

/// Float results compared by bit pattern (any NaN matches a NaN).
inline void expectFloats(const RefTensor &r, const std::vector<float> &want) {
  ASSERT_EQ(r.f.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    if (std::isnan(want[k]))
      EXPECT_TRUE(std::isnan(r.f[k])) << "element " << k << " = " << r.f[k];
    else
      EXPECT_EQ(bitsOf(r.f[k]), bitsOf(want[k]))
          << "element " << k << ": got " << r.f[k] << ", want " << want[k];
  }
}

inline void expectInts(const RefTensor &r, const std::vector<int64_t> &want) {
  ASSERT_EQ(r.i.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(r.i[k], want[k]) << "element " << k;
}

inline void expectDefined(const RefTensor &r, const std::vector<uint8_t> &want) {
  ASSERT_EQ(r.defined.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(int(r.defined[k]), int(want[k])) << "element " << k;
}

/// Builds a case op by op and evaluates it on the given input tensors.
class CaseBuilder {
public:
  /// An input op of `t`'s type whose data will be `t`. `fill` only matters to
  /// the verifier (gather indices need a known range).
  ValueId input(const RefTensor &t, InputFill fill = {}) {
    OpAttrs a;
    a.fill = fill;
    inputs.push_back(t);
    return c.result(c.addOp(OpKind::Input, {}, a, {t.type}));
  }
  ValueId op(OpKind k, std::vector<ValueId> operands, OpAttrs a, TensorType result) {
    return c.result(c.addOp(k, std::move(operands), std::move(a), {result}));
  }
  std::vector<ValueId> multi(OpKind k, std::vector<ValueId> operands, OpAttrs a,
                             std::vector<TensorType> results) {
    const int32_t o = c.addOp(k, std::move(operands), std::move(a), results);
    return c.ops[o].results;
  }
  /// Verifies the case (so the hand-written types follow the contract) and
  /// evaluates it; returns every value.
  std::vector<RefTensor> run() {
    if (c.outputs.empty())
      c.outputs = {ValueId(c.values.size() - 1)};
    EXPECT_EQ(verifyCase(c), "");
    std::vector<RefTensor> values;
    std::string error;
    EXPECT_TRUE(evaluateCase(c, inputs, values, error)) << error;
    return values;
  }

  Case c;
  std::vector<RefTensor> inputs;
};

/// Evaluates one op on input tensors and returns its (first) result.
inline RefTensor evalOp(OpKind k, const std::vector<RefTensor> &ins, OpAttrs a,
                        const TensorType &result) {
  CaseBuilder b;
  std::vector<ValueId> operands;
  for (const RefTensor &t : ins)
    operands.push_back(b.input(t));
  const ValueId v = b.op(k, operands, std::move(a), result);
  std::vector<RefTensor> values = b.run();
  return values.size() > size_t(v) ? values[v] : RefTensor();
}

} // namespace test
} // namespace npufuzz

#endif // NPUFUZZ_TESTS_REFERENCE_REFTESTUTIL_H
