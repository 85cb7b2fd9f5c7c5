//===- tests/oracles/MetamorphicOracleTest.cpp - Variants that must agree --===//
//
// A correct compiler's variants agree with its run; a base run they
// disagree with (one output changed here) is what a wrong variant looks
// like to the oracle.
//
//===----------------------------------------------------------------------===//
#include "oracles/MetamorphicOracle.h"

#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

namespace {
/// An input with rows outside its valid shape (the padding variant).
const char *const kPaddedInput = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,4]{valid=2x4}
%1 = exp %0 : f32[4,4]{valid=2x4}
return %1
)";
/// A view and no input valid shape (the view variant only).
const char *const kView = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,8]
%1 = slice %0 {offsets=[0,2], sizes=[4,4], strides=[1,1]} : f32[4,4]
%2 = exp %1 : f32[4,4]
return %2
)";

/// `share` of the cases get the view (and lanes) variants.
RunConfig withShare(double share) {
  RunConfig config;
  config.metamorphicShare = share;
  return config;
}
} // namespace

TEST(MetamorphicOracle, VariantsThatAgreeLeaveTheVerdict) {
  for (const char *text : {kPaddedInput, kView}) {
    JudgedCase jc(text, withShare(1));
    const CaseVerdict v = jc.judge(MetamorphicOracle());
    EXPECT_EQ(v.verdict, VerdictKind::Ok) << v.summary;
    EXPECT_EQ(v.where, "");
    EXPECT_FALSE(jc.namedByVariant);
  }
}

TEST(MetamorphicOracle, PaddingThatChangesADefinedOutputIsAnUninitializedRead) {
  JudgedCase jc(kPaddedInput, withShare(1));
  jc.base.run = withChangedOutput(jc.base.run);
  const CaseVerdict v = jc.judge(MetamorphicOracle());
  EXPECT_EQ(v.verdict, VerdictKind::UninitializedRead);
  EXPECT_EQ(v.where, "metamorphic:padding");
  EXPECT_EQ(v.summary.rfind("defined outputs change with the padding outside inputs' valid "
                            "shapes: output 0: ",
                            0),
            0u)
      << v.summary;
  EXPECT_TRUE(jc.namedByVariant);
}

TEST(MetamorphicOracle, AVariantOfAWrongResultKeepsItsSummaryAndNotItsDifference) {
  JudgedCase jc(kPaddedInput, withShare(1));
  jc.base.run = withChangedOutput(jc.base.run);
  CaseVerdict wrong = jc.judgedAs(VerdictKind::Mismatch);
  wrong.summary = "output 0 (%1): wrong";
  wrong.where = "exp";
  wrong.difference = "value";
  const CaseVerdict v = jc.judge(MetamorphicOracle(), wrong);
  EXPECT_EQ(v.verdict, VerdictKind::UninitializedRead);
  EXPECT_EQ(v.where, "metamorphic:padding");
  EXPECT_EQ(v.difference, "");
  EXPECT_NE(v.summary.find("; output 0 (%1): wrong"), std::string::npos) << v.summary;
}

TEST(MetamorphicOracle, AViewThatChangesTheResultWhenMaterialisedNamesTheVariant) {
  RunConfig config = withShare(1);
  config.blame = false;
  JudgedCase jc(kView, config);
  jc.base.run = withChangedOutput(jc.base.run);
  const CaseVerdict v = jc.judge(MetamorphicOracle());
  EXPECT_EQ(v.verdict, VerdictKind::Mismatch);
  EXPECT_EQ(v.where, "metamorphic:view");
  EXPECT_EQ(v.summary.rfind("materialising the first view changes the result: ", 0), 0u)
      << v.summary;
  EXPECT_EQ(jc.children, 0);
}

TEST(MetamorphicOracle, TheViewVariantIsBlamedOnAPassInAChild) {
  JudgedCase jc(kView, withShare(1));
  jc.base.run = withChangedOutput(jc.base.run);
  const CaseVerdict v = jc.judge(MetamorphicOracle());
  EXPECT_EQ(jc.children, 1);
  // The variant alone is right: no pass to blame, the variant still names it.
  EXPECT_EQ(v.passName, "");
  EXPECT_EQ(v.where, "metamorphic:view");
}

TEST(MetamorphicOracle, OnlyItsShareOfCasesGetsTheViewVariant) {
  JudgedCase jc(kView, withShare(0));
  jc.base.run = withChangedOutput(jc.base.run);
  EXPECT_EQ(jc.judge(MetamorphicOracle()).verdict, VerdictKind::Ok);
}

TEST(MetamorphicOracle, ARunThatFailedHasNoVariants) {
  JudgedCase jc(kPaddedInput, withShare(1));
  jc.base.run = withChangedOutput(jc.base.run);
  const CaseVerdict failed = jc.judgedAs(VerdictKind::CompileError);
  EXPECT_EQ(jc.judge(MetamorphicOracle(), failed).verdict, VerdictKind::CompileError);
}
