//===- tests/backend/PyTorchSimKernelTest.cpp - PyTorchSim's kernels, judged without it -===//
//
// On kernels recorded from PyTorchSim (tests/backend/pytorchsim/README.md):
// the generic form of its dma_start, upstream MLIR's verdict, the DMA
// decoder, and the footprint oracle on the trace, recorded and edited by
// hand. None of it needs PyTorchSim.
//
//===----------------------------------------------------------------------===//
#include "backend/pytorchsim/DmaStart.h"
#include "backend/pytorchsim/KernelDmas.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "ir/FileText.h"
#include "oracles/DmaFootprint.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace npufuzz {
namespace {

std::string recorded(const std::string &name) {
  return testing::sourceDir() + "/tests/backend/pytorchsim/" + name;
}

std::string kernelText(const std::string &name) {
  std::string text, error;
  EXPECT_TRUE(readFileBytes(recorded(name) + "/kernel0.mlir", text, error, 1 << 20)) << error;
  return text;
}

size_t lines(const std::string &text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(PyTorchSimDmaStart, GenericFormKeepsEveryOperandTypeAndAttribute) {
  const std::string kernel =
      "    memref.dma_start %in_ptr0[%apply0], %spad0[%c0, %c0], %c2, %alloc0[%c0], %c1, %c2 : "
      "memref<320xf32>, memref<8x40xf32, 1>, memref<1xi32> {dram_stride=[40, 1], "
      "sram_stride=[40, 1], padding=0}\n";
  std::string out, error;
  ASSERT_TRUE(genericDmaStarts(kernel, out, error)) << error;
  EXPECT_EQ(out, "    \"memref.dma_start\"(%in_ptr0, %apply0, %spad0, %c0, %c0, %c2, %alloc0, %c0, "
                 "%c1, %c2) {dram_stride=[40, 1], sram_stride=[40, 1], padding=0} : "
                 "(memref<320xf32>, index, memref<8x40xf32, 1>, index, index, index, "
                 "memref<1xi32>, index, index, index) -> ()\n");
}

TEST(PyTorchSimDmaStart, AnAttributeDictionaryOnTheNextLineKeepsLaterLinesWhereTheyWere) {
  const std::string mm = kernelText("mm");
  std::string out, error;
  ASSERT_TRUE(genericDmaStarts(mm, out, error)) << error;
  EXPECT_EQ(lines(out), lines(mm));
  EXPECT_EQ(out.find("memref.dma_start %"), std::string::npos);
  EXPECT_NE(out.find("subtile_size=[32, 64], async=1} : (memref<2048xf32>, index, "
                     "memref<32x64xf32, 1>, index, index, index, memref<1xi32>, index, index, "
                     "index) -> ()"),
            std::string::npos);
}

TEST(PyTorchSimDmaStart, ADmaStartOutOfItsFormIsNamed) {
  std::string out, error;
  EXPECT_FALSE(genericDmaStarts("  memref.dma_start %a[%i], %b[%j], %n, %tag[%k] : memref<4xf32>, "
                                "memref<4xf32, 1>, memref<1xi32>\n",
                                out, error));
  EXPECT_NE(error.find("not PyTorchSim's dma_start form"), std::string::npos) << error;
  // A comment that names the op is not the op.
  ASSERT_TRUE(genericDmaStarts("// memref.dma_start is PyTorchSim's\n", out, error));
  EXPECT_EQ(out, "// memref.dma_start is PyTorchSim's\n");
}

TEST(PyTorchSimKernel, UpstreamMlirVerifiesTheRecordedKernels) {
  for (const char *name : {"add", "view", "mm"}) {
    const KernelDmas k = checkPyTorchSimKernel(kernelText(name));
    EXPECT_TRUE(k.verified) << name << ": " << k.diagnostic;
    EXPECT_TRUE(k.decoded) << name << ": " << k.undecoded;
  }
}

TEST(PyTorchSimKernel, SeedZerosCompareOfI64AndIndexVectorsIsRejectedWithItsOp) {
  const KernelDmas k = checkPyTorchSimKernel(kernelText("moe"));
  ASSERT_FALSE(k.verified);
  EXPECT_EQ(k.rejection.rfind("arith.cmpi: ", 0), 0u) << k.rejection;
  EXPECT_NE(k.rejection.find("expects different type than prior uses"), std::string::npos);
  // No SSA name or number of this kernel in what signs it.
  EXPECT_EQ(k.rejection.find("tmp"), std::string::npos) << k.rejection;
  EXPECT_NE(k.diagnostic.find("arith.cmpi eq"), std::string::npos) << k.diagnostic;
}

TEST(PyTorchSimKernel, ATileOverhangingItsLoopIsClippedThere) {
  // 4000 elements in tiles of 512: the eighth tile holds 416.
  const KernelDmas k = checkPyTorchSimKernel(kernelText("add"));
  ASSERT_TRUE(k.decoded) << k.undecoded;
  ASSERT_EQ(k.dmas.size(), 3u);
  std::map<uint32_t, std::vector<int64_t>> moved;
  for (const KernelDmas::Move &m : k.moves)
    moved[m.dma].push_back(m.element);
  for (uint32_t d = 0; d < 3; ++d) {
    std::vector<int64_t> elements = moved[d];
    ASSERT_EQ(elements.size(), 4000u) << "DMA " << d;
    std::sort(elements.begin(), elements.end());
    EXPECT_EQ(elements.front(), 0);
    EXPECT_EQ(elements.back(), 3999);
    EXPECT_EQ(std::adjacent_find(elements.begin(), elements.end()), elements.end());
  }
  EXPECT_FALSE(k.dmas[0].write);
  EXPECT_TRUE(k.dmas[2].write);
  EXPECT_EQ(k.arguments[2].name, "%out_ptr0");
  EXPECT_EQ(k.arguments[2].elements, 4000);
  EXPECT_EQ(k.arguments[2].elementBytes, 4u);
}

TEST(PyTorchSimKernel, AKernelThatMovesMoreThanItsBudgetIsLeftUndecoded) {
  const KernelDmas k = checkPyTorchSimKernel(kernelText("add"), 1000);
  EXPECT_TRUE(k.verified);
  EXPECT_FALSE(k.decoded);
  EXPECT_TRUE(k.moves.empty());
  EXPECT_NE(k.undecoded.find("more than 1000"), std::string::npos) << k.undecoded;
}

/// The footprint oracle's verdict on a recorded run's directory.
std::optional<FootprintFinding> footprint(const std::string &name) {
  BackendRun run;
  std::string error;
  EXPECT_TRUE(readPyTorchSimRun(recorded(name), run, error)) << name << ": " << error;
  EXPECT_TRUE(run.ok()) << run.message;
  return checkDmaFootprint(run.dmaTrace);
}

// Among them a tile inside more loops than it has dimensions, one of them
// broadcast: each dimension is clipped at the loop whose step moves the
// index by its stride (a first decoder tied them to the loops in order, and
// called the overhang of `s` an out-of-bounds read).
TEST(PyTorchSimFootprint, RecordedKernelsTouchWhatTheyShould) {
  for (const char *name : {"add", "view", "mm", "mm_prologue_broadcast"}) {
    const std::optional<FootprintFinding> f = footprint(name);
    EXPECT_FALSE(f) << name << ": " << f->text;
  }
}

TEST(PyTorchSimFootprint, ADroppedTailLeavesTheOutputsLastElementsUnwritten) {
  const std::optional<FootprintFinding> f = footprint("add_dropped_tail");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->verdict, VerdictKind::UnwrittenOutput);
  EXPECT_NE(f->text.find("416 of 4000 elements never written"), std::string::npos) << f->text;
  EXPECT_NE(f->text.find("first [35, 84]"), std::string::npos) << f->text;
  EXPECT_EQ(f->where, "memref.dma_start store | output");
}

TEST(PyTorchSimFootprint, AWrongStrideLeavesElementsUnwritten) {
  const std::optional<FootprintFinding> f = footprint("mm_wrong_stride");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->verdict, VerdictKind::UnwrittenOutput);
  EXPECT_NE(f->text.find("output 0: 31 of 1536 elements"), std::string::npos) << f->text;
}

TEST(PyTorchSimFootprint, AStridePastTheEndIsAnOutOfBoundsWriteNamingTheDma) {
  const std::optional<FootprintFinding> f = footprint("mm_stride_past_end");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->verdict, VerdictKind::OutOfBoundsWrite);
  EXPECT_NE(f->text.find("kernel0.mlir DMA #2 (store of %out_ptr1) writes element 1536 of "
                         "%out_ptr1, which has 1536"),
            std::string::npos)
      << f->text;
  EXPECT_EQ(f->where, "memref.dma_start store | output");
}

TEST(PyTorchSimFootprint, ARejectedKernelEndsTheRunAsAVerifierError) {
  BackendRun run;
  std::string error;
  ASSERT_TRUE(readPyTorchSimRun(recorded("moe"), run, error)) << error;
  EXPECT_EQ(run.status, BackendRun::Status::VerifierError);
  EXPECT_EQ(run.message.find('\n'), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("a kernel of PyTorchSim's: arith.cmpi: "), std::string::npos)
      << run.message;
  EXPECT_EQ(run.details.rfind("kernel0.mlir:6", 0), 0u) << run.details;
  EXPECT_NE(run.details.find("memref.dma_start"), std::string::npos);
}

/// A trace of two kernels over one temporary: the first stores `stored`
/// elements of it, the second loads 8.
DmaTrace temporaryTrace(int64_t stored) {
  DmaTrace t;
  t.storages = {{DmaTrace::Storage::Role::Input, 0, 32},
                {DmaTrace::Storage::Role::Temporary, -1, 32},
                {DmaTrace::Storage::Role::Output, 0, 32}};
  t.dmas = {{"kernel0.mlir", 0, true, "%out_ptr0", "store"},
            {"kernel1.mlir", 0, false, "%in_ptr0", "load"},
            {"kernel1.mlir", 1, true, "%out_ptr0", "store"}};
  for (int64_t e = 0; e < stored; ++e)
    t.accesses.push_back({0, 1, e * 4, e, 8, 4});
  for (int64_t e = 0; e < 8; ++e)
    t.accesses.push_back({1, 1, e * 4, e, 8, 4});
  for (int64_t e = 0; e < 8; ++e)
    t.accesses.push_back({2, 2, e * 4, e, 8, 4});
  t.outputs = {{2, 0, 4, {2, 4}, {4, 1}}};
  return t;
}

TEST(PyTorchSimFootprint, ALoadOfATemporaryNobodyWroteIsAnUninitializedRead) {
  EXPECT_FALSE(checkDmaFootprint(temporaryTrace(8)));
  const std::optional<FootprintFinding> f = checkDmaFootprint(temporaryTrace(6));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->verdict, VerdictKind::UninitializedRead);
  EXPECT_NE(f->text.find("kernel1.mlir DMA #0 (load of %in_ptr0) reads element 6"),
            std::string::npos)
      << f->text;
  EXPECT_EQ(f->where, "memref.dma_start load | temporary");
  // With a kernel undecoded, what it may have written is unknown.
  DmaTrace partial = temporaryTrace(6);
  partial.undecoded.push_back("kernel2.mlir: a DMA under scf.if");
  EXPECT_FALSE(checkDmaFootprint(partial));
}

} // namespace
} // namespace npufuzz
