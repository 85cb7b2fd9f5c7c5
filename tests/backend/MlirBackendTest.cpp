//===- tests/backend/MlirBackendTest.cpp - The MLIR backend end to end ----===//
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "generators/CaseGenerator.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"

#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace npufuzz;

TEST(MlirBackend, SeedCorpusRunsCleanAtO0AndO2) {
  MlirJit jit;
  for (const std::string &pipeline : {"O0", "O2"}) {
    for (const std::string &f : npufuzz::testing::corpusFiles("corpus/seeds")) {
      Case c;
      TextError err;
      ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
      RunConfig config;
      config.pipeline = pipeline;
      const CaseOutcome out = runCase(c, jit, config);
      EXPECT_EQ(out.verdict, VerdictKind::Ok)
          << f << " at " << pipeline << ": " << out.summary << "\n"
          << out.run.message;
    }
  }
}

TEST(MlirBackend, GeneratedCasesRunCleanAtO0) {
  MlirJit jit;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    const Case c = generateCase(seed, mlirPolicy());
    RunConfig config;
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << "seed " << seed << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}

// Seed 000: the same SSA value used as vector<16xindex> and vector<16xi64>.
// The oracle must reject it and point at the offending op.
TEST(MlirBackend, IndexI64MixRejectedWithOpAndLine) {
  const std::string text =
      R"(func.func @kernel(%lane: vector<16xindex>, %ids: vector<16xi64>) -> vector<16xi1> {
  %c16 = arith.constant dense<16> : vector<16xindex>
  %tmp19 = arith.addi %lane, %c16 : vector<16xindex>
  %tmp20 = arith.cmpi eq, %ids, %tmp19 : vector<16xi64>
  return %tmp20 : vector<16xi1>
}
)";
  MlirJit jit;
  const BackendRun r = jit.verifyPipeline(text, {"func.func(canonicalize)"});
  EXPECT_EQ(r.status, BackendRun::Status::VerifierError);
  EXPECT_EQ(r.passIndex, -1); // invalid before any pass ran
  EXPECT_NE(r.message.find("4:"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("expects different type than prior uses"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("vector<16xi64>"), std::string::npos) << r.message;
}

// The IR coverage of a run: the ops (with element types) at the entry of the
// user's passes, and the user passes that changed the IR. canonicalize folds
// the constant compares of a fillpad's bounds; run again, it finds nothing.
TEST(MlirBackend, RunRecordsTheIrItsPassesWereGiven) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[4,8]{valid=2x8}
%1 = fillpad %0 {pad=zero} : f32[4,8]
%2 = round %1 {mode=rna} : f32[4,8]
return %2
)",
                        c, err))
      << err.format("case");
  MlirJit jit;
  RunConfig config;
  config.pipeline = "func.func(canonicalize),func.func(canonicalize)";
  config.jit.recordIrCoverage = true;
  const CaseOutcome out = runCase(c, jit, config);
  ASSERT_EQ(out.verdict, VerdictKind::Ok) << out.summary;
  const std::vector<std::string> &ops = out.run.entryOps;
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char *op : {"affine.load f32", "affine.store f32", "math.round f32", "arith.cmpi i1",
                         "arith.select f32", "affine.for"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op << " missing";
  EXPECT_EQ(out.run.passesThatChanged, std::vector<std::string>{"func.func(canonicalize)"});
}

TEST(MlirBackend, UserPassesRunAtTheirStage) {
  // Each stage moves the style's elements that come before it ahead of the
  // user's passes; those of the tail (its lowering to loops) run again
  // after them, for what the passes make (scf-for-loop-peeling makes
  // affine.min).
  for (const MlirStyle style : {MlirStyle::Affine, MlirStyle::Tensor, MlirStyle::Npu}) {
    Pipeline entry;
    std::string error;
    ASSERT_TRUE(resolvePipeline("func.func(cse)", style, entry, error));
    EXPECT_TRUE(entry.before.empty());
    for (const PassStage stage : {PassStage::Bufferized, PassStage::Loops}) {
      Pipeline p;
      ASSERT_TRUE(resolvePipeline("func.func(cse)", style, p, error, stage));
      // The whole tail after the passes; the style's lowering once, split.
      EXPECT_EQ(p.tail, loweringTail());
      const std::vector<std::string> tail = loweringTail();
      std::vector<std::string> styleLowering;
      for (const std::string &e : p.before)
        if (std::find(tail.begin(), tail.end(), e) == tail.end())
          styleLowering.push_back(e);
      styleLowering.insert(styleLowering.end(), p.lowering.begin(), p.lowering.end());
      EXPECT_EQ(styleLowering, entry.lowering) << passStageName(stage);
      EXPECT_EQ(p.elements()[p.passElement(0)], "func.func(cse)");
      if (stage == PassStage::Loops) {
        // After the lowering to loops: the tail's first elements, up to the
        // lower-affine after convert-vector-to-scf.
        ASSERT_FALSE(p.before.empty());
        EXPECT_EQ(p.before.back(), "lower-affine");
        EXPECT_NE(std::find(p.before.begin(), p.before.end(), "convert-vector-to-scf"),
                  p.before.end());
      }
      const bool moves = stage == PassStage::Loops || style == MlirStyle::Tensor;
      EXPECT_EQ(!p.before.empty(), moves) << mlirStyleName(style) << " " << passStageName(stage);
    }
  }
  PassStage s;
  EXPECT_FALSE(parsePassStage("late", s));

  // What the user's passes are given at each stage (the run's IR coverage).
  MlirJit jit;
  const Case c = generateCase(3, mlirPolicy());
  auto entryOps = [&](MlirStyle style, PassStage stage) {
    RunConfig config;
    config.style = style;
    config.stage = stage;
    config.pipeline = "func.func(canonicalize)";
    config.jit.recordIrCoverage = true;
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary;
    std::string ops;
    for (const std::string &op : out.run.entryOps)
      ops += op.substr(0, op.find(' ')) + " ";
    return ops;
  };
  EXPECT_NE(entryOps(MlirStyle::Tensor, PassStage::Entry).find("linalg.generic"),
            std::string::npos);
  const std::string bufferized = entryOps(MlirStyle::Tensor, PassStage::Bufferized);
  EXPECT_NE(bufferized.find("memref.alloc"), std::string::npos) << bufferized;
  EXPECT_EQ(bufferized.find("bufferization.to_tensor"), std::string::npos) << bufferized;
  for (const MlirStyle style : {MlirStyle::Affine, MlirStyle::Tensor}) {
    const std::string loops = entryOps(style, PassStage::Loops);
    EXPECT_NE(loops.find("scf.for"), std::string::npos) << loops;
    EXPECT_EQ(loops.find("affine."), std::string::npos) << loops;
    EXPECT_EQ(loops.find("linalg."), std::string::npos) << loops;
  }
}

// A rerun on other inputs (the padding check) calls the code compiled
// last, and gets what a fresh compilation of the same kernel gets; another
// text or pipeline is compiled anew.
TEST(MlirBackend, ARerunOnOtherInputsCallsTheCodeCompiledLast) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(R"(npufuzz-case 1
data seed=3 edge_rate=0
%0 = input : f32[4,8]{valid=2x8}
%1 = fillpad %0 {pad=zero} : f32[4,8]
%2 = exp %1 : f32[4,8]
return %2
)",
                        c, err))
      << err.format("case");
  MlirKernel kernel;
  std::string error;
  ASSERT_TRUE(emitMlir(c, MlirEmitOptions(), kernel, error)) << error;
  Pipeline o0, o2;
  ASSERT_TRUE(resolvePipeline("O0", MlirStyle::Affine, o0, error)) << error;
  ASSERT_TRUE(resolvePipeline("O2", MlirStyle::Affine, o2, error)) << error;
  std::vector<TensorData> first = toTensorData(runReference(c).inputs), other = first;
  for (size_t i = 0; i < other[0].bytes.size(); i += 4)
    other[0].bytes[i] ^= 0x01; // the last mantissa bit: other finite values
  MlirJit jit;
  JitOptions compile, reuse;
  reuse.reuseCompiled = true;
  const BackendRun base = jit.run(kernel, o0.elements(), first, c.outputTypes(), compile);
  ASSERT_TRUE(base.ok()) << base.message;
  EXPECT_GT(base.codegenSeconds, 0);
  const BackendRun again = jit.run(kernel, o0.elements(), other, c.outputTypes(), reuse);
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(again.passSeconds, 0);
  EXPECT_EQ(again.codegenSeconds, 0);
  const BackendRun fresh = jit.run(kernel, o0.elements(), other, c.outputTypes(), compile);
  ASSERT_TRUE(fresh.ok()) << fresh.message;
  EXPECT_GT(fresh.codegenSeconds, 0);
  ASSERT_EQ(again.outputs.size(), fresh.outputs.size());
  EXPECT_EQ(again.outputs[0].bytes, fresh.outputs[0].bytes);
  EXPECT_NE(again.outputs[0].bytes, base.outputs[0].bytes);
  // Another pipeline is another kernel.
  const BackendRun optimised = jit.run(kernel, o2.elements(), other, c.outputTypes(), reuse);
  ASSERT_TRUE(optimised.ok()) << optimised.message;
  EXPECT_GT(optimised.codegenSeconds, 0);
}

// The IR coverage is of the IR at the user's stage, also with no user
// passes (O0), where the trusted elements before and after the stage
// would otherwise run as one group.
TEST(MlirBackend, EntryOpsAreTakenAtTheStageWithNoUserPasses) {
  Case c;
  TextError err;
  ASSERT_TRUE(parseCase(R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[4,8]
%1 = exp %0 : f32[4,8]
return %1
)",
                        c, err))
      << err.format("case");
  MlirJit jit;
  RunConfig config;
  config.stage = PassStage::Loops;
  config.jit.recordIrCoverage = true;
  const CaseOutcome out = runCase(c, jit, config);
  ASSERT_EQ(out.verdict, VerdictKind::Ok) << out.summary;
  const std::vector<std::string> &ops = out.run.entryOps;
  EXPECT_NE(std::find(ops.begin(), ops.end(), "math.exp f32"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "scf.for index"), ops.end())
      << ::testing::PrintToString(ops);
  EXPECT_EQ(std::find(ops.begin(), ops.end(), "affine.for"), ops.end());
}

// A kernel with state of its own (the npu style's scratchpad global, zero
// in each compiled kernel) is compiled again for a rerun, never reused.
/// A kernel that returns its global's contents and then keeps its input
/// there; the global starts at `init`.
MlirKernel kernelWithAGlobal(const std::string &init) {
  MlirKernel k;
  k.text = R"(module {
  memref.global "private" @kept : memref<4xf32> = dense<)" +
           init + R"(>
  func.func @npf_kernel(%in: memref<4xf32>, %out: memref<4xf32>) attributes {llvm.emit_c_interface} {
    %kept = memref.get_global @kept : memref<4xf32>
    memref.copy %kept, %out : memref<4xf32> to memref<4xf32>
    memref.copy %in, %kept : memref<4xf32> to memref<4xf32>
    return
  }
}
)";
  k.args = {{KernelArg::Kind::Input, 0, 0, 0}, {KernelArg::Kind::Output, 0, 0, 0}};
  return k;
}

TEST(MlirBackend, AReusedKernelsGlobalStartsAtZeroAgain) {
  // The npu style's scratchpad is such a global: a reuse must not see what
  // the call before left in it.
  Pipeline o0;
  std::string error;
  ASSERT_TRUE(resolvePipeline("O0", MlirStyle::Affine, o0, error)) << error;
  TensorType t;
  t.dtype = DType::F32;
  t.shape = {4};
  auto at = [](const TensorData &d, int i) {
    float v;
    std::memcpy(&v, d.data() + 4 * i, 4);
    return v;
  };
  TensorData first = TensorData::filled(t, 0), second = first;
  for (int i = 0; i < 4; ++i) {
    const float one = 1.0f + i, ten = 10.0f + i;
    std::memcpy(first.data() + 4 * i, &one, 4);
    std::memcpy(second.data() + 4 * i, &ten, 4);
  }
  MlirJit jit;
  JitOptions reuse;
  reuse.reuseCompiled = true;
  const MlirKernel zero = kernelWithAGlobal("0.0");
  const BackendRun a = jit.run(zero, o0.elements(), {first}, {t}, reuse);
  ASSERT_TRUE(a.ok()) << a.message;
  const BackendRun b = jit.run(zero, o0.elements(), {second}, {t}, reuse);
  ASSERT_TRUE(b.ok()) << b.message;
  EXPECT_EQ(b.codegenSeconds, 0); // reused
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(at(a.outputs[0], i), 0.0f);
    EXPECT_EQ(at(b.outputs[0], i), 0.0f) << "the reuse saw the first call's input";
  }
  // A global that starts elsewhere than zero is compiled again.
  const MlirKernel ones = kernelWithAGlobal("1.0");
  ASSERT_TRUE(jit.run(ones, o0.elements(), {first}, {t}, reuse).ok());
  const BackendRun again = jit.run(ones, o0.elements(), {second}, {t}, reuse);
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_GT(again.codegenSeconds, 0);
  EXPECT_EQ(at(again.outputs[0], 0), 1.0f);
}

TEST(MlirBackend, AnNpuKernelIsReusedAndGivesWhatItsFirstCallGave) {
  const Case c = generateCase(5, mlirPolicy());
  MlirEmitOptions emit;
  emit.style = MlirStyle::Npu;
  MlirKernel kernel;
  std::string error;
  ASSERT_TRUE(emitMlir(c, emit, kernel, error)) << error;
  ASSERT_NE(kernel.text.find("@npf_spad"), std::string::npos);
  Pipeline o0;
  ASSERT_TRUE(resolvePipeline("O0", MlirStyle::Npu, o0, error)) << error;
  const std::vector<TensorData> inputs = toTensorData(runReference(c).inputs);
  MlirJit jit;
  JitOptions reuse;
  reuse.reuseCompiled = true;
  const BackendRun first = jit.run(kernel, o0.elements(), inputs, c.outputTypes(), reuse);
  ASSERT_TRUE(first.ok()) << first.message;
  const BackendRun again = jit.run(kernel, o0.elements(), inputs, c.outputTypes(), reuse);
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_EQ(again.codegenSeconds, 0);
  ASSERT_EQ(again.outputs.size(), first.outputs.size());
  for (size_t k = 0; k < first.outputs.size(); ++k)
    EXPECT_EQ(again.outputs[k].bytes, first.outputs[k].bytes) << "output " << k;
}
