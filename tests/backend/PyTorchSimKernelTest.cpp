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
#include <numeric>

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

// The BMM template's W of one column: its K and N dimensions have one DRAM
// stride, and the loop stepping by the K tile is K's, so the tile moves
// the 15 rows of K, not the one of N.
TEST(PyTorchSimKernel, TwoTileDimensionsOfOneStrideAreClippedAtTheirOwnLoops) {
  const KernelDmas k = checkPyTorchSimKernel(kernelText("bmm_n1"));
  ASSERT_TRUE(k.decoded) << k.undecoded;
  ASSERT_GE(k.dmas.size(), 2u);
  const KernelDmas::Execution *w = nullptr;
  for (const KernelDmas::Execution &e : k.executions)
    if (!w && e.dma == 1)
      w = &e;
  ASSERT_TRUE(w);
  std::vector<int64_t> moved;
  for (size_t i = w->first; i < w->first + w->count; ++i)
    moved.push_back(k.moves[i].element);
  std::sort(moved.begin(), moved.end());
  std::vector<int64_t> rows(15);
  std::iota(rows.begin(), rows.end(), 0);
  EXPECT_EQ(moved, rows);
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
  t.dmas = {{"kernel0.mlir", 0, true, "%out_ptr0", "store", ""},
            {"kernel1.mlir", 0, false, "%in_ptr0", "load", ""},
            {"kernel1.mlir", 1, true, "%out_ptr0", "store", ""}};
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
/// The ops that computed what `kernel`'s first store DMA stores.
std::string firstStoreComputedBy(const std::string &kernel) {
  const KernelDmas k = checkPyTorchSimKernel(kernel);
  EXPECT_TRUE(k.decoded) << k.undecoded << k.rejection << k.unreadable;
  for (const KernelDmas::Dma &d : k.dmas)
    if (d.write)
      return d.computedBy;
  ADD_FAILURE() << "no store DMA";
  return "";
}

/// `x + y` and `(x + y) != y` in one kernel, as PyTorchSim v1.1.0 wrote
/// it; `storeSum` also stores the sum (as when every value is returned).
std::string neKernel(bool storeSum) {
  std::string k = R"(memref.global @buf0_spad : memref<64xf32, 1>
memref.global @buf1_spad : memref<64xf32, 1>
memref.global @buf2_spad : memref<64xi8, 1>
memref.global @buf3_spad : memref<64xf32, 1>
func.func @kernel(%in_ptr0: memref<64xf32>, %in_ptr1: memref<64xf32>, %out_ptr0: memref<64xi8>, %out_ptr1: memref<64xf32>)
{
    %const0 = arith.constant 0 : index
    %const1 = arith.constant 2 : index
    %const2 = arith.constant 3 : index
    %alloc0 = memref.alloc() : memref<1xi32> // 0
    %spad0 = memref.get_global @buf0_spad : memref<64xf32, 1>
    %spad1 = memref.get_global @buf1_spad : memref<64xf32, 1>
    %spad2 = memref.get_global @buf2_spad : memref<64xi8, 1>
    %spad3 = memref.get_global @buf3_spad : memref<64xf32, 1>
    affine.for %index0 = 0 to 64 step 64
    {
        memref.dma_start %in_ptr0[%index0], %spad0[%const0], %const1, %alloc0[%const0], %const0, %const1 : memref<64xf32>, memref<64xf32, 1>, memref<1xi32> {dram_stride=[1], sram_stride=[1], padding=0}
        memref.dma_start %in_ptr1[%index0], %spad1[%const0], %const1, %alloc0[%const0], %const0, %const1 : memref<64xf32>, memref<64xf32, 1>, memref<1xi32> {dram_stride=[1], sram_stride=[1], padding=0}
        affine.for %compute_idx = 0 to 2 step 2
        {
            %tmp1 = affine.vector_load %spad0[%compute_idx] : memref<64xf32, 1>, vector<2xf32>
            %tmp3 = affine.vector_load %spad1[%compute_idx] : memref<64xf32, 1>, vector<2xf32>
            %tmp4 = arith.addf %tmp1, %tmp3 : vector<2xf32>
            %tmp5 = arith.cmpf one, %tmp4, %tmp3 : vector<2xf32>
            %tmp6 = arith.extsi %tmp5 : vector<2xi1> to vector<2xi8>
            affine.vector_store %tmp6, %spad2[%compute_idx] : memref<64xi8, 1>, vector<2xi8>
            affine.vector_store %tmp4, %spad3[%compute_idx] : memref<64xf32, 1>, vector<2xf32>
        } {inner_loop=false}
        memref.dma_start %spad2[%const0], %out_ptr0[%index0], %const2, %alloc0[%const0], %const0, %const1 : memref<64xi8, 1>, memref<64xi8>, memref<1xi32> {dram_stride=[1], sram_stride=[1], padding=0}
STORE_SUM
    } {outer_loop=true}
    return
}
)";
  const std::string sum =
      R"(        memref.dma_start %spad3[%const0], %out_ptr1[%index0], %const2, %alloc0[%const0], %const0, %const1 : memref<64xf32, 1>, memref<64xf32>, memref<1xi32> {dram_stride=[1], sram_stride=[1], padding=0})";
  k.replace(k.find("STORE_SUM"), 9, storeSum ? sum : "");
  return k;
}

TEST(PyTorchSimStoredTile, AStoresDataPathNamesTheOpsThatComputedIt) {
  EXPECT_EQ(firstStoreComputedBy(kernelText("add")), "arith.addf f32");
  // A float `ne` as PyTorchSim lowers it, the add fused before it.
  EXPECT_EQ(firstStoreComputedBy(neKernel(false)),
            "arith.addf f32, arith.cmpf one f32, arith.extsi i1>i8");
  // The sum stored as an output of its own is judged there: the compare's
  // path starts at it.
  EXPECT_EQ(firstStoreComputedBy(neKernel(true)), "arith.cmpf one f32, arith.extsi i1>i8");
  // The template's matmul, its epilogue after it.
  const KernelDmas mm = checkPyTorchSimKernel(kernelText("mm"));
  std::vector<std::string> stored;
  for (const KernelDmas::Dma &d : mm.dmas)
    if (d.write)
      stored.push_back(d.computedBy);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_NE(stored[0].find("linalg.matmul"), std::string::npos) << stored[0];
  EXPECT_NE(stored[0].find("arith.maximumf f32"), std::string::npos) << stored[0];
  // relu's zero says it is one.
  EXPECT_NE(stored[0].find("arith.constant zero f32"), std::string::npos) << stored[0];
}

/// A copy of 16 elements in two tiles of `tile` (a scratchpad's shape,
/// `4x2`) over one variable, `index0` stepping by 8: the load's DMA as
/// `load` gives it its indices, tile type and DRAM strides, the store's
/// with `indices` and `strides`.
struct CopyKernel {
  std::string load, text;
};
CopyKernel copyKernel(const std::string &tile, const std::string &indices,
                      const std::string &loadStrides, const std::string &storeStrides,
                      const std::string &sramStrides) {
  const std::string type = "memref<" + tile + "xf32, 1>";
  auto dma = [&](const std::string &from, const std::string &to, const std::string &kind,
                 const std::string &types, const std::string &strides) {
    return "memref.dma_start " + from + ", " + to + ", " + kind +
           ", %alloc0[%const0], %const0, %const1 : " + types +
           ", memref<1xi32> {dram_stride=" + strides + ", sram_stride=" + sramStrides +
           ", padding=0}";
  };
  CopyKernel k;
  k.load = dma("%in_ptr0[%index0]", "%spad0[" + indices + "]", "%const1", "memref<16xf32>, " + type,
               loadStrides);
  k.text = "memref.global @buf0_spad : " + type +
           "\nfunc.func @kernel(%in_ptr0: memref<16xf32>, %out_ptr0: memref<16xf32>)\n{\n"
           "    %const0 = arith.constant 0 : index\n    %const1 = arith.constant 2 : index\n"
           "    %const2 = arith.constant 3 : index\n"
           "    %alloc0 = memref.alloc() : memref<1xi32> // 0\n"
           "    %spad0 = memref.get_global @buf0_spad : " +
           type + "\n    affine.for %index0 = 0 to 16 step 8\n    {\n        " + k.load +
           "\n        " +
           dma("%spad0[" + indices + "]", "%out_ptr0[%index0]", "%const2",
               type + ", memref<16xf32>", storeStrides) +
           "\n    } {outer_loop=true}\n    return\n}\n";
  return k;
}

/// A copy of 16 elements in two tiles of 4x2 over one variable (a tile
/// split by a floor division), the load's DRAM strides `strides` and the
/// index Inductor asked for it `index`.
KernelDmas splitTileCopy(const std::string &strides, const std::string &index) {
  const CopyKernel k = copyKernel("4x2", "%const0, %const0", strides, "[2, 1]", "[2, 1]");
  DmaAsk ask;
  ask.code = k.load;
  ask.index = indexOf(index);
  ask.why = std::string(kOtherRank) + " 2 over ['index0'] of the kernel's ['index0']";
  return checkPyTorchSimKernel(k.text, {ask});
}

// A wrong DRAM index (the base a DMA starts from), as an index printed
// wrong gives, is another root than wrong strides: its first slot is wrong.
TEST(PyTorchSimMap, AWrongBaseIsToldFromWrongStrides) {
  // The copy's tile one row of 8, judged slot by slot.
  const CopyKernel copy = copyKernel("8", "%const0", "[1]", "[1]", "[1]");
  const std::string &load = copy.load, &kernel = copy.text;
  KernelDmas k;
  auto judged = [&](const std::string &index) {
    DmaAsk ask;
    ask.code = load;
    ask.index = indexOf(index);
    ask.tileVariables = {"index0"};
    return checkPyTorchSimKernel(kernel, {ask});
  };
  EXPECT_EQ(judged(R"("index0")").dmas[0].wrongSlots, 0u);
  k = judged(R"(["add", "index0", 1])");
  EXPECT_EQ(k.dmas[0].wrongSlots, 16u);
  EXPECT_TRUE(k.dmas[0].baseWrong);
  DmaTrace t;
  t.dmas = {{"kernel0.mlir", 0, false, "%in_ptr0", "load", ""}};
  t.wrongMaps.push_back(
      {0, "index0 + 1", false, k.dmas[0].firstWrongSlot, "", 0, 1, 16, 16, false, true});
  const std::optional<FootprintFinding> f = checkDmaMap(t);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->where, "memref.dma_start load | affine index | first slot wrong");
}

TEST(PyTorchSimMap, ASplitTileIsJudgedByTheElementsItMoves) {
  // Right: each tile moves the 8 elements its points ask for.
  const KernelDmas right = splitTileCopy("[2, 1]", R"("index0")");
  ASSERT_TRUE(right.decoded) << right.undecoded;
  EXPECT_TRUE(right.dmas[0].judgedAsSet);
  EXPECT_TRUE(right.dmas[0].unjudged.empty()) << right.dmas[0].unjudged;
  EXPECT_EQ(right.dmas[0].slots, 16u);
  EXPECT_EQ(right.dmas[0].wrongSlots, 0u);
  // The same elements in another layout: not the set's to judge.
  EXPECT_EQ(splitTileCopy("[1, 4]", R"("index0")").dmas[0].wrongSlots, 0u);
  // A floor term dropped: each tile moves pairs of one row, half its
  // elements never.
  const KernelDmas dropped = splitTileCopy("[2, 0]", R"("index0")");
  EXPECT_GT(dropped.dmas[0].wrongSlots, 0u);
  EXPECT_TRUE(dropped.dmas[0].firstWrongSlot.empty()); // an element asked for is not moved
  EXPECT_EQ(dropped.dmas[0].wanted, 1);
  // Elements no point of the tile asks for (the index is 2*index0).
  const KernelDmas outside = splitTileCopy("[2, 1]", R"(["mul", 2, "index0"])");
  EXPECT_GT(outside.dmas[0].wrongSlots, 0u);
  ASSERT_EQ(outside.dmas[0].firstWrongSlot.size(), 2u);
  EXPECT_EQ(outside.dmas[0].moved, 1);
  DmaTrace t;
  t.dmas = {{"kernel0.mlir", 0, false, "%in_ptr0", "load", ""}};
  t.wrongMaps.push_back({0, "2*index0", false, outside.dmas[0].firstWrongSlot, "", 1, INT64_MIN,
                         outside.dmas[0].wrongSlots, outside.dmas[0].slots, true});
  const std::optional<FootprintFinding> f = checkDmaMap(t);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->where, "memref.dma_start load | affine index | tile of another rank");
}

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
  // The first slot moves the right element: only the strides are wrong.
  EXPECT_EQ(f->where, "memref.dma_start load | affine index | strides wrong");
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
    EXPECT_EQ(f->where, "memref.dma_start load | floor/mod index | strides wrong") << row.name;
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
