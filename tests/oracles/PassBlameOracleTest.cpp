//===- tests/oracles/PassBlameOracleTest.cpp - The pass a wrong result starts at ===//
#include "oracles/PassBlameOracle.h"

#include "tests/oracles/OracleTestSupport.h"

using namespace npufuzz;
using namespace npufuzz::testing;

TEST(PassBlameOracle, TheFirstPassWhosePrefixIsWrongIsBlamed) {
  JudgedCase jc(kAddition, withPipeline(std::string("func.func(canonicalize),") + kMiscompile));
  const CaseVerdict v = jc.judge(PassBlameOracle());
  EXPECT_EQ(jc.children, 1);
  EXPECT_EQ(v.passName, "func.func(npufuzz-test-miscompile)") << v.summary;
  EXPECT_EQ(v.passIndex, 1);
  EXPECT_EQ(v.exposedBy, "");
  EXPECT_EQ(v.summary, jc.base.summary);
}

TEST(PassBlameOracle, ABlamedPassNamesTheScalarFamilyOfTheOp) {
  JudgedCase jc(kAddition, withPipeline(std::string("func.func(canonicalize),") + kMiscompile));
  CaseVerdict before = differentialVerdict(jc.c, jc.base);
  before.where = "row_expand_add";
  EXPECT_EQ(jc.judge(PassBlameOracle(), before).where, "add");
  // Unless a variant names the finding.
  jc.namedByVariant = true;
  EXPECT_EQ(jc.judge(PassBlameOracle(), before).where, "row_expand_add");
}

TEST(PassBlameOracle, APassThatOnlyExposesATailBugIsNotBlamedForIt) {
  JudgedCase jc(kI1Store, withPipeline(kExposingPasses));
  const CaseVerdict v = jc.judge(PassBlameOracle());
  EXPECT_EQ(v.passName, "convert-vector-to-llvm") << v.summary;
  EXPECT_EQ(v.exposedBy, "func.func(affine-loop-unroll{unroll-factor=2})");
  EXPECT_EQ(v.passIndex, 2 + 8); // its position after the two passes
  EXPECT_EQ(v.where, "");
  EXPECT_NE(v.summary.find("; miscompiled by convert-vector-to-llvm, exposed by "),
            std::string::npos)
      << v.summary;
}

TEST(PassBlameOracle, AnExternalToolchainIsNotBlamedOnMlirPasses) {
  JudgedCase jc(kAddition, withPipeline(std::string("func.func(canonicalize),") + kMiscompile));
  jc.config.backend = BackendKind::External;
  EXPECT_EQ(jc.judge(PassBlameOracle()).passName, "");
  EXPECT_EQ(jc.children, 0);
}
