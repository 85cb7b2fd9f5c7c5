//===- tests/reference/ExecutorTest.cpp - Whole-case evaluation -----------===//

#include "RefTestUtil.h"
#include "ir/Text.h"
#include "reference/InputData.h"

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

/// %0 = input f32[2,2] (random), %1 = input f32[2,2] (ones), %2 = add,
/// %3 = neg %2; returns %3, %0.
Case smallCase() {
  Case c;
  c.dataSeed = 5;
  const TensorType t = ty(DType::F32, {2, 2});
  OpAttrs rnd, ones;
  ones.fill.kind = FillKind::Ones;
  c.addOp(OpKind::Input, {}, rnd, {t});
  c.addOp(OpKind::Input, {}, ones, {t});
  c.addOp(OpKind::Add, {0, 1}, {}, {t});
  c.addOp(OpKind::Neg, {2}, {}, {t});
  c.outputs = {3, 0};
  return c;
}

TEST(Executor, RunReferenceReturnsOutputsInOrder) {
  const Case c = smallCase();
  ASSERT_EQ(verifyCase(c), "");
  const RefRun run = runReference(c);
  ASSERT_TRUE(run.ok()) << run.error;
  ASSERT_EQ(run.inputs.size(), 2u);
  ASSERT_EQ(run.outputs.size(), 2u);
  const std::vector<float> &x = run.inputs[0].f;
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(run.outputs[0].f[k], -(x[k] + 1.0f));
    EXPECT_EQ(run.outputs[1].f[k], x[k]);
  }
  // Same inputs given explicitly: same outputs.
  const RefRun again = runReference(c, makeInputs(c));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.outputs[0].f, run.outputs[0].f);
}

TEST(Executor, InputsOutsideTheValidShapeAreUndefined) {
  Case c;
  OpAttrs a;
  const TensorType t = ty(DType::I32, {2, 2}, vs(1, 1));
  c.addOp(OpKind::Input, {}, a, {t});
  c.outputs = {0};
  // The given input claims every element defined; the value is normalized.
  const RefRun run = runReference(c, {ints(t, {1, 2, 3, 4})});
  ASSERT_TRUE(run.ok()) << run.error;
  expectInts(run.outputs[0], {1, 0, 0, 0});
  expectDefined(run.outputs[0], {1, 0, 0, 0});
  expectInts(run.inputs[0], {1, 2, 3, 4}); // the inputs themselves are kept
}

TEST(Executor, Errors) {
  const Case c = smallCase();
  std::vector<RefTensor> values;
  std::string error;
  std::vector<RefTensor> in = makeInputs(c);
  in.pop_back();
  EXPECT_FALSE(evaluateCase(c, in, values, error));
  EXPECT_NE(error.find("more input ops than inputs"), std::string::npos) << error;
  in = makeInputs(c);
  in.push_back(in[0]);
  EXPECT_FALSE(evaluateCase(c, in, values, error));
  EXPECT_NE(error.find("3 inputs"), std::string::npos) << error;
  in = makeInputs(c);
  in[1] = floats(ty(DType::F32, {4}), {1, 1, 1, 1});
  EXPECT_FALSE(evaluateCase(c, in, values, error));
  EXPECT_NE(error.find("op 1 (input)"), std::string::npos) << error;
  EXPECT_NE(error.find("expected f32[2,2]"), std::string::npos) << error;
  // Unverified cases fail with a message instead of crashing.
  Case bad = smallCase();
  bad.ops[2].operands = {0, 7};
  EXPECT_FALSE(runReference(bad).ok());
  Case badOut = smallCase();
  badOut.outputs = {9};
  const RefRun r = runReference(badOut);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.outputs.empty());
  Case exp = smallCase();
  exp.ops[3].kind = OpKind::Not; // not on f32
  EXPECT_NE(runReference(exp).error.find("not is not defined on f32"), std::string::npos);
}

} // namespace

namespace {

TEST(RefTensor, Accessors) {
  RefTensor f = RefTensor::zeros(ty(DType::BF16, {2, 3}, vs(1, 2)));
  EXPECT_TRUE(f.isFloat());
  EXPECT_EQ(f.numElements(), 6);
  EXPECT_EQ(f.f.size(), 6u);
  EXPECT_TRUE(f.i.empty());
  EXPECT_EQ(f.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_TRUE(f.insideValid(1));
  EXPECT_FALSE(f.insideValid(2));
  EXPECT_FALSE(f.insideValid(3));
  f.f = {1, 2, 3, 4, 5, 6};
  f.defined = {1, 1, 1, 1, 0, 1};
  f.normalize();
  expectFloats(f, {1, 2, 0, 0, 0, 0});
  expectDefined(f, {1, 1, 0, 0, 0, 0});
  EXPECT_TRUE(f.isDefined(1));
  EXPECT_EQ(f.floatAt(1), 2.0f);
  EXPECT_EQ(f.valueAt(0), 1.0);
  RefTensor i = RefTensor::zeros(ty(DType::I64, {2, 1, 2}));
  EXPECT_FALSE(i.isFloat());
  EXPECT_TRUE(i.f.empty());
  EXPECT_EQ(i.strides(), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_TRUE(i.insideValid(3));
  EXPECT_FALSE(i.isDefined(0));
  i.i[3] = -9;
  EXPECT_EQ(i.intAt(3), -9);
  EXPECT_EQ(i.valueAt(3), -9.0);
}

// Under the flush environment (IREE's) an input holds no subnormal of its
// own type: an f16 one is normal in f32, but a software conversion flushes
// it where F16C keeps it (held-out IREE seeds 761179, 761625).
TEST(Reference, FlushModeInputsHoldNoSubnormalOfTheirType) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "data seed=5 edge_rate=1\n"
                        "%0 = input {fill=rand} : f16[4096]\n"
                        "%1 = input {fill=rand} : bf16[4096]\n"
                        "%2 = input {fill=rand} : f32[4096]\n"
                        "return %0, %1, %2\n",
                        c, err))
      << err.format("t");
  auto subnormals = [](const RefTensor &t) {
    int n = 0;
    for (float x : t.f)
      n += x != 0 && std::fabs(x) < smallestNormal(t.type.dtype);
    return n;
  };
  const RefRun plain = runReference(c);
  ASSERT_TRUE(plain.ok()) << plain.error;
  EXPECT_GT(subnormals(plain.inputs[0]), 0); // the edge values include them
  setReferenceFlushesSubnormals(true);
  const RefRun flushed = runReference(c);
  setReferenceFlushesSubnormals(false);
  ASSERT_TRUE(flushed.ok()) << flushed.error;
  for (const RefTensor &t : flushed.inputs)
    EXPECT_EQ(subnormals(t), 0) << t.type.str();
}

} // namespace
