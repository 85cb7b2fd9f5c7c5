//===- tests/backend/PyTorchSimKernelTest.cpp - PyTorchSim's kernels, judged without it -===//
//
// On kernels recorded from PyTorchSim (tests/backend/pytorchsim/README.md):
// the generic form of its dma_start, upstream MLIR's verdict, the DMA
// decoder, and the footprint oracle on the trace, recorded and edited by
// hand. None of it needs PyTorchSim.
//
//===----------------------------------------------------------------------===//
#include "backend/pytorchsim/DmaStart.h"
#include "backend/pytorchsim/InductorIndex.h"
#include "backend/pytorchsim/KernelDmas.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "ir/FileText.h"
#include "oracles/DmaFootprint.h"
#include "oracles/DmaMap.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
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

/// An index tree as the adapter writes it.
InductorIndex indexOf(const std::string &json) {
  InductorIndex index;
  std::string error;
  EXPECT_TRUE(InductorIndex::parseText(json, index, error)) << error;
  return index;
}

// Inductor's integer functions as Python computes them: floor division and
// a remainder with the divisor's sign.
TEST(InductorIndex, EvaluatesInductorsFloorAndModAsPythonDoes) {
  // x.view(4,2,5,8).transpose(1,2).reshape(4,80): the element of [i0, i1].
  const InductorIndex view = indexOf(R"(["add", ["mul", 8, ["floordiv", "index1", 16]],
                 ["mul", 40, ["modular_indexing", "index1", 8, 2]],
                 ["modular_indexing", "index1", 1, 8], ["mul", 80, "index0"]])");
  EXPECT_EQ(view.evaluate({{"index0", 0}, {"index1", 8}}), 40);
  EXPECT_EQ(view.evaluate({{"index0", 2}, {"index1", 79}}), 160 + 32 + 40 + 7);
  EXPECT_TRUE(view.divides());
  EXPECT_EQ(view.variables(), (std::vector<std::string>{"index0", "index1"}));
  EXPECT_FALSE(view.evaluate({{"index0", 0}}).has_value()); // index1 has no value
  const InductorIndex negative = indexOf(R"(["add", ["floordiv", "x", 4], ["mod", "x", 3],
                                                ["modular_indexing", "x", 2, 5]])");
  // floor(-7/4) = -2, -7 mod 3 = 2, floor(-7/2) = -4 and -4 mod 5 = 1.
  EXPECT_EQ(negative.evaluate({{"x", -7}}), -2 + 2 + 1);
  EXPECT_FALSE(indexOf(R"(["floordiv", "x", 0])").evaluate({{"x", 1}}).has_value());
  EXPECT_FALSE(indexOf(R"(["mul", "x", "x"])").evaluate({{"x", INT64_MAX}}).has_value());
  EXPECT_FALSE(indexOf(R"(["add", ["mul", 64, "index0"], "index1"])").divides());
  InductorIndex unknown;
  std::string error;
  EXPECT_FALSE(InductorIndex::parseText(R"(["pow", "x", 2])", unknown, error));
  EXPECT_NE(error.find("pow"), std::string::npos) << error;
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
  const KernelDmas k = checkPyTorchSimKernel(kernelText("add"), {}, 1000);
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

/// A recorded run's DMA trace (its map judged where the adapter recorded
/// what Inductor asked).
DmaTrace traceOf(const std::string &name) {
  BackendRun run;
  std::string error;
  EXPECT_TRUE(readPyTorchSimRun(recorded(name), run, error)) << name << ": " << error;
  EXPECT_TRUE(run.ok()) << run.message;
  return run.dmaTrace;
}

// Kernels whose DMAs move what Inductor's index asks: an overhanging flat
// tile, and a broadcast (dram_stride [1, 0]) beside a 2-D load. Every DMA
// of theirs is judged, slot by slot.
TEST(PyTorchSimMap, RecordedRightMapsMoveWhatTheIndexAsksAtEverySlot) {
  for (const char *name : {"add", "bcast"}) {
    const DmaTrace t = traceOf(name);
    EXPECT_TRUE(t.wrongMaps.empty()) << name << ": " << checkDmaMap(t)->text;
    EXPECT_TRUE(t.unjudgedMaps.empty()) << name << ": " << t.unjudgedMaps.front();
    EXPECT_FALSE(checkDmaTrace(t)) << name;
  }
  // Kernels recorded without the asks are not judged, and say why.
  const DmaTrace mm = traceOf("mm");
  ASSERT_FALSE(mm.unjudgedMaps.empty());
  EXPECT_NE(mm.unjudgedMaps.front().find("no load or store of Inductor's asked for it"),
            std::string::npos)
      << mm.unjudgedMaps.front();
}

// Two strides of a 16x16 load swapped (by hand, in the kernel and in what
// PyTorchSim returned for it): every element still inside the tensor, the
// same set moved, so the footprint sees nothing; the map oracle names the
// DMA, the slot, the element moved and the one the index wants.
TEST(PyTorchSimMap, StridesSwappedInsideBoundsAreAWrongElementTheFootprintMisses) {
  const DmaTrace t = traceOf("bcast_swapped_strides");
  EXPECT_FALSE(checkDmaFootprint(t));
  const std::optional<FootprintFinding> f = checkDmaTrace(t);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->verdict, VerdictKind::WrongDmaElement);
  EXPECT_EQ(f->where, "memref.dma_start load | affine index");
  EXPECT_NE(f->text.find("kernel0.mlir DMA #0 (load of %in_ptr0) loads into tile slot [0, 1] "
                         "(index0=0, index1=1) element 16 of %in_ptr0, where the index asked "
                         "for, (index1 + 16*index0), wants element 1; 240 of 256 slots wrong"),
            std::string::npos)
      << f->text;
  EXPECT_NE(f->text.find("dram_stride=[1, 16]"), std::string::npos) << f->text;
  ASSERT_EQ(t.wrongMaps.size(), 1u); // the broadcast and the store are right
}

// The forks' own floor/mod bug (seed 003's class): an index with FloorDiv
// and ModularIndexing flattened to one affine stride per tile dimension.
// A transpose-and-reshape keeps its tile inside the tensor (the footprint
// saw nothing); a permuted reshape and a transposed reshape also read past
// their tensor's end, and are named by their map, their root.
TEST(PyTorchSimMap, TheForksFloorModStridesAreWrongElementsInBoundsOrOut) {
  const struct {
    const char *name;
    const char *first;
  } rows[] = {
      {"view", "loads into tile slot [0, 8] (index0=0, index1=8) element 8 of %in_ptr0, where "
               "the index asked for, (8*FloorDiv(index1, 16) + 40*ModularIndexing(index1, 8, 2) "
               "+ 80*index0 + ModularIndexing(index1, 1, 8)), wants element 40"},
      // x(64,8,8).permute(0,2,1).reshape(64,64): dram_stride [64, 8].
      {"permute_reshape", "loads into tile slot [0, 8] (index0=0, index1=8) element 64 of "
                          "%in_ptr0, where the index asked for, (8*ModularIndexing(index1, 1, "
                          "8) + 64*index0 + FloorDiv(index1, 8)), wants element 1; 3584 of "
                          "4096 slots wrong"},
      // x(3,4).t().reshape(2,6): a 2x4 tile with dram_stride [2, 4].
      {"t_reshape", "loads into tile slot [0, 3] (index0=0, index1=3) element 12 of %in_ptr0, "
                    "where the index asked for, (2*index0 + 4*ModularIndexing(index1, 1, 3) + "
                    "FloorDiv(index1, 3)), wants element 1; 2 of 12 slots wrong"}};
  for (const auto &row : rows) {
    const DmaTrace t = traceOf(row.name);
    const std::optional<FootprintFinding> f = checkDmaTrace(t);
    ASSERT_TRUE(f) << row.name;
    EXPECT_EQ(f->verdict, VerdictKind::WrongDmaElement) << row.name;
    EXPECT_EQ(f->where, "memref.dma_start load | floor/mod index") << row.name;
    EXPECT_NE(f->text.find(row.first), std::string::npos) << row.name << ": " << f->text;
  }
  EXPECT_FALSE(checkDmaFootprint(traceOf("view")));
  for (const char *name : {"permute_reshape", "t_reshape"}) {
    const std::optional<FootprintFinding> f = checkDmaFootprint(traceOf(name));
    ASSERT_TRUE(f) << name;
    EXPECT_EQ(f->verdict, VerdictKind::OutOfBoundsRead) << name;
  }
}

} // namespace
} // namespace npufuzz
