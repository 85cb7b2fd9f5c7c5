//===- tests/driver/CompareTest.cpp - The tolerance table -----------------===//
#include "oracles/Compare.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/Exactness.h"
#include "oracles/SumBound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace npufuzz;

namespace {
RefTensor floats(DType t, std::vector<float> v, std::vector<uint8_t> defined = {}) {
  TensorType type;
  type.dtype = t;
  type.shape = {static_cast<int64_t>(v.size())};
  RefTensor r = RefTensor::zeros(type);
  r.f = std::move(v);
  r.defined = defined.empty() ? std::vector<uint8_t>(r.f.size(), 1) : std::move(defined);
  return r;
}
TensorData dataOf(const RefTensor &t) { return toTensorData(t); }
} // namespace

TEST(Tolerance, Bf16RoundHalfAwayIsAMismatchAgainstRne) {
  // 0x3F818000 is a tie: rne gives 0x3F82 (even), round-half-away 0x3F82 too;
  // 0x3F808000 is a tie whose rne result is 0x3F80 but half-away is 0x3F81.
  float x;
  uint32_t bits = 0x3F808000;
  std::memcpy(&x, &bits, 4);
  const float rne = roundFloatTo(x, DType::BF16, RoundingMode::NearestEven);
  const float rna = roundFloatTo(x, DType::BF16, RoundingMode::NearestAway);
  ASSERT_NE(rne, rna);
  const Comparison c = compareOutput(floats(DType::BF16, {rne}), dataOf(floats(DType::BF16, {rna})),
                                     Exactness::Exact);
  EXPECT_FALSE(c.match);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NE(c.firstMismatch.find("1 ulp"), std::string::npos) << c.firstMismatch;
}

TEST(Tolerance, ExpWithinTheBoundIsOk) {
  const float want = std::exp(1.5f);
  const float oneUlp = std::nextafter(want, 100.0f);
  EXPECT_TRUE(compareOutput(floats(DType::F32, {want}), dataOf(floats(DType::F32, {oneUlp})),
                            Exactness::Approx)
                  .match);
  // ...but the same difference on an exactly rounded value is a mismatch.
  EXPECT_FALSE(compareOutput(floats(DType::F32, {want}), dataOf(floats(DType::F32, {oneUlp})),
                             Exactness::Exact)
                   .match);
  // And far outside the bound is a mismatch even for Approx.
  EXPECT_FALSE(compareOutput(floats(DType::F32, {want}),
                             dataOf(floats(DType::F32, {want * 1.001f})), Exactness::Approx)
                   .match);
}

// Relative errors add when values are multiplied: an f16 exp a few ULP off
// (pto-isa's simulator's: 22.85 for 22.79) squared is off by twice that
// (522 for 519.5, 5 ULP), which one exp's tolerance does not cover and the
// product's, of two, does. Reduced from held-out seed 47000028.
TEST(Tolerance, AProductOfApproximateValuesCompoundsTheirErrors) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f16[4,1]\n"
                        "%1 = exp %0 : f16[4,1]\n"
                        "%2 = mul %1, %1 : f16[4,1]\n"
                        "%3 = input : f16[4,1]\n"
                        "%4 = exp %3 : f16[4,1]\n"
                        "%5 = row_expand_mul %2, %4 : f16[4,1]\n"
                        "%6 = add %2, %0 : f16[4,1]\n"
                        "%7 = neg %5 : f16[4,1]\n"
                        "%8 = mul %0, %3 : f16[4,1]\n"
                        "%9 = div %1, %4 : f16[4,1]\n"
                        "return %2, %5, %6, %7, %8, %9\n",
                        c, err))
      << err.format("t");
  const std::vector<Exactness> e = classifyValues(c);
  const std::vector<unsigned> n = approximationCounts(c, e);
  EXPECT_EQ(n[1], 1u); // exp
  EXPECT_EQ(n[2], 2u); // exp(x) * exp(x)
  EXPECT_EQ(n[5], 3u); // that, times another exp
  EXPECT_EQ(n[6], 2u); // a sum keeps its terms' most
  EXPECT_EQ(n[7], 3u); // so does a negation
  EXPECT_EQ(n[8], 0u); // exact factors
  EXPECT_EQ(n[9], 2u); // a quotient compounds as a product does
  const RefTensor want = floats(DType::F16, {519.5f});
  const TensorData got = dataOf(floats(DType::F16, {522.0f}));
  EXPECT_FALSE(compareOutput(want, got, Exactness::Approx, nullptr, 1).match);
  EXPECT_TRUE(compareOutput(want, got, Exactness::Approx, nullptr, n[2]).match);
  // Twice the tolerance is still a bound: 530 is 2 % off.
  EXPECT_FALSE(
      compareOutput(want, dataOf(floats(DType::F16, {530.0f})), Exactness::Approx, nullptr, n[2])
          .match);
}

TEST(Tolerance, NanMatchesNanAndSignedZerosDiffer) {
  EXPECT_TRUE(
      compareOutput(floats(DType::F32, {NAN}), dataOf(floats(DType::F32, {-NAN})), Exactness::Exact)
          .match);
  EXPECT_FALSE(compareOutput(floats(DType::F32, {NAN}), dataOf(floats(DType::F32, {1.0f})),
                             Exactness::Approx)
                   .match);
  // Approximate formulas may give NaN where the reference overflows to inf.
  EXPECT_TRUE(compareOutput(floats(DType::F32, {-INFINITY}), dataOf(floats(DType::F32, {NAN})),
                            Exactness::Approx)
                  .match);
  EXPECT_FALSE(compareOutput(floats(DType::F32, {-INFINITY}), dataOf(floats(DType::F32, {NAN})),
                             Exactness::Exact)
                   .match);
  EXPECT_FALSE(compareOutput(floats(DType::F32, {0.0f}), dataOf(floats(DType::F32, {-0.0f})),
                             Exactness::Approx)
                   .match);
}

TEST(Tolerance, UndefinedElementsAreNotCompared) {
  const Comparison c = compareOutput(floats(DType::F32, {1.0f, 2.0f}, {1, 0}),
                                     dataOf(floats(DType::F32, {1.0f, 99.0f})), Exactness::Exact);
  EXPECT_TRUE(c.match);
  EXPECT_EQ(c.compared, 1);
}

TEST(Tolerance, ExactnessFollowsTheDataflow) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f32[4]\n"
                        "%1 = exp %0 : f32[4]\n"
                        "%2 = add %1, %0 : f32[4]\n"
                        "%3 = gt %1, %0 : i1[4]\n"
                        "%4 = sqrt %0 : f32[4]\n"
                        "%5 = mul %1, %0 : f32[4]\n"
                        "%6 = sqrt %1 : f32[4]\n"
                        "%7 = rsqrt %0 : f32[4]\n"
                        "%8 = reduce_sum %1 {axis=0} : f32[1]\n"
                        "%9 = input : f32[4]\n"
                        "%10 = add %1, %9 : f32[4]\n"
                        "%11 = silu %0 : f32[4]\n"
                        "%12 = sub %0, %11 : f32[4]\n"
                        "%13 = sub %9, %0 : f32[4]\n"
                        "return %2, %3, %4, %5, %6, %7, %8, %10, %12, %13\n",
                        c, err))
      << err.format("t");
  const std::vector<Exactness> e = classifyValues(c);
  EXPECT_EQ(e[1], Exactness::Approx);    // exp
  EXPECT_EQ(e[2], Exactness::Unstable);  // exp(x) + x cancels near x = -0.567
  EXPECT_EQ(e[3], Exactness::Unstable);  // a compare of an approximate value
  EXPECT_EQ(e[4], Exactness::Exact);     // sqrt is correctly rounded
  EXPECT_EQ(e[5], Exactness::Approx);    // products keep relative error
  EXPECT_EQ(e[6], Exactness::Unstable);  // sqrt of a value that may cross 0
  EXPECT_EQ(e[7], Exactness::Approx);    // rsqrt of an exact value
  EXPECT_EQ(e[8], Exactness::Unstable);  // a sum of approximate terms can cancel
  EXPECT_EQ(e[10], Exactness::Approx);   // a two-term add of independent terms
  EXPECT_EQ(e[12], Exactness::Unstable); // x - silu(x) is a few ULP of x
  EXPECT_EQ(e[13], Exactness::Exact);    // exact terms may share anything
}

// An approximate value may be an infinity on one side and NaN on the other
// (silu's formulas at overflow, a product of 0 and of a subnormal with
// inf); an op that makes infinities finite (clamp, max, min, relu) then
// disagrees where nothing was wrong. Seed 5134604: silu(-100.8) is a
// subnormal in the reference and -0 in f32; times +inf, -inf against NaN;
// clamped, -4.375 against NaN.
TEST(Tolerance, OpsThatMakeInfinitiesFiniteAreNotComparedWhereNanAndInfinityMayDiffer) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f32[4]\n"
                        "%1 = input : f32[4]\n"
                        "%2 = silu %0 : f32[4]\n"
                        "%3 = mul %2, %1 : f32[4]\n"
                        "%4 = clamp %3 {min=-4.375, max=65504} : f32[4]\n"
                        "%5 = max %3, %1 : f32[4]\n"
                        "%6 = relu %3 : f32[4]\n"
                        "%7 = clamp %1 {min=-4.375, max=65504} : f32[4]\n"
                        "%8 = max %1, %0 : f32[4]\n"
                        "%9 = rsqrt %0 : f32[4]\n"
                        "%10 = min %0, %9 : f32[4]\n"
                        "return %4, %5, %6, %7, %8, %10\n",
                        c, err))
      << err.format("t");
  const std::vector<Exactness> e = classifyValues(c);
  EXPECT_EQ(e[3], Exactness::Approx);
  EXPECT_EQ(e[4], Exactness::Unstable);
  EXPECT_EQ(e[5], Exactness::Unstable);
  EXPECT_EQ(e[6], Exactness::Unstable);
  EXPECT_EQ(e[7], Exactness::Exact); // exact inputs stay compared bit for bit
  EXPECT_EQ(e[8], Exactness::Exact);
  // rsqrt is NaN or infinite alike everywhere: min(x, rsqrt(x)) stays
  // compared (pto-isa's NaN operand order, corpus/ptoas/).
  EXPECT_EQ(e[10], Exactness::Approx);
}

// Under a compiler that holds f16/bf16 intermediates wide (Inductor), what
// arithmetic makes of a computed narrow value is approximate; narrow inputs,
// f32 chains, moves of values and the default model stay exact.
TEST(Tolerance, LowPrecisionHeldWideMakesArithmeticOnComputedNarrowValuesApprox) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : bf16[4]\n"
                        "%1 = input : bf16[4]\n"
                        "%2 = add %0, %1 : bf16[4]\n"
                        "%3 = mul %2, %1 : bf16[4]\n"
                        "%4 = input : f32[4]\n"
                        "%5 = add %4, %4 : f32[4]\n"
                        "%6 = mul %5, %4 : f32[4]\n"
                        "%7 = reshape %2 : bf16[2,2]\n"
                        "%8 = cast %2 {round=rne} : f32[4]\n"
                        "%9 = exp %2 : bf16[4]\n"
                        "return %3, %6, %7, %8, %9\n",
                        c, err))
      << err.format("t");
  ExactnessModel wide;
  wide.lowPrecisionHeldWide = true;
  const std::vector<Exactness> e = classifyValues(c, wide);
  EXPECT_EQ(e[2], Exactness::Exact);  // computed from inputs: rounded once
  EXPECT_EQ(e[3], Exactness::Approx); // reads %2, perhaps unrounded
  EXPECT_EQ(e[6], Exactness::Exact);  // f32 has no narrower round trip to skip
  EXPECT_EQ(e[7], Exactness::Exact);  // a view moves %2's rounded values
  // The cast may read %2 unrounded, and widened, f32 tolerance cannot judge it.
  EXPECT_EQ(e[8], Exactness::Unstable);
  // exp amplifies the half ULP %2 may be off by: not comparable.
  EXPECT_EQ(e[9], Exactness::Unstable);
  const std::vector<Exactness> plain = classifyValues(c);
  for (ValueId v = 0; v < 9; ++v)
    EXPECT_EQ(plain[v], Exactness::Exact) << "%" << v;
}

TEST(Tolerance, ADivisionByAConstantMayBeAMultiplicationByItsReciprocal) {
  // x / 6.25 as Inductor lowers it, x * 0.16 rounded: a ULP off (held-out
  // PyTorchSim seed 4520466). A divisor that is an input is not folded.
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f32[4,5]\n"
                        "%1 = const {value=6.25} : f32[1,5]\n"
                        "%2 = col_expand_div %0, %1 : f32[4,5]\n"
                        "%3 = broadcast %1 : f32[4,5]\n"
                        "%4 = div %0, %3 : f32[4,5]\n"
                        "%5 = div %0, %0 : f32[4,5]\n"
                        "return %2, %4, %5\n",
                        c, err))
      << err.format("t");
  const std::vector<Exactness> e = classifyValues(c, freedomsOf(BackendKind::PyTorchSim));
  EXPECT_EQ(e[2], Exactness::Approx);
  EXPECT_EQ(e[4], Exactness::Approx); // a view of a constant is one
  EXPECT_EQ(e[5], Exactness::Exact);
  EXPECT_EQ(classifyValues(c)[2], Exactness::Exact);
  EXPECT_TRUE(freedomsOf(BackendKind::Inductor).constantDivisorsAsReciprocal);
  // PyTorchSim's fused f16 ops compute in f32 between a load and a store,
  // as Inductor's do (held-out seed 4540555: f16 x * y overflowed to -inf
  // in the reference, not in PyTorchSim's f32, and silu gave -0, not NaN).
  EXPECT_TRUE(freedomsOf(BackendKind::PyTorchSim).lowPrecisionHeldWide);
  // Marking a run with its backend's freedoms keeps what the run says of
  // itself: PyTorchSim's model sums each lane's share first.
  BackendRun run;
  run.floatSumsReassociated = true;
  markFreedoms(run, freedomsOf(BackendKind::PyTorchSim));
  EXPECT_TRUE(run.floatSumsReassociated);
  EXPECT_TRUE(run.lowPrecisionHeldWide);
  EXPECT_FALSE(freedomsOf(BackendKind::Iree).constantDivisorsAsReciprocal);
}

// Held-out Inductor seeds 971843 and 971064: what an unrounded narrow value
// decides (a compare, an index) may flip, and a sum of such values may
// cancel, so it is Reordered, its bound widened by the terms' own unit
// roundoff (2^-8 for bf16) on top of f32's reordering.
TEST(Tolerance, LowPrecisionHeldWideMakesDecisionsUnstableAndSumsReordered) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : bf16[2,3]\n"
                        "%1 = input : bf16[2,3]\n"
                        "%2 = sub %0, %1 : bf16[2,3]\n"
                        "%3 = le %0, %2 : i1[2,3]\n"
                        "%4 = argmax %2 {axis=1} : i64[2,1]\n"
                        "%5 = reduce_sum %2 {axis=1} : bf16[2,1]\n"
                        "%6 = le %0, %1 : i1[2,3]\n"
                        "%7 = reduce_sum %0 {axis=1} : bf16[2,1]\n"
                        "%8 = transpose %2 {perm=[1,0]} : bf16[3,2]\n"
                        "%9 = le %8, %8 : i1[3,2]\n"
                        "return %3, %4, %5, %6, %7, %9\n",
                        c, err))
      << err.format("t");
  ExactnessModel wide;
  wide.lowPrecisionHeldWide = true;
  const std::vector<Exactness> e = classifyValues(c, wide);
  EXPECT_EQ(e[3], Exactness::Unstable);
  EXPECT_EQ(e[4], Exactness::Unstable);
  EXPECT_EQ(e[5], Exactness::Reordered);
  EXPECT_EQ(e[6], Exactness::Exact); // inputs are rounded: nothing held
  EXPECT_EQ(e[7], Exactness::Exact);
  EXPECT_EQ(e[9], Exactness::Unstable); // a view of %2 is %2, held wide
  const std::vector<Exactness> plain = classifyValues(c);
  EXPECT_EQ(plain[3], Exactness::Exact);
  EXPECT_EQ(plain[5], Exactness::Exact);

  std::vector<RefTensor> values(c.values.size());
  values[2] = floats(DType::BF16, {1.5f, -1.25f, 0, 2, 2, -4});
  values[2].type = c.typeOf(2);
  const std::vector<double> bound = reorderedSumBound(c, values, 5, wide);
  ASSERT_EQ(bound.size(), 2u);
  EXPECT_DOUBLE_EQ(bound[0], (2.0 * 3 * 0x1p-24 + 0x1p-8) * 2.75);
  EXPECT_DOUBLE_EQ(bound[1], (2.0 * 3 * 0x1p-24 + 0x1p-8) * 8);
  EXPECT_DOUBLE_EQ(reorderedSumBound(c, values, 5, ExactnessModel{})[1], 2.0 * 3 * 0x1p-24 * 8);
  // A sum of an input's values (reordered by a backend whose lanes sum
  // their shares): the input is exact in its own type, so nothing is held
  // wide, and a bf16 accumulator's roundings must still show.
  values[0] = floats(DType::BF16, {1.5f, -1.25f, 0, 2, 2, -4});
  values[0].type = c.typeOf(0);
  EXPECT_DOUBLE_EQ(reorderedSumBound(c, values, 7, wide)[1], 2.0 * 3 * 0x1p-24 * 8);
}

// Two wrong results of one op are told apart by the kind of difference: the
// pto-isa simulator's signed-zero max and its overflowing f32->i32 cast are
// different findings.
TEST(Difference, EachKindIsNamed) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(differenceKind(0.0f, -0.0f, DType::F32), "signed-zero");
  EXPECT_EQ(differenceKind(-0.0f, 0.0f, DType::F16), "signed-zero");
  EXPECT_EQ(differenceKind(1.0f, nan, DType::F32), "nan");
  EXPECT_EQ(differenceKind(nan, 1.0f, DType::F32), "nan");
  EXPECT_EQ(differenceKind(inf, 0.0f, DType::F16), "infinity");
  EXPECT_EQ(differenceKind(-inf, inf, DType::F32), "infinity");
  EXPECT_EQ(differenceKind(1.0f, std::nextafter(1.0f, 2.0f), DType::F32), "rounding");
  EXPECT_EQ(differenceKind(1.0f, 1.5f, DType::F32), "value");
  EXPECT_EQ(differenceKind(int64_t{2147483647}, int64_t{-2147483648}, DType::I32), "extreme");
  EXPECT_EQ(differenceKind(int64_t{5}, int64_t{127}, DType::I8), "extreme");
  EXPECT_EQ(differenceKind(int64_t{5}, int64_t{4}, DType::I32), "rounding");
  EXPECT_EQ(differenceKind(std::numeric_limits<int64_t>::max() - 1,
                           std::numeric_limits<int64_t>::min() + 1, DType::I64),
            "value");
  EXPECT_EQ(differenceKind(int64_t{5}, int64_t{9}, DType::I32), "value");
}

TEST(Difference, TheFirstDifferingElementGivesTheKind) {
  const Comparison c =
      compareOutput(floats(DType::F32, {1.0f, 0.0f, 2.0f}),
                    dataOf(floats(DType::F32, {1.0f, -0.0f, 3.0f})), Exactness::Exact);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.difference, "signed-zero");
  EXPECT_FALSE(c.onlyRounding);
}

// A result only rounded wrong: every differing element one step off.
TEST(Difference, OnlyRoundingWhenEveryDifferenceIsOneStep) {
  const float one = 1.0f, next = std::nextafter(1.0f, 2.0f), two = 2.0f;
  const Comparison rounded =
      compareOutput(floats(DType::F32, {one, two, one}),
                    dataOf(floats(DType::F32, {next, two, next})), Exactness::Exact);
  EXPECT_EQ(rounded.mismatches, 2);
  EXPECT_TRUE(rounded.onlyRounding);
  // One element far off, even after a rounding one: not only rounding.
  const Comparison far =
      compareOutput(floats(DType::F32, {one, two, one}),
                    dataOf(floats(DType::F32, {next, two, 5.0f})), Exactness::Exact);
  EXPECT_EQ(far.difference, "rounding");
  EXPECT_FALSE(far.onlyRounding);
  EXPECT_FALSE(
      compareOutput(floats(DType::F32, {one}), dataOf(floats(DType::F32, {one})), Exactness::Exact)
          .onlyRounding)
      << "nothing differs";
}

// What corrupted memory gives, counted apart from what a simulator's -0 and
// NaN quirks and a compiler's rounding give (op blame of a memory error).
TEST(Difference, GrossMismatchesAreNeitherAZerosSignANanNorARoundingStep) {
  const float one = 1.0f, next = std::nextafter(1.0f, 2.0f), nan = std::nanf("");
  const Comparison quirks =
      compareOutput(floats(DType::F32, {0.0f, nan, one, 2.0f}),
                    dataOf(floats(DType::F32, {-0.0f, 2.0f, next, 2.0f})), Exactness::Exact);
  EXPECT_EQ(quirks.mismatches, 3);
  EXPECT_EQ(quirks.grossMismatches, 0);
  const Comparison corrupted =
      compareOutput(floats(DType::F32, {0.0f, nan, one, 2.0f}),
                    dataOf(floats(DType::F32, {-0.0f, 2.0f, next, -1.5e9f})), Exactness::Exact);
  EXPECT_EQ(corrupted.difference, "signed-zero"); // the first says nothing of the rest
  EXPECT_EQ(corrupted.grossMismatches, 1);
}

// A backend that reassociates float sums (IREE) may add a reduce_sum's or a
// matmul's terms in any order: such a sum of exact terms is Reordered and
// compared within 2 n u sum|t| of its terms, which is loose where the terms
// cancel and tight where they do not; what reads it is not compared; two
// terms commute exactly.
TEST(Tolerance, AReorderedSumIsBoundedByItsTermsMagnitudes) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f32[4,3]\n"
                        "%1 = reduce_sum %0 {axis=1} : f32[4,1]\n"
                        "%2 = input : f32[4,2]\n"
                        "%3 = reduce_sum %2 {axis=1} : f32[4,1]\n"
                        "%4 = abs %1 : f32[4,1]\n"
                        "%5 = input : f32[3,2]\n"
                        "%6 = matmul %0, %5 : f32[4,2]\n"
                        "return %1, %3, %4, %6\n",
                        c, err))
      << err.format("t");
  ExactnessModel model;
  model.floatSumsReassociated = true;
  const std::vector<Exactness> e = classifyValues(c, model);
  EXPECT_EQ(e[1], Exactness::Reordered);
  EXPECT_EQ(e[3], Exactness::Exact); // a + b is b + a
  EXPECT_EQ(e[4], Exactness::Unstable);
  EXPECT_EQ(e[6], Exactness::Reordered);
  EXPECT_EQ(classifyValues(c)[1], Exactness::Exact);

  // Rows: 1e8 + 1 - 1e8 (cancels: 0 or 1 or 2 are all some order's), and
  // 1 + 2 + 3, whose every order gives 6.
  std::vector<RefTensor> values(c.values.size());
  values[0] = floats(DType::F32, {1e8f, 1, -1e8f, 1, 2, 3, 0, 0, 0, 0, 0, 0});
  values[0].type = c.typeOf(0);
  const std::vector<double> bound = reorderedSumBound(c, values, 1, ExactnessModel{});
  ASSERT_EQ(bound.size(), 4u);
  EXPECT_DOUBLE_EQ(bound[1], 2.0 * 3 * 0x1p-24 * 6);
  const RefTensor want = [&] {
    RefTensor t = floats(DType::F32, {0, 6, 0, 0});
    t.type = c.typeOf(1);
    return t;
  }();
  RefTensor got = want;
  got.f[0] = 2; // another order of the cancelling row
  EXPECT_TRUE(compareOutput(want, dataOf(got), Exactness::Reordered, &bound).match);
  got.f[1] = 6.0001f; // past what 1 + 2 + 3 allows in any order
  EXPECT_FALSE(compareOutput(want, dataOf(got), Exactness::Reordered, &bound).match);
  // With no bound a Reordered output is not compared.
  EXPECT_TRUE(compareOutput(want, dataOf(got), Exactness::Reordered).match);
}

// IREE may contract an f32 product and the add that reads it, even through
// a move that folds away, into one fused multiply-add: the sum is Approx.
// A bf16 product is rounded to bf16 before the add: no contraction.
TEST(Tolerance, AContractedF32ProductAndSumIsApprox) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase("npufuzz-case 1\n"
                        "%0 = input : f32[4]\n"
                        "%1 = mul %0, %0 : f32[4]\n"
                        "%2 = add %1, %0 : f32[4]\n"
                        "%3 = const {value=0} : i1[4]\n"
                        "%4 = masked_fill %1, %3 {value=1} : f32[4]\n"
                        "%5 = sub %0, %4 : f32[4]\n"
                        "%6 = input : bf16[4]\n"
                        "%7 = mul %6, %6 : bf16[4]\n"
                        "%8 = add %7, %6 : bf16[4]\n"
                        "%9 = add %0, %0 : f32[4]\n"
                        "return %2, %5, %8, %9\n",
                        c, err))
      << err.format("t");
  ExactnessModel model;
  model.productsContracted = true;
  const std::vector<Exactness> e = classifyValues(c, model);
  EXPECT_EQ(e[2], Exactness::Approx);
  EXPECT_EQ(e[5], Exactness::Approx);
  EXPECT_EQ(e[8], Exactness::Exact);
  EXPECT_EQ(e[9], Exactness::Exact);
  EXPECT_EQ(classifyValues(c)[2], Exactness::Exact);
}
