//===- tests/backend/ModesAgreeTest.cpp - In and out of process agree -----===//
//
// The same kernel through the in-process PassManager + ExecutionEngine and
// through mlir-opt + mlir-runner gives byte-identical defined outputs.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/Pipelines.h"
#include "generators/CaseGenerator.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace npufuzz;

namespace {
/// Whether element e of `t` is a NaN. A NaN's sign and payload are not
/// specified (IEEE 754 6.3): x86 makes -NaN where folding makes +NaN.
bool isNaN(const TensorData &t, int64_t e) {
  const uint8_t *p = t.data() + e * t.elementBytes();
  uint32_t u32 = 0;
  uint16_t u16 = 0;
  switch (t.type.dtype) {
  case DType::F32: std::memcpy(&u32, p, 4); return (u32 & 0x7fffffffu) > 0x7f800000u;
  case DType::F16: std::memcpy(&u16, p, 2); return std::isnan(f16BitsToFloat(u16));
  case DType::BF16: std::memcpy(&u16, p, 2); return std::isnan(bf16BitsToFloat(u16));
  case DType::I8:
  case DType::I32:
  case DType::I64:
  case DType::Index:
  case DType::I1: return false;
  }
  return false;
}

void expectModesAgree(const Case &c, const std::string &pipelineSpec, const std::string &what) {
  MlirJit jit;
  RunConfig inProcess;
  inProcess.pipeline = pipelineSpec;
  const CaseOutcome a = runCase(c, jit, inProcess);
  if (a.verdict != VerdictKind::Ok)
    return; // a finding of its own; agreement is about correct runs
  RunConfig tools = inProcess;
  tools.backend = BackendKind::MlirTools;
  const CaseOutcome b = runCase(c, jit, tools);
  ASSERT_EQ(b.verdict, VerdictKind::Ok) << what << ": " << b.summary << "\n" << b.run.message;
  ASSERT_EQ(a.run.outputs.size(), b.run.outputs.size());
  // Elements outside a valid shape are undefined: they hold whatever the
  // kernel's scratch memory held, so only defined elements must agree.
  for (size_t k = 0; k < a.run.outputs.size(); ++k) {
    const RefTensor &expected = a.reference.outputs[k];
    const unsigned width = a.run.outputs[k].elementBytes();
    for (int64_t e = 0; e < expected.numElements(); ++e)
      if (expected.isDefined(e) && !(isNaN(a.run.outputs[k], e) && isNaN(b.run.outputs[k], e)))
        ASSERT_EQ(0, std::memcmp(a.run.outputs[k].data() + e * width,
                                 b.run.outputs[k].data() + e * width, width))
            << what << " output " << k << " element " << e;
  }
}
} // namespace

TEST(ModesAgree, SeedCorpusAtO0AndO2) {
  for (const char *pipeline : {"O0", "O2"})
    for (const std::string &f : npufuzz::testing::corpusFiles("corpus/seeds")) {
      Case c;
      TextError err;
      ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
      expectModesAgree(c, pipeline, f + " " + pipeline);
    }
}

TEST(ModesAgree, GeneratedCases) {
  for (uint64_t seed = 0; seed < 24; ++seed)
    expectModesAgree(generateCase(seed, mlirPolicy()), "O0", "seed " + std::to_string(seed));
}
