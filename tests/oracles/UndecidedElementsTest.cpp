//===- tests/oracles/UndecidedElementsTest.cpp - Elements a freedom decides ===//
#include "oracles/UndecidedElements.h"
#include "oracles/Differential.h"
#include "tests/generators/RapidCheckGen.h"
#include "tests/reference/RefTestUtil.h"

#include "ir/Storage.h"

#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

OpAttrs toI1() {
  OpAttrs a;
  a.dtype = DType::I1;
  return a;
}

} // namespace

// x - x of an infinite or NaN x is NaN in the case and may be 0 under
// TVM: those elements, and what reads them, are not compared; a finite
// x - x, and a difference of two values, are.
TEST(UndecidedElements, AFoldedSelfSubtractionDecidesOnlyItsNonFiniteElements) {
  CaseBuilder b;
  const TensorType t = ty(DType::F32, {4});
  const ValueId x = b.input(floats(t, {kInf, 2.5f, kNan, -kInf}));
  const ValueId y = b.input(floats(t, {kNan, 1.0f, 3.0f, 1.0f}));
  const ValueId self = b.op(OpKind::Sub, {x, x}, {}, t);
  const ValueId read = b.op(OpKind::Add, {self, y}, {}, t);
  const ValueId other = b.op(OpKind::Sub, {x, y}, {}, t);
  b.c.outputs = {self, read, other};
  b.run();
  RefRun ref = runReference(b.c, b.inputs);
  ASSERT_TRUE(ref.ok()) << ref.error;
  EXPECT_EQ(undefineWhatSelfSubtractionDecides(b.c, ref), 3 + 2);
  expectDefined(ref.outputs[0], {0, 1, 0, 0});
  // (x - x) + NaN is NaN either way: the first element stays compared.
  expectDefined(ref.outputs[1], {1, 1, 0, 0});
  expectDefined(ref.outputs[2], {1, 1, 1, 1});
}

TEST(UndecidedElements, TheJudgeTakesTvmsZeroAndNothingElse) {
  CaseBuilder b;
  const TensorType t = ty(DType::F32, {2});
  const ValueId x = b.input(floats(t, {kInf, 4.0f}));
  b.c.outputs = {b.op(OpKind::Sub, {x, x}, {}, t)};
  b.run();
  const RefRun ref = runReference(b.c, b.inputs);
  BackendRun run;
  run.outputs = {toTensorData(floats(t, {0.0f, 0.0f}))};
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
  run.selfSubtractionFolded = true;
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Ok);
  run.outputs = {toTensorData(floats(t, {0.0f, 1.0f}))};
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
}

// A subnormal constant a select keeps is true to a cast to i1 in IEEE's
// environment and false in the flushing one: those elements are not
// compared. The kept values themselves, and a max that gives -0 where
// either environment gives a positive zero or subnormal, still are (seed
// 3501181's bf16 -> i1 cast of a masked_fill of 9.18e-41).
TEST(UndecidedElements, AKeptSubnormalDecidesOnlyWhatReadsIt) {
  const ReferenceFlushScope flushing(true); // as under IREE
  CaseBuilder b;
  const TensorType t = ty(DType::F32, {3});
  const ValueId x = b.input(floats(t, {1.0f, 2.0f, 3.0f}));
  const ValueId mask = b.input(ints(ty(DType::I1, {3}), {1, 0, 1}));
  const ValueId negZero = b.input(floats(t, {-0.0f, -0.0f, -0.0f}));
  OpAttrs fill;
  fill.value.f = 1e-40f;
  const ValueId kept = b.op(OpKind::MaskedFill, {x, mask}, fill, t);
  const ValueId truth = b.op(OpKind::Cast, {kept}, toI1(), ty(DType::I1, {3}));
  const ValueId larger = b.op(OpKind::Max, {negZero, kept}, {}, t);
  b.c.outputs = {kept, truth, larger};
  b.run();
  RefRun ref = runReference(b.c, b.inputs);
  ASSERT_TRUE(ref.ok()) << ref.error;
  EXPECT_EQ(undefineWhatKeptSubnormalsDecide(b.c, ref), 2);
  expectDefined(ref.outputs[0], {1, 1, 1});
  expectDefined(ref.outputs[1], {0, 1, 0});
  expectDefined(ref.outputs[2], {1, 1, 1});
  EXPECT_TRUE(referenceFlushesSubnormals()) << "the reference's environment was not set back";

  const RefRun judged = runReference(b.c, b.inputs);
  BackendRun run;
  run.outputs = {toTensorData(floats(t, {1e-40f, 2.0f, 0.0f})),
                 toTensorData(ints(ty(DType::I1, {3}), {1, 1, 0})),
                 toTensorData(floats(t, {1e-40f, 2.0f, 0.0f}))};
  EXPECT_EQ(judgeRun(b.c, judged, run).verdict, VerdictKind::Ok);
  run.outputs[1] = toTensorData(ints(ty(DType::I1, {3}), {1, 0, 0}));
  EXPECT_EQ(judgeRun(b.c, judged, run).verdict, VerdictKind::Mismatch);
  run.outputs[1] = toTensorData(ints(ty(DType::I1, {3}), {1, 1, 0}));
  run.outputs[2] = toTensorData(floats(t, {-0.0f, 2.0f, 0.0f}));
  EXPECT_EQ(judgeRun(b.c, judged, run).verdict, VerdictKind::Mismatch);
}

// In IEEE's environment (every backend but IREE) nothing is left out.
TEST(UndecidedElements, WithoutFlushingNoSubnormalIsKept) {
  ASSERT_FALSE(referenceFlushesSubnormals());
  CaseBuilder b;
  const TensorType t = ty(DType::F32, {1});
  const ValueId x = b.input(floats(t, {1.0f}));
  const ValueId mask = b.input(ints(ty(DType::I1, {1}), {1}));
  OpAttrs fill;
  fill.value.f = 1e-40f;
  const ValueId kept = b.op(OpKind::MaskedFill, {x, mask}, fill, t);
  b.c.outputs = {b.op(OpKind::Cast, {kept}, toI1(), ty(DType::I1, {1}))};
  b.run();
  RefRun ref = runReference(b.c, b.inputs);
  ASSERT_TRUE(ref.ok()) << ref.error;
  EXPECT_EQ(undefineWhatKeptSubnormalsDecide(b.c, ref), 0);
  expectDefined(ref.outputs[0], {1});
  EXPECT_FALSE(referenceFlushesSubnormals()) << "the reference's environment was changed";
}

// On any generated case with a float x - x (one made where the generator
// made none), the freedom only takes elements away, and what it leaves
// defined the folded alternate gives bit for bit (any NaN for a NaN).
RC_GTEST_PROP(UndecidedElements, WhatTheFoldLeavesDefinedTheFoldedCaseGivesToo, (const Case &g)) {
  Case c = g;
  // The first float binary elementwise op becomes a sub of its first
  // operand from itself.
  for (Op &op : c.ops)
    if ((op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul) &&
        op.operands.size() == 2 && isFloat(c.typeOf(op.results[0]).dtype) &&
        c.typeOf(op.operands[0]) == c.typeOf(op.results[0])) {
      op.kind = OpKind::Sub;
      op.operands[1] = op.operands[0];
      break;
    }
  const std::optional<Case> folded = withSelfSubtractionsFolded(c);
  RC_PRE(folded.has_value());
  const RefRun ieee = runReference(c);
  RC_PRE(ieee.ok());
  const RefRun alternate = runReference(*folded, ieee.inputs);
  RC_ASSERT(alternate.ok());
  RefRun judged = ieee;
  RC_CLASSIFY(undefineWhatSelfSubtractionDecides(c, judged) > 0, "some elements undecided");
  for (size_t k = 0; k < ieee.outputs.size(); ++k)
    for (int64_t e = 0; e < ieee.outputs[k].numElements(); ++e) {
      const RefTensor &mine = judged.outputs[k];
      RC_ASSERT(!mine.isDefined(e) || ieee.outputs[k].isDefined(e));
      if (!mine.isDefined(e))
        continue;
      const double a = mine.valueAt(e), b = alternate.outputs[k].valueAt(e);
      RC_ASSERT(alternate.outputs[k].isDefined(e));
      RC_ASSERT(a == b || (std::isnan(a) && std::isnan(b)));
    }
}
