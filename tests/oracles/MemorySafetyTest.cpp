//===- tests/oracles/MemorySafetyTest.cpp - Accesses outside buffers and regions ===//
//
// Each memory-safety verdict alone: a write past a buffer changes its
// redzone (out-of-bounds-write), a read past one reads the poison the same
// way every run, a bounds-checked run names the access
// (out-of-bounds-read/-write), and an output element outside the valid
// shape that changed is an out-of-region-write.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/LoweringPlan.h"
#include "backend/runtime/KernelHeap.h"
#include "backend/runtime/Redzone.h"
#include "oracles/Differential.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/NondeterminismOracle.h"
#include "oracles/PoisonOracle.h"
#include "oracles/ValidRegion.h"

#include "tests/oracles/OracleTestSupport.h"

#include <functional>

using namespace npufuzz;
using namespace npufuzz::testing;

namespace {
const char *const kStorePastEnd = "func.func(npufuzz-test-store-past-end)";
const char *const kLoadPastEnd = "func.func(npufuzz-test-load-past-end)";

/// One input through exp: its output is a temporary copied to the output.
const char *const kExp = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,8]
%1 = exp %0 : f32[4,8]
return %1
)";

/// An output whose valid shape is smaller than its tile.
const char *const kValidExp = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,8]{valid=2x3}
%1 = exp %0 : f32[4,8]{valid=2x3}
return %1
)";

const MlirStyle kStyles[] = {MlirStyle::Affine, MlirStyle::Tensor, MlirStyle::Npu};

/// The test plugin's two planted mask faults.
const char *const kMaskFaults[] = {"func.func(npufuzz-test-long-mask)",
                                   "func.func(npufuzz-test-drop-write-mask)"};

/// The first lowering seed whose plan satisfies `taken`.
std::optional<uint64_t> loweringSeedWhere(const std::function<bool(const LoweringPlan &)> &taken) {
  for (uint64_t s = 0; s < 64; ++s)
    if (taken(LoweringPlan::draw(s)))
      return s;
  return std::nullopt;
}

RunConfig boundsChecked(const std::string &pipeline) {
  RunConfig config = withPipeline(pipeline);
  config.jit.boundsCheck = true;
  return config;
}
} // namespace

TEST(Redzone, AWritePastEitherEndIsFoundWithItsDistance) {
  GuardedBuffer past(100, 0x99999999u);
  EXPECT_FALSE(past.check("b", "output"));
  past.data()[100 + 5] = 0;
  const std::optional<RedzoneFault> after = past.check("argument 1 (output 0)", "output");
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->after);
  EXPECT_EQ(after->offset, 5u);
  EXPECT_EQ(after->kind, "output");
  EXPECT_EQ(after->describe(), "out-of-bounds write: argument 1 (output 0), at byte 5 past its end "
                               "(1 of its 128 redzone bytes changed)");
  GuardedBuffer before(100, 0x99999999u);
  before.data()[-3] = 0;
  const std::optional<RedzoneFault> f = before.check("b", "input");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->after);
  EXPECT_EQ(f->offset, 2u);
}

TEST(Redzone, AWriteOfThePatternItselfIsNotSeen) {
  // The limit of a canary: a write of the value it already holds.
  GuardedBuffer b(16, 0x99999999u);
  b.data()[16] = 0x99;
  EXPECT_FALSE(b.check("b", "output"));
}

TEST(KernelHeap, ATemporaryWrittenPastItsEndIsFoundWhenFreedOrAtTheEnd) {
  setScratchPoison(0x12345678u);
  auto *freed = static_cast<uint8_t *>(kernelMalloc(40));
  auto *kept = static_cast<uint8_t *>(kernelMalloc(8));
  EXPECT_EQ(freed[0], 0x78); // the poison
  freed[40] = 1;
  kernelFree(freed);
  (void)kept; // never freed: checked and released at the end
  const std::optional<RedzoneFault> f = endKernelHeap();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->buffer, "temporary 0 (40 bytes)");
  EXPECT_EQ(f->kind, "temporary");
  auto *later = static_cast<uint8_t *>(kernelMalloc(8));
  later[-1] = 0;
  const std::optional<RedzoneFault> g = endKernelHeap();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->buffer, "temporary 0 (8 bytes)") << "each kernel counts from 0";
  EXPECT_FALSE(g->after);
  EXPECT_FALSE(endKernelHeap());
  // Sizes that are no multiple of the pattern's 4 bytes: untouched, their
  // redzones still read as the pattern.
  for (size_t bytes : {1u, 3u, 5u, 4095u})
    kernelFree(kernelMalloc(bytes));
  EXPECT_FALSE(endKernelHeap());
}

TEST(OutOfBounds, AStorePastABufferIsAnOutOfBoundsWrite) {
  JudgedCase jc(kExp, withPipeline(kStorePastEnd));
  EXPECT_EQ(jc.base.verdict, VerdictKind::OutOfBoundsWrite) << jc.base.summary;
  EXPECT_NE(jc.base.summary.find("past its end"), std::string::npos) << jc.base.summary;
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  // The first buffer written past: exp's temporary (affine style).
  EXPECT_EQ(v.where, "temporary") << jc.base.summary;
}

TEST(OutOfBounds, AReadPastABufferReadsThePoisonTheSameWayEveryRun) {
  JudgedCase jc(kExp, withPipeline(kLoadPastEnd));
  ASSERT_EQ(jc.base.verdict, VerdictKind::Mismatch) << jc.base.summary;
  // Not nondeterministic: the redzone holds the same poison each run...
  CaseVerdict v = jc.judge(NondeterminismOracle());
  EXPECT_EQ(v.verdict, VerdictKind::Mismatch) << v.summary;
  // ...and another poison changes what was read.
  v = jc.judge(PoisonOracle(), v);
  EXPECT_EQ(v.verdict, VerdictKind::UninitializedRead) << v.summary;
}

TEST(OutOfBounds, ABoundsCheckedRunNamesTheLoadAndItsIndex) {
  JudgedCase jc(kExp, boundsChecked(kLoadPastEnd));
  ASSERT_EQ(jc.base.verdict, VerdictKind::OutOfBoundsRead) << jc.base.summary;
  EXPECT_EQ(jc.base.run.faultSite, "memref.load");
  EXPECT_NE(jc.base.summary.find("accesses [8] of dimension 1, whose size is 8"), std::string::npos)
      << jc.base.summary;
  EXPECT_EQ(differentialVerdict(jc.c, jc.base).where, "memref.load");
}

TEST(OutOfBounds, ABoundsCheckedRunNamesTheStore) {
  JudgedCase jc(kExp, boundsChecked(kStorePastEnd));
  ASSERT_EQ(jc.base.verdict, VerdictKind::OutOfBoundsWrite) << jc.base.summary;
  EXPECT_EQ(jc.base.run.faultSite, "memref.store");
}

TEST(OutOfBounds, ABoundsCheckedRunOfACorrectKernelIsOk) {
  for (const MlirStyle style : kStyles) {
    // O0: O2's super-vectorizer writes past a loop over a valid region
    // (corpus/upstream/super_vectorize_trip_count_tail.mlir).
    RunConfig config = boundsChecked("O0");
    config.style = style;
    JudgedCase jc(kValidExp, config);
    EXPECT_EQ(jc.base.verdict, VerdictKind::Ok) << jc.base.summary;
  }
}

TEST(ValidRegion, AnElementOutsideTheValidShapeThatChangedIsNamed) {
  TensorType t;
  t.shape = {4, 8};
  t.valid = ValidShape{2, 3, false};
  TensorData out = TensorData::filled(t, 0xA5A5A5A5u);
  EXPECT_FALSE(writeOutsideValidRegion(out, 0xA5A5A5A5u));
  out.bytes[(1 * 8 + 2) * 4] = 0; // [1, 2]: inside
  EXPECT_FALSE(writeOutsideValidRegion(out, 0xA5A5A5A5u));
  out.bytes[(1 * 8 + 3) * 4 + 3] = 0; // [1, 3]: outside
  out.bytes[(3 * 8 + 0) * 4] = 0;     // [3, 0]: outside
  EXPECT_EQ(writeOutsideValidRegion(out, 0xA5A5A5A5u),
            std::optional<std::string>("element [1, 3] outside valid 2x3 (2 written)"));
  t.valid.reset();
  out.type = t;
  EXPECT_FALSE(writeOutsideValidRegion(out, 0xA5A5A5A5u)) << "no valid shape: all of it is valid";
}

TEST(ValidRegion, AKernelThatWritesOutsideTheValidShapeIsOutOfRegion) {
  JudgedCase jc(kValidExp);
  ASSERT_EQ(jc.base.verdict, VerdictKind::Ok) << jc.base.summary;
  ASSERT_TRUE(jc.base.run.outputFill);
  BackendRun run = jc.base.run;
  run.outputs[0].bytes[(3 * 8 + 7) * 4] ^= 1;
  const Judgement j = judgeRun(jc.c, jc.base.reference, run);
  EXPECT_EQ(j.verdict, VerdictKind::OutOfRegionWrite);
  EXPECT_EQ(j.summary, "output 0 (%1): element [3, 7] outside valid 2x3 (1 written) changed");
  jc.base.run = run;
  jc.base.verdict = j.verdict;
  EXPECT_EQ(differentialVerdict(jc.c, jc.base).where, "") << "the op that made it is no part of it";
}

TEST(ValidRegion, EveryStyleLeavesWhatIsOutsideTheValidShape) {
  std::string dynamicText = kValidExp;
  for (size_t at; (at = dynamicText.find("2x3}")) != std::string::npos;)
    dynamicText.replace(at, 4, "2x3,dyn}");
  for (const MlirStyle style : kStyles) {
    RunConfig config;
    config.style = style;
    JudgedCase jc(kValidExp, config);
    EXPECT_EQ(jc.base.verdict, VerdictKind::Ok) << jc.base.summary;
    JudgedCase dynamic(dynamicText, config);
    EXPECT_EQ(dynamic.base.verdict, VerdictKind::Ok) << dynamic.base.summary;
  }
}

TEST(ValidRegion, AMaskOneLaneLongOrDroppedWritesOutsideTheValidShape) {
  // The affine style's masked copy-out: rows of 8-lane transfers masked to
  // the 3 valid columns of an 8-column tile. A mask that ends inside its
  // buffer is one whose bugs show.
  const std::optional<uint64_t> maskedSeed = loweringSeedWhere(
      [](const LoweringPlan &p) { return p.outputs == OutputForm::MaskedVectors; });
  ASSERT_TRUE(maskedSeed);
  for (const char *pass : kMaskFaults) {
    RunConfig config = withPipeline(pass);
    config.loweringSeed = maskedSeed;
    JudgedCase jc(kValidExp, config);
    EXPECT_EQ(jc.base.verdict, VerdictKind::OutOfRegionWrite) << pass << ": " << jc.base.summary;
    EXPECT_EQ(jc.judge(MemoryErrorOracle()).passName, pass);
    MlirKernel kernel;
    std::string error;
    ASSERT_TRUE(emitMlir(jc.c, emitOptionsOf(config), kernel, error)) << error;
    EXPECT_TRUE(kernel.maskInsideBuffer);
    EXPECT_NE(kernel.text.find("vector.create_mask"), std::string::npos);
  }
}

/// A KV-cache row update: the valid row of a 2x5 tile written into a live
/// 4x12 cache at (1, 3). The region ends inside the cache's rows, so the
/// elements just past it are compared.
const char *const kInsertExp = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[4,12]
%1 = input : f32[2,5]{valid=1x5}
%2 = insert %0, %1 {offsets=[1,3]} : f32[4,12]
return %2
)";

TEST(ValidRegion, EveryInsertFormKeepsTheLiveTensorAroundItsRegion) {
  for (const MlirStyle style : kStyles)
    for (uint64_t s = 0; s < 16; ++s) {
      RunConfig config;
      config.style = style;
      config.loweringSeed = s;
      JudgedCase jc(kInsertExp, config);
      EXPECT_EQ(jc.base.verdict, VerdictKind::Ok)
          << mlirStyleName(style) << ", lowering seed " << s << ": " << jc.base.summary;
    }
}

TEST(ValidRegion, AMaskOneLaneLongOrDroppedInAnInsertChangesTheLiveTensor) {
  // The affine style's masked insert: 8-lane rows masked to the tile's 5
  // valid columns, landing at column 3 of 12. A longer or dropped mask
  // writes cache elements that are defined and compared.
  const std::optional<uint64_t> maskedSeed = loweringSeedWhere(
      [](const LoweringPlan &p) { return p.inserts == InsertForm::MaskedVectors; });
  ASSERT_TRUE(maskedSeed);
  for (const char *pass : kMaskFaults) {
    RunConfig config = withPipeline(pass);
    config.loweringSeed = maskedSeed;
    JudgedCase jc(kInsertExp, config);
    EXPECT_EQ(jc.base.verdict, VerdictKind::Mismatch) << pass << ": " << jc.base.summary;
    MlirKernel kernel;
    std::string error;
    ASSERT_TRUE(emitMlir(jc.c, emitOptionsOf(config), kernel, error)) << error;
    EXPECT_TRUE(kernel.maskInsideBuffer);
  }
}
