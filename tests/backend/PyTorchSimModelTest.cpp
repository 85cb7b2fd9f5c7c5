//===- tests/backend/PyTorchSimModelTest.cpp - PyTorchSim's kernels on the NPU model -===//
//
// Kernels recorded from PyTorchSim (tests/backend/pytorchsim/README.md) run
// on npufuzz's model of its NPU (backend/pytorchsim/NpuModel.h), with no
// PyTorchSim: the values they compute against the program's, and a wrong
// compute op planted in one of them, which only its values show.
//
//===----------------------------------------------------------------------===//
#include "backend/pytorchsim/LanePlacement.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "ir/FileText.h"
#include "oracles/DmaMap.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace npufuzz {
namespace {

namespace fs = std::filesystem;

std::string recorded(const std::string &name) {
  return testing::sourceDir() + "/tests/backend/pytorchsim/" + name;
}

/// An f32 input of `shape` whose element i is i * 0.25 - 7 (exact in f32).
TensorData input(std::vector<int64_t> shape) {
  TensorData t;
  t.type = {DType::F32, shape, std::nullopt};
  const int64_t n = t.type.numElements();
  t.bytes.resize(n * 4);
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * 0.25f - 7.0f;
    std::memcpy(t.bytes.data() + i * 4, &v, 4);
  }
  return t;
}

float at(const TensorData &t, int64_t i) {
  float v;
  std::memcpy(&v, t.bytes.data() + i * 4, 4);
  return v;
}

/// A copy of recorded kernel `name` in a directory `copy` with `from`
/// replaced by `to` and `declarations` put before the kernel; empty when
/// `from` is not there.
std::string edited(const std::string &name, const std::string &copy, const std::string &from,
                   const std::string &to, const std::string &declarations = "") {
  std::string kernel, json, error;
  EXPECT_TRUE(readFileBytes(recorded(name) + "/kernel0.mlir", kernel, error, 1 << 20));
  EXPECT_TRUE(readFileBytes(recorded(name) + "/pytorchsim.json", json, error, 1 << 20));
  const size_t at = kernel.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos)
    return "";
  kernel.replace(at, from.size(), to);
  const fs::path dir = fs::path(::testing::TempDir()) / copy;
  fs::create_directories(dir);
  std::ofstream(dir / "kernel0.mlir") << declarations << kernel;
  std::ofstream(dir / "pytorchsim.json") << json;
  return dir.string();
}

/// A copy of the recorded broadcast add (`bcast`) in a directory `name`
/// with its `%tmp2 = arith.addf ...` line replaced by `replacement` and
/// `declarations` put before the kernel; empty when the add is not there.
std::string plantedInBroadcastAdd(const std::string &name, const std::string &replacement,
                                  const std::string &declarations = "") {
  return edited("bcast", name, "%tmp2 = arith.addf %tmp0, %tmp1 : vector<16xf32>", replacement,
                declarations);
}

/// The recorded run of `dir` with `inputs`, its values from the model.
BackendRun modelled(const std::string &dir, const std::vector<TensorData> &inputs,
                    const std::vector<TensorType> &outputs) {
  BackendRun run;
  std::string error;
  EXPECT_TRUE(readPyTorchSimRun(dir, run, error, &inputs, &outputs)) << dir << ": " << error;
  EXPECT_TRUE(run.ok()) << run.message;
  EXPECT_TRUE(run.valuesComputed) << run.valuesWhyNot;
  EXPECT_FALSE(checkDmaTrace(run.dmaTrace).has_value());
  return run;
}

TEST(PyTorchSimModel, ATileIsPlacedAcrossTheLanesAsSpikesDmaEnginePlacesIt) {
  // A 16x16 tile split along its rows two at a time: eight lanes, each a
  // 2x16 share; element (5, 3) is lane 2's, at offset 1 * 16 + 3.
  LanePlacement p;
  std::string why;
  ASSERT_TRUE(placeTile({16, 16}, {16, 1}, 0, 2, kPyTorchSimLanes, p, why)) << why;
  EXPECT_EQ(p.usedLanes, 8);
  EXPECT_EQ(p.laneOf[5 * 16 + 3], 2);
  EXPECT_EQ(p.spadOf[5 * 16 + 3], 19);
  EXPECT_EQ(p.laneShare.size(), 32u);
  // More rows than the lanes take at once: each lane's share comes back
  // once more, after the first round (outer loop) of 128 lanes.
  ASSERT_TRUE(placeTile({512}, {1}, 0, 2, kPyTorchSimLanes, p, why)) << why;
  EXPECT_EQ(p.usedLanes, 128);
  EXPECT_EQ(p.laneOf[259], 1);
  EXPECT_EQ(p.spadOf[259], 3);
  // Ten elements in blocks of four: the third lane's block runs past the
  // tile, where Spike reads an address it never set.
  EXPECT_FALSE(placeTile({10}, {1}, 0, 4, kPyTorchSimLanes, p, why));
  EXPECT_NE(why.find("not a whole number of blocks"), std::string::npos) << why;
}

TEST(PyTorchSimModel, RecordedKernelsComputeWhatTheirProgramsDo) {
  {
    // x + y, f32 40x100: a flat 512-element tile whose last one overhangs.
    const std::vector<TensorData> in = {input({40, 100}), input({40, 100})};
    const BackendRun run = modelled(recorded("add"), in, {{DType::F32, {40, 100}, std::nullopt}});
    ASSERT_EQ(run.outputs.size(), 1u);
    for (int64_t i = 0; i < 4000; ++i)
      ASSERT_EQ(at(run.outputs[0], i), at(in[0], i) + at(in[1], i)) << i;
  }
  {
    // x + y, f32 16x16 + 16x1: the broadcast load's lanes.
    const std::vector<TensorData> in = {input({16, 16}), input({16, 1})};
    const BackendRun run = modelled(recorded("bcast"), in, {{DType::F32, {16, 16}, std::nullopt}});
    ASSERT_EQ(run.outputs.size(), 1u);
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t c = 0; c < 16; ++c)
        ASSERT_EQ(at(run.outputs[0], r * 16 + c), at(in[0], r * 16 + c) + at(in[1], r))
            << r << "," << c;
  }
}

TEST(PyTorchSimModel, TheForksWrongFloorModMapGivesWrongValuesWhereItsSlotsAreWrong) {
  // x.view(4,2,5,8).transpose(1,2).reshape(4,80) * 2, f32 8x40: the map
  // oracle names its load (README.md); the model computes what that load
  // puts in the tile.
  const std::vector<TensorData> in = {input({8, 40})};
  const std::vector<TensorType> out = {{DType::F32, {4, 80}, std::nullopt}};
  BackendRun run;
  std::string error;
  ASSERT_TRUE(readPyTorchSimRun(recorded("view"), run, error, &in, &out)) << error;
  ASSERT_TRUE(run.valuesComputed) << run.valuesWhyNot;
  ASSERT_EQ(run.dmaTrace.wrongMaps.size(), 1u);
  int64_t wrong = 0;
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t d = 0; d < 8; ++d) {
          const int64_t o = a * 80 + b * 16 + c * 8 + d, x = a * 80 + c * 40 + b * 8 + d;
          wrong += at(run.outputs[0], o) != at(in[0], x) * 2;
        }
  EXPECT_GT(wrong, 0);
  EXPECT_EQ(static_cast<uint64_t>(wrong), run.dmaTrace.wrongMaps[0].wrongSlots);
}

TEST(PyTorchSimModel, AWrongComputeOpPlantedInARecordedKernelIsAWrongValue) {
  // The broadcast add with its addf made a subf: every DMA still moves
  // what Inductor asked for, so only the values can show it.
  const std::string dir = plantedInBroadcastAdd("pytorchsim-planted-subf",
                                                "%tmp2 = arith.subf %tmp0, %tmp1 : vector<16xf32>");
  ASSERT_FALSE(dir.empty());
  const std::vector<TensorData> in = {input({16, 16}), input({16, 1})};
  const BackendRun run = modelled(dir, in, {{DType::F32, {16, 16}, std::nullopt}});
  ASSERT_EQ(run.outputs.size(), 1u);
  int64_t wrong = 0;
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 16; ++c)
      wrong += at(run.outputs[0], r * 16 + c) != at(in[0], r * 16 + c) + at(in[1], r);
  EXPECT_EQ(wrong, 256); // y is never 0, so x - y is never x + y
}

TEST(PyTorchSimModel, AFloatConvertedToAnIntSaturatesAsRiscVsConversionsDo) {
  // The broadcast add's sum through i32 and back (fptosi, sitofp): RISC-V's
  // vfcvt.rtz.x.f.v saturates and takes NaN to the maximum, where the host
  // would give INT_MIN.
  const std::string replacement =
      ("%tmp2s = arith.addf %tmp0, %tmp1 : vector<16xf32>\n"
       "                %tmp2i = arith.fptosi %tmp2s : vector<16xf32> to vector<16xi32>\n"
       "                %tmp2 = arith.sitofp %tmp2i : vector<16xi32> to vector<16xf32>");
  const std::string dir = plantedInBroadcastAdd("pytorchsim-saturating-cast", replacement);
  ASSERT_FALSE(dir.empty());
  std::vector<TensorData> in = {input({16, 16}), input({16, 1})};
  const float big = 3e9f, nan = std::nanf(""), low = -3e9f;
  std::memcpy(in[0].bytes.data() + 0 * 4, &big, 4);
  std::memcpy(in[0].bytes.data() + 1 * 4, &nan, 4);
  std::memcpy(in[0].bytes.data() + 2 * 4, &low, 4);
  const BackendRun run = modelled(dir, in, {{DType::F32, {16, 16}, std::nullopt}});
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(at(run.outputs[0], 0), 2147483648.0f);
  EXPECT_EQ(at(run.outputs[0], 1), 2147483648.0f);
  EXPECT_EQ(at(run.outputs[0], 2), -2147483648.0f);
  EXPECT_EQ(at(run.outputs[0], 3), std::trunc(at(in[0], 3) + at(in[1], 0)));
}

TEST(PyTorchSimModel, AnIntegerDivisionNeverTrapsAndGivesRiscVsResults) {
  // floor(x / y) + rem(x, y) / 2 over ints: the host's idiv traps on a zero
  // divisor and on INT_MIN / -1, where RISC-V's div gives -1 and INT_MIN
  // and its rem the dividend and 0.
  const std::string v = " : vector<16xi32>";
  const std::string replacement = ("%a = arith.fptosi %tmp0 : vector<16xf32> to vector<16xi32>\n"
                                   "%b = arith.fptosi %tmp1 : vector<16xf32> to vector<16xi32>\n"
                                   "%q = arith.floordivsi %a, %b" +
                                   v +
                                   "\n"
                                   "%r = arith.remsi %a, %b" +
                                   v +
                                   "\n"
                                   "%qf = arith.sitofp %q : vector<16xi32> to vector<16xf32>\n"
                                   "%rf = arith.sitofp %r : vector<16xi32> to vector<16xf32>\n"
                                   "%half = arith.constant dense<0.5> : vector<16xf32>\n"
                                   "%rh = arith.mulf %rf, %half : vector<16xf32>\n"
                                   "%tmp2 = arith.addf %qf, %rh : vector<16xf32>");
  const std::string dir = plantedInBroadcastAdd("pytorchsim-riscv-division", replacement);
  ASSERT_FALSE(dir.empty());
  std::vector<TensorData> in = {input({16, 16}), input({16, 1})};
  auto set = [](TensorData &t, int64_t i, float v) { std::memcpy(t.bytes.data() + i * 4, &v, 4); };
  set(in[0], 0, -3e9f); // saturates to INT_MIN
  set(in[1], 0, -1.0f);
  set(in[0], 16, 5.0f);
  set(in[1], 1, 0.0f);
  set(in[0], 32, 7.0f);
  set(in[0], 33, -7.0f);
  set(in[1], 2, 2.0f);
  const BackendRun run = modelled(dir, in, {{DType::F32, {16, 16}, std::nullopt}});
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(at(run.outputs[0], 0), -2147483648.0f); // INT_MIN / -1: INT_MIN, rem 0
  EXPECT_EQ(at(run.outputs[0], 16), 1.5f);          // 5 / 0: -1, rem 5
  EXPECT_EQ(at(run.outputs[0], 32), 3.5f);          // 7 / 2: 3, rem 1
  EXPECT_EQ(at(run.outputs[0], 33), -4.5f);         // -7 / 2: floor -4, rem -1
}

TEST(PyTorchSimModel, AModelRunThatDiesLeavesTheValuesUncomputedAndTheProcessAlive) {
  // The broadcast add with a call of abort() planted in its compute loop:
  // the model's run dies of SIGABRT in its own process; this one goes on.
  const std::string replacement =
      ("func.call @abort() : () -> ()\n%tmp2 = arith.addf %tmp0, %tmp1 : vector<16xf32>");
  const std::string dir =
      plantedInBroadcastAdd("pytorchsim-model-dies", replacement, "func.func private @abort()\n");
  ASSERT_FALSE(dir.empty());
  const std::vector<TensorData> in = {input({16, 16}), input({16, 1})};
  const std::vector<TensorType> out = {{DType::F32, {16, 16}, std::nullopt}};
  BackendRun run;
  std::string error;
  ASSERT_TRUE(readPyTorchSimRun(dir, run, error, &in, &out)) << error;
  EXPECT_TRUE(run.ok()) << run.message;
  EXPECT_FALSE(run.valuesComputed);
  EXPECT_NE(run.valuesWhyNot.find("died of signal 6"), std::string::npos) << run.valuesWhyNot;
}

/// Element (i, j) of a @ b (m x k, k x n, row-major), in double.
double product(const TensorData &a, const TensorData &b, int64_t k, int64_t n, int64_t i,
               int64_t j) {
  double sum = 0;
  for (int64_t l = 0; l < k; ++l)
    sum += static_cast<double>(at(a, i * k + l)) * at(b, l * n + j);
  return sum;
}

TEST(PyTorchSimModel, ATemplatesMatmulRunsOnTheSystolicArrayAcrossEveryLane) {
  // relu(x @ w), 32x64 @ 64x48: the GEMM template's tiles are split by
  // column over the lanes, so each of Y's columns needs every lane's X; its
  // epilogue reads Y on each lane.
  const std::vector<TensorData> in = {input({32, 64}), input({64, 48})};
  const std::vector<TensorType> out = {{DType::F32, {32, 48}, std::nullopt}};
  const BackendRun run = modelled(recorded("mm"), in, out);
  ASSERT_EQ(run.outputs.size(), 1u);
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 48; ++j) {
      const double want = std::max(0.0, product(in[0], in[1], 64, 48, i, j));
      ASSERT_NEAR(at(run.outputs[0], i * 48 + j), want, 1e-5 * std::max(1.0, std::abs(want)))
          << i << ", " << j;
    }
  // (x + s) @ w, 3x4 (+ 3x1) @ 4x47: the prologue adds on each lane between
  // the DMAs, and the 8x8 tiles overhang the 3x4 operands.
  const std::vector<TensorData> pin = {input({3, 4}), input({3, 1}), input({4, 47})};
  // It returns its inputs, x + s and the product.
  const BackendRun fused = modelled(recorded("mm_prologue_broadcast"), pin,
                                    {{DType::F32, {3, 4}, std::nullopt},
                                     {DType::F32, {3, 1}, std::nullopt},
                                     {DType::F32, {3, 4}, std::nullopt},
                                     {DType::F32, {4, 47}, std::nullopt},
                                     {DType::F32, {3, 47}, std::nullopt}});
  ASSERT_EQ(fused.outputs.size(), 5u);
  TensorData sum = input({3, 4});
  for (int64_t i = 0; i < 12; ++i) {
    const float v = at(pin[0], i) + at(pin[1], i / 4);
    std::memcpy(sum.bytes.data() + i * 4, &v, 4);
  }
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 47; ++j)
      ASSERT_NEAR(at(fused.outputs[4], i * 47 + j), product(sum, pin[2], 4, 47, i, j), 1e-3)
          << i << ", " << j;
}

TEST(PyTorchSimModel, ATemplatesMatmulReadsItsOperandsWhereTheirDmasPlacedThem) {
  // The weight's DMA split over the lanes by row, not by column: the array
  // reads lane j as W's column j, so the values are wrong though every DMA
  // moves the right elements.
  const std::string dir = edited("mm", "pytorchsim-mm-weight-split-by-row",
                                 "%t_alloc1[%t_const0], %t_const1, %t_const1 : memref<3072xf32>",
                                 "%t_alloc1[%t_const0], %t_const0, %t_const1 : memref<3072xf32>");
  ASSERT_FALSE(dir.empty());
  const std::vector<TensorData> in = {input({32, 64}), input({64, 48})};
  const BackendRun run = modelled(dir, in, {{DType::F32, {32, 48}, std::nullopt}});
  ASSERT_EQ(run.outputs.size(), 1u);
  int wrong = 0;
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 48; ++j) {
      const double want = std::max(0.0, product(in[0], in[1], 64, 48, i, j));
      wrong += std::abs(at(run.outputs[0], i * 48 + j) - want) > 1e-3 * std::max(1.0, want);
    }
  EXPECT_GT(wrong, 32 * 48 / 2);
}

} // namespace
} // namespace npufuzz
