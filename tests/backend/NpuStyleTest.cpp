//===- tests/backend/NpuStyleTest.cpp - The npu style and its simulator ---===//
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "backend/runtime/KernelHeap.h"
#include "backend/runtime/NpuSim.h"
#include "generators/CaseGenerator.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/Differential.h"
#include "reference/Executor.h"

#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <regex>

using namespace npufuzz;

namespace {

RunConfig npuConfig(const std::string &pipeline) {
  RunConfig config;
  config.style = MlirStyle::Npu;
  config.pipeline = pipeline;
  return config;
}

Case parse(const std::string &text) {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCase(text, c, err)) << err.format("<test>");
  return c;
}

// --- The simulator ------------------------------------------------------------------

/// A scratchpad of `kSpad` bytes bound for the duration of a test.
class NpuSim : public ::testing::Test {
protected:
  static constexpr int64_t kSpad = 1024;
  void SetUp() override {
    resetSimulator();
    npf_sim_begin(spad_, kSpad);
    untouched_ = spad_[0];
  }
  void TearDown() override { resetSimulator(); }
  /// The fault message, or "" when none was recorded.
  static std::string fault() {
    std::string m;
    return takeSimulatorFault(m) ? m : "";
  }
  alignas(64) unsigned char spad_[kSpad] = {};
  unsigned char untouched_ = 0; ///< what a byte no transfer wrote holds
};

// Bound, the scratchpad holds the scratch poison, as every other temporary
// does: a tile read before anything was written there reads it.
TEST_F(NpuSim, BindingFillsTheScratchpadWithTheScratchPoison) {
  const uint32_t before = scratchPoisonPattern();
  setScratchPoison(0x01020304u);
  npf_sim_begin(spad_, kSpad);
  EXPECT_EQ(spad_[0], 0x04);
  EXPECT_EQ(spad_[1], 0x03);
  EXPECT_EQ(spad_[kSpad - 1], 0x01);
  setScratchPoison(before);
}

TEST_F(NpuSim, FiveDimDescriptorFaults) {
  std::vector<float> dram(64, 1.0f);
  npf_sim_dma(0, dram.data(), 64, 0, 0, 4, 5, 2, 2, 2, 2, 8, 4, 2, 1, 8, 4, 2, 1);
  const std::string m = fault();
  EXPECT_NE(m.find("descriptor has 5 dims"), std::string::npos) << m;
  EXPECT_NE(m.find("rank=5, sizes=[2,2,2,2], dram_strides=[8,4,2,1]"), std::string::npos) << m;
  EXPECT_EQ(spad_[0], untouched_) << "a faulting descriptor must not move data";
}

TEST_F(NpuSim, OutOfBoundsDramFaults) {
  std::vector<float> dram(64, 1.0f);
  // Rows 7 and 8 of an 8x8 buffer: row 8 is past the end.
  npf_sim_dma(0, dram.data(), 64, 56, 0, 4, 2, 2, 8, 1, 1, 8, 1, 0, 0, 8, 1, 0, 0);
  const std::string m = fault();
  EXPECT_NE(m.find("DRAM elements [56, 71] leave the buffer of 64"), std::string::npos) << m;
  EXPECT_NE(m.find("dir=dram->spad, rank=2, sizes=[2,8]"), std::string::npos) << m;
  EXPECT_NE(m.find("dram_offset=56, dram_extent=64"), std::string::npos) << m;
  EXPECT_EQ(spad_[0], untouched_);
}

TEST_F(NpuSim, ScratchpadOverflowFaults) {
  std::vector<float> dram(512, 1.0f);
  // 256 floats at byte 64 end at byte 1088 > 1024.
  npf_sim_dma(0, dram.data(), 512, 0, 64, 4, 1, 256, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0);
  const std::string m = fault();
  EXPECT_NE(m.find("scratchpad bytes [64, 1088) leave the capacity of 1024"), std::string::npos)
      << m;
  EXPECT_NE(m.find("spad_offset=64"), std::string::npos) << m;
}

TEST_F(NpuSim, MisalignedScratchpadOffsetFaults) {
  std::vector<float> dram(16, 1.0f);
  npf_sim_dma(1, dram.data(), 16, 0, 36, 4, 1, 4, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0);
  const std::string m = fault();
  EXPECT_NE(m.find("scratchpad offset is not a multiple of 32 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("dir=spad->dram, rank=1, sizes=[4]"), std::string::npos) << m;
  EXPECT_EQ(dram[0], 1.0f);
}

TEST_F(NpuSim, FaultHaltsLaterTransfers) {
  std::vector<int32_t> dram(8, 7);
  npf_sim_dma(0, dram.data(), 8, 0, 4, 4, 1, 8, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0); // misaligned
  npf_sim_dma(0, dram.data(), 8, 0, 0, 4, 1, 8, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0); // valid
  EXPECT_NE(fault(), "");
  EXPECT_EQ(spad_[0], untouched_);
  EXPECT_EQ(fault(), "") << "taking the fault clears it";
}

TEST_F(NpuSim, FourDimStridedCopyMovesExactlyTheBlock) {
  // DRAM is a 3x4x5x6 i32 tensor holding its linear index; copy the block
  // [1:3, 0:4:2, 1:4, 0:6:3] into a dense scratchpad tile at byte 96.
  std::vector<int32_t> dram(3 * 4 * 5 * 6);
  std::iota(dram.begin(), dram.end(), 0);
  std::memset(spad_, 0xEE, sizeof spad_);
  const int64_t off = 1 * 120 + 0 * 30 + 1 * 6 + 0;
  npf_sim_dma(0, dram.data(), dram.size(), off, 96, 4, 4, 2, 2, 3, 2, 120, 60, 6, 3, 12, 6, 2, 1);
  ASSERT_EQ(fault(), "");
  const auto *tile = reinterpret_cast<const int32_t *>(spad_ + 96);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 2; ++d)
          EXPECT_EQ(tile[a * 12 + b * 6 + c * 2 + d],
                    (1 + a) * 120 + (2 * b) * 30 + (1 + c) * 6 + 3 * d);
  // Nothing outside the 24 elements moved.
  EXPECT_EQ(spad_[95], 0xEE);
  EXPECT_EQ(spad_[96 + 24 * 4], 0xEE);
  // And back: write the tile to a zeroed DRAM at the same positions.
  std::vector<int32_t> back(dram.size(), 0);
  npf_sim_dma(1, back.data(), back.size(), off, 96, 4, 4, 2, 2, 3, 2, 120, 60, 6, 3, 12, 6, 2, 1);
  ASSERT_EQ(fault(), "");
  int64_t moved = 0;
  for (size_t i = 0; i < back.size(); ++i)
    if (back[i] != 0) {
      EXPECT_EQ(back[i], dram[i]);
      ++moved;
    }
  EXPECT_EQ(moved, 24);
}

// --- The lowering -----------------------------------------------------------------

TEST(NpuStyle, SeedCorpusRunsCleanAtO0AndO2) {
  MlirJit jit;
  for (const std::string &pipeline : {"O0", "O2"}) {
    for (const std::string &f : npufuzz::testing::corpusFiles("corpus/seeds")) {
      Case c;
      TextError err;
      ASSERT_TRUE(parseCaseFile(f, c, err)) << err.format(f);
      const CaseOutcome out = runCase(c, jit, npuConfig(pipeline));
      EXPECT_EQ(out.verdict, VerdictKind::Ok)
          << f << " at " << pipeline << ": " << out.summary << "\n"
          << out.run.message;
    }
  }
}

TEST(NpuStyle, GeneratedCasesRunCleanAtO0) {
  MlirJit jit;
  for (uint64_t seed = 0; seed < 250; ++seed) {
    const Case c = generateCase(seed, mlirPolicy());
    const CaseOutcome out = runCase(c, jit, npuConfig("O0"));
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << "seed " << seed << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}

// Seed 003: a 6-D value needs descriptors peeled to 4 dims; each peeled slice
// must land at its own scratchpad offset, aligned.
TEST(NpuStyle, SixDimViewIsPeeledIntoFourDimDescriptors) {
  const Case c = parse(R"(npufuzz-case 1
data seed=3 edge_rate=0
%x = input {fill=iota} : f32[3,5,2,3,2,7]
%t = transpose %x {perm=[5,4,3,2,1,0]} : f32[7,2,3,2,5,3]
%y = exp %t : f32[7,2,3,2,5,3]
return %y, %t
)");
  MlirKernel k;
  std::string unsupported;
  MlirEmitOptions options;
  options.style = MlirStyle::Npu;
  ASSERT_TRUE(emitMlir(c, options, k, unsupported)) << unsupported;
  EXPECT_NE(k.text.find("%peel"), std::string::npos) << k.text;
  MlirJit jit;
  for (const std::string &pipeline : {"O0", "O2"}) {
    const CaseOutcome out = runCase(c, jit, npuConfig(pipeline));
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << pipeline << ": " << out.summary << "\n"
                                            << out.run.message;
  }
}

// Compute touches only scratchpad tiles; DRAM is reached through DMA only.
// (A chain's scalar stores reach GM by design: no chains here.)
TEST(NpuStyle, ComputeReadsAndWritesOnlyTheScratchpad) {
  size_t accesses = 0;
  Policy policy = mlirPolicy();
  policy.chainRate = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const Case c = generateCase(seed, policy);
    MlirKernel k;
    std::string unsupported;
    MlirEmitOptions options;
    options.style = MlirStyle::Npu;
    ASSERT_TRUE(emitMlir(c, options, k, unsupported)) << "seed " << seed << ": " << unsupported;
    const std::regex access(
        R"((memref\.load|memref\.store|vector\.load|vector\.store)[^%]*%(\w+))");
    for (std::sregex_iterator it(k.text.begin(), k.text.end(), access), end; it != end; ++it) {
      std::string target = (*it)[2];
      if ((*it)[1].str().find("store") != std::string::npos) {
        // `store %value, %target[...]`: the second SSA name.
        const size_t at = it->position() + it->length();
        const size_t pct = k.text.find('%', at);
        target = k.text.substr(pct + 1, k.text.find('[', pct) - pct - 1);
      }
      EXPECT_EQ(target.rfind("tile", 0), 0u) << "seed " << seed << ": " << it->str();
      ++accesses;
    }
  }
  EXPECT_GT(accesses, 100u);
}

TEST(NpuStyle, LaneWidthIsAParameter) {
  MlirJit jit;
  Pipeline pipeline;
  std::string error;
  ASSERT_TRUE(resolvePipeline("O0", MlirStyle::Npu, pipeline, error)) << error;
  for (unsigned lanes : {4u, 8u, 32u}) {
    for (uint64_t seed = 0; seed < 25; ++seed) {
      const Case c = generateCase(seed, mlirPolicy());
      MlirKernel k;
      std::string unsupported;
      MlirEmitOptions options;
      options.style = MlirStyle::Npu;
      options.npuLanes = lanes;
      ASSERT_TRUE(emitMlir(c, options, k, unsupported)) << unsupported;
      const RefRun ref = runReference(c);
      ASSERT_TRUE(ref.ok()) << ref.error;
      std::vector<TensorData> inputs;
      for (const RefTensor &t : ref.inputs)
        inputs.push_back(toTensorData(t));
      std::vector<TensorType> outputTypes;
      for (ValueId v : c.outputs)
        outputTypes.push_back(c.typeOf(v));
      const BackendRun run = jit.run(k, pipeline.elements(), inputs, outputTypes, JitOptions());
      const Judgement j = judgeRun(c, ref, run);
      EXPECT_EQ(j.verdict, VerdictKind::Ok)
          << lanes << " lanes, seed " << seed << ": " << j.summary << "\n"
          << run.message;
    }
  }
}

// The JIT reports a fault the kernel's DMA engine recorded as a sim-fault.
TEST(NpuStyle, JitReportsSimulatorFaults) {
  MlirKernel k;
  k.text = R"(module {
  func.func private @npf_sim_dma(i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
  func.func @npf_kernel(%out0: memref<4xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c4 = arith.constant 4 : i64
    %a = memref.extract_aligned_pointer_as_index %out0 : memref<4xf32> -> index
    %a64 = arith.index_cast %a : index to i64
    %p = llvm.inttoptr %a64 : i64 to !llvm.ptr
    func.call @npf_sim_dma(%c1, %p, %c4, %c0, %c0, %c4, %c1, %c4, %c1, %c1, %c1, %c1, %c0, %c0, %c0, %c1, %c0, %c0, %c0) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
    return
  }
}
)";
  k.args = {{KernelArg::Kind::Output, 0, 0, 0}};
  Pipeline pipeline;
  std::string error;
  ASSERT_TRUE(resolvePipeline("O0", MlirStyle::Npu, pipeline, error)) << error;
  TensorType t;
  t.shape = {4};
  MlirJit jit;
  const BackendRun run = jit.run(k, pipeline.elements(), {}, {t}, JitOptions());
  EXPECT_EQ(run.status, BackendRun::Status::SimulatorFault);
  EXPECT_NE(run.message.find("no scratchpad bound"), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("dir=spad->dram, rank=1, sizes=[4]"), std::string::npos)
      << run.message;
}

} // namespace
