//===- tests/integrations/IreeBackendTest.cpp - Real IREE as a target -----===//
//
// The pinned IREE (ci/install-iree.sh) compiles the tensor style with
// tensors at its ABI and runs it in its runtime through the persistent
// adapter. Values that cross the ABI widened (index, bf16, i1) and a
// runtime that flushes subnormals agree with the reference; what IREE
// states it does not support is unsupported, never a finding; a bug
// planted behind one optimisation is found and blamed on it. ci/test.sh
// installs IREE, so its absence is a failure.
//
//===----------------------------------------------------------------------===//
#include "backend/external/PersistentCommand.h"
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

RunConfig iree(const std::string &compiler = "") {
  RunConfig config;
  std::string error;
  EXPECT_TRUE(configureIreeBackend(config, compiler, "", error)) << error;
  config.metamorphicShare = 0;
  return config;
}

// Every type that crosses the tensor ABI widened, a dynamic valid shape,
// and edge values (subnormals among them, which IREE's runtime flushes).
const char *kAbi = R"(npufuzz-case 1
data seed=11 edge_rate=0.4
%0 = input {fill=rand} : bf16[8,16]
%1 = input {fill=rand} : bf16[8,16]
%2 = mul %0, %1 : bf16[8,16]
%3 = input {fill=rand} : i64[8,16]
%4 = input {fill=rand} : i64[8,16]
%5 = lt %3, %4 : i1[8,16]
%6 = input {fill=rand} : f32[8,16]
%7 = input {fill=rand} : f32[8,16]
%8 = mul %6, %7 : f32[8,16]
%9 = set_validshape %8 : f32[8,16]{valid=5x9,dyn}
%10 = input {fill=rand} : f16[8,16]
%11 = add %10, %10 : f16[8,16]
return %2, %5, %9, %11
)";

// An f32 contraction: what the planted bug demotes.
const char *kMatmul = R"(npufuzz-case 1
data seed=2 edge_rate=0
%0 = input {fill=rand} : f32[8,32]
%1 = input {fill=rand} : f32[32,8]
%2 = matmul %0, %1 : f32[8,8]
return %2
)";
} // namespace

TEST(IreeBackend, WidenedTypesAndFlushedSubnormalsAgreeWithTheReference) {
  MlirJit jit;
  const RunConfig config = iree();
  EXPECT_EQ(config.backend, BackendKind::Iree);
  for (const char *text : {kAbi, kMatmul}) {
    const CaseOutcome out = runCase(parseOrFail(text), jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
  }
}

TEST(IreeBackend, TheKernelTakesAndReturnsTensors) {
  MlirEmitOptions options;
  options.style = MlirStyle::Tensor;
  options.tensorAbi = true;
  MlirKernel kernel;
  std::string unsupported;
  ASSERT_TRUE(emitMlir(parseOrFail(kAbi), options, kernel, unsupported)) << unsupported;
  EXPECT_TRUE(kernel.returnsOutputs);
  EXPECT_EQ(kernel.text.find("memref"), std::string::npos) << kernel.text;
  EXPECT_EQ(kernel.text.find("bufferization"), std::string::npos) << kernel.text;
  EXPECT_NE(kernel.text.find("-> (tensor<8x16xi16>, tensor<8x16xi8>, tensor<8x16xf32>, "
                             "tensor<8x16xf16>)"),
            std::string::npos)
      << kernel.text;
  for (const KernelArg &a : kernel.args)
    EXPECT_NE(a.kind, KernelArg::Kind::Output);
  // Other styles have no tensor ABI.
  options.style = MlirStyle::Affine;
  EXPECT_FALSE(emitMlir(parseOrFail(kAbi), options, kernel, unsupported));
}

// The bug planted behind data tiling (tests/integrations/iree/) is a
// mismatch of the matmul, and switch blame names data tiling.
TEST(IreeBackend, APlantedBugIsBlamedOnItsOptimisation) {
  MlirJit jit;
  const RunConfig real = iree();
  ASSERT_EQ(real.external.argv.size(), 4u);
  ASSERT_EQ(::setenv("NPUFUZZ_REAL_IREE_COMPILE", real.external.argv[3].c_str(), 1), 0);
  workerPersistentCommand().stop();
  const RunConfig planted = iree(npufuzz::testing::sourceDir() +
                                 "/tests/integrations/iree/data_tiling_demotes_contractions.sh");
  IsolationLimits limits;
  limits.wallSeconds = 300;
  const CaseReport r = runCaseIsolated(parseOrFail(kMatmul), jit, planted, limits);
  workerPersistentCommand().stop();
  EXPECT_EQ(r.result.verdict, VerdictKind::Mismatch) << r.result.summary << "\n"
                                                     << r.result.message << "\n"
                                                     << r.stderrText;
  EXPECT_EQ(r.signature.pass, "iree:data-tiling") << r.signature.text();
  EXPECT_EQ(r.signature.where, "matmul") << r.signature.text();
}

TEST(IreeBackend, AToolThatIsNotIreeIsNamedWithWhereToRead) {
  RunConfig config;
  std::string error;
  EXPECT_FALSE(configureIreeBackend(config, "/bin/true", "", error));
  EXPECT_NE(error.find("does not report an IREE compiler version"), std::string::npos) << error;
  EXPECT_NE(error.find("docs/toolchains.md#iree-compile"), std::string::npos) << error;
  EXPECT_FALSE(configureIreeBackend(config, "", "/bin/false", error));
  EXPECT_NE(error.find("cannot import iree.runtime and numpy"), std::string::npos) << error;
}
