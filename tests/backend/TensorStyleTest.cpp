//===- tests/backend/TensorStyleTest.cpp - The tensor lowering style ------===//
//
// The tensor style (linalg on tensors, one-shot-bufferize) end to end: the
// seed corpus at O0 and O2, and generated cases at O0, all against the
// reference.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "generators/CaseGenerator.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"

#include "tests/TestSupport.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
RunConfig tensorConfig(const std::string &pipeline) {
  RunConfig config;
  config.style = MlirStyle::Tensor;
  config.pipeline = pipeline;
  return config;
}
} // namespace

TEST(TensorStyle, NameRoundTrips) {
  MlirStyle s = MlirStyle::Affine;
  ASSERT_TRUE(parseMlirStyle("tensor", s));
  EXPECT_EQ(s, MlirStyle::Tensor);
  EXPECT_EQ(mlirStyleName(MlirStyle::Tensor), "tensor");
}

TEST(TensorStyle, PipelinesBufferizeBeforeTheTail) {
  for (const std::string spec : {"O0", "O2"}) {
    Pipeline p;
    std::string error;
    ASSERT_TRUE(resolvePipeline(spec, MlirStyle::Tensor, p, error)) << error;
    ASSERT_FALSE(p.lowering.empty());
    EXPECT_EQ(p.lowering.front(), "one-shot-bufferize");
    EXPECT_EQ(p.tail, loweringTail());
  }
}

TEST(TensorStyle, SeedCorpusRunsCleanAtO0AndO2) {
  MlirJit jit;
  for (const std::string &pipeline : {"O0", "O2"}) {
    for (const std::string &f : npufuzz::testing::corpusFiles("corpus/seeds")) {
      Case c;
      TextError err;
      ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
      const CaseOutcome out = runCase(c, jit, tensorConfig(pipeline));
      EXPECT_EQ(out.verdict, VerdictKind::Ok)
          << f << " at " << pipeline << ": " << out.summary << "\n"
          << out.run.message;
    }
  }
}

TEST(TensorStyle, GeneratedCasesRunCleanAtO0) {
  MlirJit jit;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Case c = generateCase(seed, mlirPolicy());
    const CaseOutcome out = runCase(c, jit, tensorConfig("O0"));
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << "seed " << seed << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}

// The workload ops on tensors (tensor.concat and tensor.pad, a mean's sum
// and division, linalg's convolution and pooling ops, the max pool's
// generic, addmm's matmul and bias): exact, or within their sums' bound.
TEST(TensorStyle, WorkloadOpsRunClean) {
  Policy policy;
  std::string error;
  ASSERT_TRUE(parsePolicy("dtype.index = 0\nop.concat = 20\nop.pad = 20\nop.reduce_mean = 20\n"
                          "op.avg_pool2d = 20\nop.max_pool2d = 20\nop.conv2d = 20\nop.addmm = 20\n",
                          policy, error))
      << error;
  MlirJit jit;
  unsigned drawn = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Case c = generateCase(seed, policy);
    for (const Op &op : c.ops)
      drawn += op.kind >= OpKind::Concat; // the workload ops: the last rows of ir/Ops.def
    const CaseOutcome out = runCase(c, jit, tensorConfig("O0"));
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << "seed " << seed << ": " << out.summary << "\n"
                                            << out.run.message;
  }
  EXPECT_GT(drawn, 30u);
}
