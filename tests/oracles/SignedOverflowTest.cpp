//===- tests/oracles/SignedOverflowTest.cpp - Elements a signed overflow decides ===//
#include "oracles/SignedOverflow.h"
#include "oracles/Differential.h"
#include "tests/generators/RapidCheckGen.h"
#include "tests/reference/RefTestUtil.h"

#include "ir/Storage.h"

#include <rapidcheck/gtest.h>

#include <climits>

using namespace npufuzz;
using namespace npufuzz::test;

namespace {

RefTensor vec(DType d, std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return ints(ty(d, {n}), std::move(v));
}

/// The outputs of `b`'s case, every element defined, with what a signed
/// overflow decides undefined; `undefined` gets the count.
std::vector<RefTensor> judged(CaseBuilder &b, int64_t &undefined) {
  b.run(); // verifies the hand-written case
  RefRun ref = runReference(b.c, b.inputs);
  EXPECT_TRUE(ref.ok()) << ref.error;
  undefined = undefineWhatSignedOverflowDecides(b.c, ref);
  return ref.outputs;
}

} // namespace

TEST(SignedOverflow, TheAlternatesSaturateOnlyWhereAnI32OrI64Overflows) {
  CaseBuilder b;
  const RefTensor x = vec(DType::I32, {INT32_MAX, -5, INT32_MIN, 7});
  const RefTensor y = vec(DType::I32, {1, 3, -1, 8});
  const ValueId add = b.op(OpKind::Add, {b.input(x), b.input(y)}, {}, x.type);
  b.c.outputs = {add};
  b.run();
  EXPECT_EQ(runReference(b.c, b.inputs).outputs[0].i,
            (std::vector<int64_t>{INT32_MIN, -2, INT32_MAX, 15}));
  EXPECT_EQ(runReference(b.c, b.inputs, SignedOverflow::GivesMax).outputs[0].i,
            (std::vector<int64_t>{INT32_MAX, -2, INT32_MAX, 15}));
  EXPECT_EQ(runReference(b.c, b.inputs, SignedOverflow::GivesMin).outputs[0].i,
            (std::vector<int64_t>{INT32_MIN, -2, INT32_MIN, 15}));
  int64_t undefined = 0;
  const std::vector<RefTensor> out = judged(b, undefined);
  EXPECT_EQ(undefined, 2);
  expectDefined(out[0], {0, 1, 0, 1});
  expectInts(out[0], {0, -2, 0, 15});
}

TEST(SignedOverflow, AnI8OverflowStillWraps) {
  // Narrow types are no nsw arithmetic where TVM generates code.
  CaseBuilder b;
  const RefTensor x = vec(DType::I8, {127, -128});
  const ValueId add = b.op(OpKind::Add, {b.input(x), b.input(vec(DType::I8, {1, -1}))}, {}, x.type);
  const ValueId neg = b.op(OpKind::Neg, {add}, {}, x.type);
  b.c.outputs = {add, neg};
  int64_t undefined = 0;
  const std::vector<RefTensor> out = judged(b, undefined);
  EXPECT_EQ(undefined, 0);
  expectInts(out[0], {-128, 127});
  expectInts(out[1], {-128, -127});
}

TEST(SignedOverflow, ItReachesWhatReadsTheOverflowButNotTheArmASelectLeaves) {
  CaseBuilder b;
  const RefTensor x = vec(DType::I64, {INT64_MAX, 4, INT64_MAX});
  const RefTensor one = vec(DType::I64, {1, 1, 1});
  const RefTensor pick = ints(ty(DType::I1, {3}), {1, 1, 0});
  const RefTensor other = vec(DType::I64, {10, 20, 30});
  const ValueId sum = b.op(OpKind::Add, {b.input(x), b.input(one)}, {}, x.type);
  const ValueId negative = b.op(OpKind::CmpLt, {sum, b.input(other)}, {}, pick.type);
  const ValueId chosen = b.op(OpKind::Select, {b.input(pick), sum, b.input(other)}, {}, x.type);
  b.c.outputs = {negative, chosen};
  int64_t undefined = 0;
  const std::vector<RefTensor> out = judged(b, undefined);
  // The compare of an overflowed sum flips between the alternates; the
  // select's third element took the other arm.
  expectDefined(out[0], {0, 1, 0});
  expectDefined(out[1], {0, 1, 1});
  expectInts(out[1], {0, 5, 30});
  EXPECT_EQ(undefined, 3);
}

TEST(SignedOverflow, SumsMatmulsAndFloorDivisionOverflowToo) {
  CaseBuilder b;
  const RefTensor rows = ints(ty(DType::I32, {2, 2}), {INT32_MAX, 1, 3, 4});
  OpAttrs axis1;
  axis1.axis = 1;
  const ValueId in = b.input(rows);
  const ValueId sum = b.op(OpKind::ReduceSum, {in}, axis1, ty(DType::I32, {2, 1}));
  OpAttrs accumulateI32;
  accumulateI32.dtype = DType::I32;
  const ValueId product = b.op(OpKind::Matmul, {in, in}, accumulateI32, ty(DType::I32, {2, 2}));
  const RefTensor dividend = vec(DType::I32, {INT32_MIN, 9});
  const ValueId quotient =
      b.op(OpKind::Div, {b.input(dividend), b.input(vec(DType::I32, {-1, -2}))}, {}, dividend.type);
  b.c.outputs = {sum, product, quotient};
  int64_t undefined = 0;
  const std::vector<RefTensor> out = judged(b, undefined);
  expectDefined(out[0], {0, 1});
  expectInts(out[0], {0, 7});
  // Row 0 of the product multiplies INT32_MAX by INT32_MAX or 1 and adds;
  // row 1 is 3 * INT32_MAX + 4 * 3 and 3 * 1 + 4 * 4.
  expectDefined(out[1], {0, 0, 0, 1});
  expectDefined(out[2], {0, 1});
  expectInts(out[2], {0, -5});
}

TEST(SignedOverflow, TheDifferentialJudgeComparesTheRestWhenTheBackendMayOverflow) {
  CaseBuilder b;
  const RefTensor x = vec(DType::I32, {INT32_MAX, 5});
  b.c.outputs = {b.op(OpKind::Add, {b.input(x), b.input(vec(DType::I32, {1, 1}))}, {}, x.type)};
  b.run();
  const RefRun ref = runReference(b.c, b.inputs);
  BackendRun run;
  run.outputs = {toTensorData(ints(x.type, {12345, 6}))};
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
  run.signedOverflowUndefined = true;
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Ok);
  run.outputs = {toTensorData(ints(x.type, {12345, 7}))};
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
}

// On any generated case, the freedom only takes elements away: what it
// leaves defined is what the case's wrapping semantics gives, and the same
// under either alternate.
RC_GTEST_PROP(SignedOverflow, WhatItLeavesDefinedEveryAlternateAgreesOn, (const Case &c)) {
  const RefRun wraps = runReference(c);
  RC_PRE(wraps.ok());
  RefRun judgedRun = wraps;
  const int64_t undefined = undefineWhatSignedOverflowDecides(c, judgedRun);
  int64_t cleared = 0;
  for (SignedOverflow alternate : {SignedOverflow::GivesMax, SignedOverflow::GivesMin}) {
    const RefRun other = runReference(c, wraps.inputs, alternate);
    RC_ASSERT(other.ok());
    for (size_t k = 0; k < wraps.outputs.size(); ++k)
      for (int64_t e = 0; e < wraps.outputs[k].numElements(); ++e) {
        const RefTensor &mine = judgedRun.outputs[k];
        RC_ASSERT(!mine.isDefined(e) || wraps.outputs[k].isDefined(e));
        if (mine.isDefined(e))
          RC_ASSERT(mine.valueAt(e) == other.outputs[k].valueAt(e) ||
                    (std::isnan(mine.valueAt(e)) && std::isnan(other.outputs[k].valueAt(e))));
      }
  }
  for (size_t k = 0; k < wraps.outputs.size(); ++k)
    for (int64_t e = 0; e < wraps.outputs[k].numElements(); ++e)
      cleared += wraps.outputs[k].isDefined(e) && !judgedRun.outputs[k].isDefined(e);
  RC_ASSERT(cleared == undefined);
}

// Inductor's freedom: a neg or abs of an i32/i64 minimum is undefined in
// its C++ (pytorch/pytorch#191132 wraps add, sub and mul only), so
// torch.minimum(-a, -b) of a = INT32_MIN may be anything; every other
// overflow, an add's included, still wraps and is compared.
TEST(SignedOverflow, InductorsNegationOfTheMinimumIsUndefinedAndNothingElse) {
  CaseBuilder b;
  const RefTensor a = vec(DType::I32, {INT32_MIN, 3, INT32_MAX});
  const RefTensor c = vec(DType::I32, {-1, -4, 1});
  const ValueId na = b.op(OpKind::Neg, {b.input(a)}, {}, a.type);
  const ValueId nc = b.op(OpKind::Neg, {b.input(c)}, {}, a.type);
  const ValueId least = b.op(OpKind::Min, {na, nc}, {}, a.type);
  const ValueId absolute = b.op(OpKind::Abs, {b.input(a)}, {}, a.type);
  const ValueId sum =
      b.op(OpKind::Add, {b.input(a), b.input(vec(DType::I32, {0, 0, 1}))}, {}, a.type);
  b.c.outputs = {least, absolute, sum};
  b.run();
  const RefRun ref = runReference(b.c, b.inputs);
  ASSERT_TRUE(ref.ok()) << ref.error;
  RefRun judgedRun = ref;
  EXPECT_EQ(undefineWhatNegationOverflowDecides(b.c, judgedRun), 2);
  expectDefined(judgedRun.outputs[0], {0, 1, 1});
  expectDefined(judgedRun.outputs[1], {0, 1, 1});
  // INT32_MAX + 1 wraps in Inductor's C++ now: still compared.
  expectDefined(judgedRun.outputs[2], {1, 1, 1});
  expectInts(judgedRun.outputs[2], {INT32_MIN, 3, INT32_MIN});

  // The judge: Inductor's answer of 1 for min(-INT32_MIN, 1) is a mismatch
  // without the freedom and none with it; a wrong value elsewhere, or a
  // wrapped add given otherwise, is still one.
  BackendRun run;
  run.outputs = {toTensorData(ints(a.type, {1, -3, -INT32_MAX})),
                 toTensorData(ints(a.type, {INT32_MIN, 3, INT32_MAX})),
                 toTensorData(ints(a.type, {INT32_MIN, 3, INT32_MIN}))};
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
  run.negationOverflowUndefined = true;
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Ok);
  run.outputs[0] = toTensorData(ints(a.type, {1, -4, -INT32_MAX}));
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
  run.outputs[0] = toTensorData(ints(a.type, {1, -3, -INT32_MAX}));
  run.outputs[2] = toTensorData(ints(a.type, {INT32_MIN, 3, INT32_MAX}));
  EXPECT_EQ(judgeRun(b.c, ref, run).verdict, VerdictKind::Mismatch);
}
