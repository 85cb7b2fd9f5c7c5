//===- tests/integrations/PtoBackendTest.cpp - Real ptoas + pto-isa -------===//
//
// Cases through the real PTO toolchain: the user's ptoas and pto-isa CPU
// simulator, found as `--backend pto` finds them (docs/toolchains.md).
// Where discovery finds none, every test here is skipped, naming why. Seed 002's pattern runs
// exact; what PTO cannot express, or defines differently, is unsupported with the reason; each
// stage's failure gets its own verdict.
//
//===----------------------------------------------------------------------===//
#include "backend/pto/PtoBackend.h"
#include "backend/emit/PtoEmitter.h"
#include "backend/toolchains/BackendToolchains.h"
#include "backend/toolchains/Canary.h"
#include "backend/toolchains/Toolchain.h"
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "driver/ReduceCommand.h"
#include "generators/Policy.h"
#include "ir/FileText.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/OpBlame.h"
#include "reference/Executor.h"
#include "tests/TestSupport.h"
#include "tests/integrations/ToolchainsFound.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

/// Why there is no PTO toolchain on this machine; empty when one was found.
const std::string &ptoUnavailable() {
  static const std::string why =
      npufuzz::testing::toolchainsMissing({ToolchainKind::PtoIsa, ToolchainKind::Ptoas});
  return why;
}

/// First in every test: the real toolchain, or the test is skipped by name
/// with the reason.
#define NPUFUZZ_NEEDS_PTO_TOOLCHAIN() NPUFUZZ_SKIP_UNLESS_FOUND("PTO", ptoUnavailable())

/// The toolchain discovery found.
PtoToolchain ptoToolchain() {
  PtoToolchain t;
  std::string error;
  EXPECT_TRUE(setUpPtoToolchain(t, error)) << error;
  return t;
}

RunConfig pto() {
  RunConfig config;
  config.backend = BackendKind::Pto;
  config.pto = ptoToolchain();
  return config;
}

/// The findings of a pto campaign of `maxCases` cases drawn as `fuzz
/// --backend pto` draws them, under `config`, without memcheck or
/// reduction (in a scratch directory named after `name`).
std::vector<FindingSummary> ptoCampaign(const std::string &name, RunConfig config,
                                        uint64_t maxCases) {
  CampaignOptions o;
  o.outDir = ::testing::TempDir() + "/npufuzz-pto-" + name;
  std::filesystem::remove_all(o.outDir);
  o.config = std::move(config);
  o.config.pto.memcheckShare = 0;
  o.policy = ptoPolicy();
  o.maxCases = maxCases;
  o.jobs = 2;
  o.limits.wallSeconds = 120;
  o.progress = false;
  o.reduce = false;
  MlirJit jit;
  const CampaignResult r = runCampaign(o, jit);
  EXPECT_TRUE(r.error.empty()) << r.error;
  std::filesystem::remove_all(o.outDir);
  return r.findings;
}

CaseOutcome run(const std::string &text, const RunConfig &config = pto()) {
  MlirJit jit;
  return runCase(parseOrFail(text), jit, config);
}
} // namespace

// Seed report 002: row_expand_mul, a runtime valid shape, fillpad; the valid
// shape reaches the kernel as int arguments.
TEST(PtoBackend, Seed002RunsExactThroughPtoasAndPtoIsa) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  Case c;
  TextError error;
  const std::string path =
      npufuzz::testing::sourceDir() + "/corpus/seeds/rowexpand_validshape_fillpad.npf";
  ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
  MlirJit jit;
  const CaseOutcome out = runCase(c, jit, pto());
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

// Rows narrower than a 32-byte block are padded, and an input with a valid
// shape is loaded whole and then narrowed (TLOAD needs the view's shape).
TEST(PtoBackend, NarrowRowsAndValidShapedInputsRunExact) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const CaseOutcome out = run(R"(npufuzz-case 1
data seed=4 edge_rate=0
%0 = input {fill=rand} : f32[4,3]{valid=2x3}
%1 = input {fill=rand} : f32[4,3]{valid=2x3}
%2 = add %0, %1 : f32[4,3]{valid=2x3}
%3 = exp %2 : f32[4,3]{valid=2x3}
return %3
)");
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

// What PTO cannot say directly is rewritten, and stays exact: a computed
// R×1 operand of a row expand is broadcast over a 32-byte block (mode 2),
// an operand valid beyond its result is narrowed on a copy, and integer abs
// is max(x, -x) (tabs takes floats).
TEST(PtoBackend, RewrittenFormsRunExact) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const CaseOutcome out = run(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[8,32]
%1 = input {fill=rand} : f32[8,1]
%2 = neg %1 : f32[8,1]
%3 = row_expand_mul %0, %2 : f32[8,32]
%4 = set_validshape %0 : f32[8,32]{valid=3x20}
%5 = add %4, %0 : f32[8,32]{valid=3x20}
%6 = row_expand_sub %5, %1 : f32[8,32]{valid=3x20}
%7 = input {fill=rand} : i32[4,32]
%8 = abs %7 : i32[4,32]
return %3, %6, %8
)");
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

// Views as PyPTO writes them: a block of an input is a GM view the DMA
// moves from where it lies (partition_view offsets; a row step is the
// view's row stride), also through a chain of slices; a sub-tile of whole
// rows, or of whole 32-element column blocks, is pto.subset; a transpose is
// TTRANS. Those here are exact (a column window of more than one row is
// not: ptoas 0.27 gives it its own row length,
// corpus/ptoas/subset_column_window_loses_row_stride.npf). A column-strided
// view, which the NPU's DMA moves otherwise than the simulator, is
// unsupported with that reason.
TEST(PtoBackend, ViewsOfInputsAndTilesRunExact) {
  const std::string views = R"(npufuzz-case 1
data seed=7 edge_rate=0
%0 = input {fill=rand} : f32[16,64]
%1 = slice %0 {offsets=[2,8], sizes=[4,32], strides=[1,1]} : f32[4,32]
%2 = slice %0 {offsets=[1,16], sizes=[6,32], strides=[2,1]} : f32[6,32]
%3 = chunk %2 {axis=0, count=3, index=1} : f32[2,32]
%4 = exp %0 : f32[16,64]
%5 = chunk %4 {axis=0, count=4, index=2} : f32[4,64]
%6 = input {fill=rand} : f32[32,16]
%7 = transpose %6 {perm=[1,0]} : f32[16,32]
%8 = add %1, %1 : f32[4,32]
%9 = slice %4 {offsets=[5,32], sizes=[1,32], strides=[1,1]} : f32[1,32]
return %8, %3, %5, %7, %9
)";
  std::string text, why;
  ASSERT_TRUE(emitPto(parseOrFail(views), text, why)) << why;
  for (const char *needle :
       {"offsets = [%c2, %c8], sizes = [%c4, %c32]", "strides = [%c128, %c1]",
        "offsets = [%c2, %c80], sizes = [%c2, %c32]", "[%c8, %c0] sizes [4, 64]",
        "[%c5, %c32] sizes [1, 32]", "pto.ttrans ins("})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  std::string unsupported;
  EXPECT_FALSE(emitPto(parseOrFail(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,64]
%1 = slice %0 {offsets=[0,0], sizes=[8,32], strides=[1,2]} : f32[8,32]
return %1
)"),
                       text, unsupported));
  EXPECT_NE(unsupported.find("no block of rows of unit steps"), std::string::npos) << unsupported;
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const CaseOutcome out = run(views);
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}

// A window of a computed tile that UB cannot address (a row step, part of
// a 32-element block, a narrowed valid shape) and a reshape of a computed
// tile go through a GM scratch tensor of the kernel's: the tile is stored
// there once, and each view loaded back by the DMA. A reshape of an input
// is loaded from the input's own tensor. In a chain, each block of a task
// has scratch of its own.
TEST(PtoBackend, WindowsUbCannotAddressAreStagedThroughGm) {
  const std::string staged = R"(npufuzz-case 1
data seed=3 edge_rate=0
%0 = input {fill=rand} : f32[16,64]
%1 = exp %0 : f32[16,64]
%2 = slice %1 {offsets=[1,5], sizes=[5,12], strides=[2,1]} : f32[5,12]
%3 = set_validshape %1 : f32[16,64]{valid=10x40}
%4 = slice %3 {offsets=[0,0], sizes=[8,32], strides=[1,1]} : f32[8,32]
%5 = reshape %0 : f32[32,32]
%6 = reshape %1 : f32[8,128]
%7 = add %2, %2 : f32[5,12]
return %7, %4, %5, %6
)";
  const Case c = parseOrFail(staged);
  std::string text, why;
  ASSERT_TRUE(emitPto(c, text, why)) << why;
  // %1 and its narrowed copy %3, each stored once: two scratch tensors.
  ASSERT_EQ(ptoScratchTensors(c).size(), 2u) << text;
  EXPECT_EQ(kernelBuffers(c).scratchBytes, (std::vector<size_t>{4096, 4096}));
  for (const char *needle :
       {"%arg5: !pto.ptr<f32>", "%arg6: !pto.ptr<f32>",
        "offsets = [%c0, %c69], sizes = [%c5, %c12]", "shape = [%c32, %c32], strides = [%c32, %c1]",
        "shape = [%c8, %c128], strides = [%c128, %c1]"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  size_t stores = 0;
  for (size_t at = text.find("pto.tstore"); at != std::string::npos;
       at = text.find("pto.tstore", at + 1))
    ++stores;
  EXPECT_EQ(stores, 2u + 4u) << text; // two staged values, four outputs
  const std::string chain = R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[8,64]
task t0 blocks=2 store=tile
%1 = exp %0 : f32[8,64]
%2 = slice %1 {offsets=[2,3], sizes=[3,20], strides=[2,1]} : f32[3,20]
task t1 blocks=3 store=tile
%3 = relu %2 : f32[3,20]
%4 = reshape %3 : f32[20,3]
return %4
)";
  const KernelBuffers chainBuffers = kernelBuffers(parseOrFail(chain));
  ASSERT_EQ(chainBuffers.tasks.size(), 2u);
  for (const HarnessTask &t : chainBuffers.tasks)
    EXPECT_EQ(t.scratchBytes.size(), 1u) << t.task;
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  for (const std::string &text : {staged, chain}) {
    const CaseOutcome out = run(text);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
  }
}

// PyPTO's memory reuse: a case whose data seed chooses it places its own
// tiles (ptoas level 3) as PyPTO's passes do, a tile taking the buffer of
// an earlier one of its type that no longer lives, down to an op writing
// over the operand it reads last; ptoas must order each reuse (a write
// into bytes another pipe still reads), which the race oracle checks. The
// other placement leaves the addresses to ptoas.
TEST(PtoBackend, TilesPlacedAsPyptoReusesMemoryRunExact) {
  auto chainOfFour = [](int dataSeed) {
    return "npufuzz-case 1\ndata seed=" + std::to_string(dataSeed) + R"( edge_rate=0
%0 = input {fill=rand} : f32[16,64]
%1 = exp %0 : f32[16,64]
%2 = neg %1 : f32[16,64]
%3 = relu %2 : f32[16,64]
%4 = slice %3 {offsets=[1,5], sizes=[5,12], strides=[2,1]} : f32[5,12]
%5 = add %4, %4 : f32[5,12]
%6 = input {fill=rand} : f32[5,12]
return %5, %6
)";
  };
  std::string text, why;
  const Case placed = parseOrFail(chainOfFour(4));
  ASSERT_TRUE(ptoPlacesTiles(placed));
  ASSERT_TRUE(emitPto(placed, text, why)) << why;
  // %1 = exp writes over %0, which it reads last, and so on to %3 = relu:
  // one 4 KiB buffer at 0. %4, staged through GM, and %5 = add in place of
  // it take the next; %6 is of %4's type, but lives beside it.
  for (const char *needle :
       {"%t0 = pto.alloc_tile addr = %ub0 ", "%t1 = pto.alloc_tile addr = %ub0 ",
        "%t2 = pto.alloc_tile addr = %ub0 ", "%t3 = pto.alloc_tile addr = %ub0 ",
        "%t4 = pto.alloc_tile addr = %ub4096 ", "%t5 = pto.alloc_tile addr = %ub4096 ",
        "%t6 = pto.alloc_tile addr = %ub4736 ", "%ub4096 = arith.constant 4096 : i64"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  const Case byPtoas = parseOrFail(chainOfFour(3));
  ASSERT_FALSE(ptoPlacesTiles(byPtoas));
  ASSERT_TRUE(emitPto(byPtoas, text, why)) << why;
  EXPECT_EQ(text.find("addr ="), std::string::npos) << text;
  // TTRANS is no elementwise op: its result never takes its source's
  // buffer (in place, pto-isa's transpose overwrites what it still reads).
  const std::string transposed = R"(npufuzz-case 1
data seed=4 edge_rate=0
%0 = input {fill=rand} : f16[32,32]
%1 = transpose %0 {perm=[1,0]} : f16[32,32]
%2 = log %1 : f16[32,32]
return %2
)";
  ASSERT_TRUE(emitPto(parseOrFail(transposed), text, why)) << why;
  EXPECT_NE(text.find("%t1 = pto.alloc_tile addr = %ub2048 "), std::string::npos) << text;
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  for (const std::string &c : {chainOfFour(4), chainOfFour(3), transposed}) {
    const CaseOutcome out = run(c);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
  }
}

TEST(PtoBackend, WhatPtoDefinesOtherwiseIsUnsupportedWithTheReason) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  // The ISA manual: division by zero is target-defined (the simulator
  // asserts); the case model defines it.
  CaseOutcome out = run(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,8]
%1 = input {fill=rand} : f32[1,8]
%2 = col_expand_div %0, %1 : f32[8,8]
return %2
)");
  EXPECT_EQ(out.verdict, VerdictKind::Unsupported);
  EXPECT_NE(out.summary.find("target-defined"), std::string::npos) << out.summary;
  // A2/A3's tadd takes no i8.
  out = run(R"(npufuzz-case 1
%0 = input {fill=rand} : i8[4,32]
%1 = add %0, %0 : i8[4,32]
return %1
)");
  EXPECT_EQ(out.verdict, VerdictKind::Unsupported);
  EXPECT_NE(out.summary.find("tadd on A2/A3"), std::string::npos) << out.summary;
}

// ptoas accepts elementwise ops whose tiles differ in their pad kind;
// pto-isa's TADD_IMPL needs one tile type for all three: a contract gap
// between the two, its own verdict.
TEST(PtoBackend, PtoasAcceptingWhatPtoIsaRejectsIsAContractGap) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const CaseOutcome out = run(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,32]
%1 = fillpad %0 {pad=max} : f32[8,32]
%2 = add %0, %1 : f32[8,32]
return %2
)");
  EXPECT_EQ(out.verdict, VerdictKind::ContractGap) << out.summary << "\n" << out.run.message;
  EXPECT_NE(out.summary.find("pto-isa rejects ptoas's C++"), std::string::npos);
}

// Uninitialised simulator state is a finding of its own: the kernel of seed
// 002's class under memcheck names the read and the kernel line that led to
// it; the same kernel with its output tile constructed runs exact. Without
// memcheck the bare kernel's locals hold a pattern (0xAA bytes), where they
// held whatever the stack held (zeros, on the machine this was written on:
// a mismatch, and on silicon the garbage of seed 002).
TEST(PtoBackend, ATileReadBeforeItsValidShapeIsSetIsAnUninitializedRead) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  PtoToolchain t = ptoToolchain();
  std::string error;
  std::string bare;
  const std::string path =
      npufuzz::testing::sourceDir() + "/tests/integrations/pto/bare_output_tile.cpp";
  ASSERT_TRUE(readFileBytes(path, bare, error)) << error;
  const TensorType type{DType::F32, {2, 8}, std::nullopt};
  TensorData in = TensorData::filled(type, 0);
  for (int64_t e = 0; e < 16; ++e) {
    const float v = 0.5f * static_cast<float>(e) - 3.0f;
    std::memcpy(in.bytes.data() + 4 * e, &v, 4);
  }
  auto expectDoubled = [&](const BackendRun &r) {
    ASSERT_EQ(r.status, BackendRun::Status::Ok) << r.message;
    ASSERT_EQ(r.outputs.size(), 1u);
    for (int64_t e = 0; e < 16; ++e) {
      float got, want;
      std::memcpy(&got, r.outputs[0].bytes.data() + 4 * e, 4);
      std::memcpy(&want, in.bytes.data() + 4 * e, 4);
      EXPECT_EQ(got, 2 * want) << "element " << e;
    }
  };
  const BackendRun found = runPtoKernel(t, bare, {in}, {type}, {}, 0xA5A5A5A5u, true);
  EXPECT_EQ(found.status, BackendRun::Status::UninitializedRead) << found.message;
  const std::string headline = found.message.substr(0, found.message.find('\n'));
  EXPECT_NE(headline.find("uninitialised"), std::string::npos) << headline;
  EXPECT_NE(headline.find("kernel.cpp:"), std::string::npos) << found.message;
  EXPECT_EQ(headline.find("/tmp/"), std::string::npos) << headline;

  expectDoubled(runPtoKernel(t, "#define NPF_INIT_OUTPUT_TILE\n" + bare, {in}, {type}, {},
                             0xA5A5A5A5u, true));
  // Without memcheck the garbage is a pattern, not what the stack held: the
  // kernel dies alike in every run (and so in every cut op blame runs).
  for (int run = 0; run < 3; ++run) {
    const BackendRun plain = runPtoKernel(t, bare, {in}, {type}, {}, 0xA5A5A5A5u, false);
    EXPECT_EQ(plain.status, BackendRun::Status::Crashed) << "run " << run << ": " << plain.message;
    EXPECT_TRUE(plain.failedRunning);
  }
}

// A campaign builds kernels sixteen at a time, ahead of their cases; a case
// then runs the batch's binary with the outputs it gets alone. A kernel
// pto-isa rejects is left out of its batch, and its case still gets its own
// contract-gap.
TEST(PtoBackend, KernelsBuiltTogetherRunAsTheyDoAlone) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  PtoToolchain t = ptoToolchain();
  std::string error;
  t.memcheckShare = 0;
  const std::string batchDir = ::testing::TempDir() + "/npufuzz-pto-batch-test";
  std::filesystem::remove_all(batchDir);
  std::filesystem::create_directories(batchDir);
  PtoToolchain batched = t;
  batched.batchDir = batchDir;
  const std::vector<Case> cases = {parseOrFail(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[8,32]
%1 = input {fill=rand} : f32[8,1]
%2 = neg %1 : f32[8,1]
%3 = row_expand_mul %0, %2 : f32[8,32]
return %3
)"),
                                   parseOrFail(R"(npufuzz-case 1
data seed=4 edge_rate=0
%0 = input {fill=rand} : f32[4,3]{valid=2x3}
%1 = add %0, %0 : f32[4,3]{valid=2x3}
return %1
)"),
                                   parseOrFail(R"(npufuzz-case 1
data seed=6 edge_rate=0
%0 = input {fill=rand} : i32[4,32]
%1 = abs %0 : i32[4,32]
return %1
)")};
  ASSERT_EQ(prebuildPto(batched, cases), 3u);
  for (const Case &c : cases) {
    const RefRun ref = runReference(c);
    ASSERT_TRUE(ref.ok()) << ref.error;
    const std::vector<TensorData> inputs = toTensorData(ref.inputs);
    const BackendRun fromBatch = runPto(batched, c, inputs, 0xA5A5A5A5u);
    const BackendRun alone = runPto(t, c, inputs, 0xA5A5A5A5u);
    ASSERT_TRUE(fromBatch.ok()) << fromBatch.message;
    ASSERT_TRUE(alone.ok()) << alone.message;
    EXPECT_EQ(fromBatch.codegenSeconds, 0.0) << "the case compiled its own kernel";
    EXPECT_GT(alone.codegenSeconds, 0.0);
    ASSERT_EQ(fromBatch.outputs.size(), alone.outputs.size());
    for (size_t k = 0; k < alone.outputs.size(); ++k)
      EXPECT_EQ(fromBatch.outputs[k].bytes, alone.outputs[k].bytes) << printCase(c);
  }

  const Case gap = parseOrFail(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,32]
%1 = fillpad %0 {pad=max} : f32[8,32]
%2 = add %0, %1 : f32[8,32]
return %2
)");
  const Case fine = parseOrFail(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[2,32]
%1 = exp %0 : f32[2,32]
return %1
)");
  // pto-isa's errors name the gap's kernel: the other one is built.
  EXPECT_EQ(prebuildPto(batched, {fine, gap}), 1u);
  const RefRun ref = runReference(gap);
  const BackendRun r = runPto(batched, gap, toTensorData(ref.inputs), 0xA5A5A5A5u);
  EXPECT_EQ(r.status, BackendRun::Status::ContractGap) << r.message;
  std::filesystem::remove_all(batchDir);
}

// The simulator's f32->i32 overflow reaches the output through a relu; the
// all-values probe blames the cast, so every consumer of an overflowing
// cast is one finding, not one per consumer.
TEST(PtoBackend, TheFirstWrongOpIsBlamedNotTheOutputs) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=20103 edge_rate=0.05
%0 = input {fill=rand} : f32[16,1]
%1 = row_expand_mul %0, %0 : f32[16,1]
%2 = cast %1 {round=rne} : i32[16,1]
%3 = relu %2 : i32[16,1]
return %3
)");
  MlirJit jit;
  const RunConfig config = pto();
  ASSERT_EQ(runCase(c, jit, config).verdict, VerdictKind::Mismatch);
  const OpBlame blame = blameOp(c, jit, config);
  ASSERT_TRUE(blame.found);
  EXPECT_EQ(blame.op, "cast");
  EXPECT_EQ(blame.opIndex, 2u);
  EXPECT_EQ(blame.difference, "extreme") << blame.detail;
}

// Every value of this case at once needs more than PTO's 192 KiB vector
// buffer (seed 51326 of a campaign): op blame cuts it to the values its
// wrong output depends on, where the simulator's abs(-0) = -0 shows, and
// blames the abs rather than the set_validshape of the output.
TEST(PtoBackend, ACaseWhoseValuesDoNotAllFitIsBlamedThroughItsWrongOutput) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=51326 edge_rate=0.05
%0 = input {fill=range(-61,-45)} : f32[160,3]{valid=25x1}
%1 = input {fill=rand} : f32[160,3]
%2 = min %0, %1 : f32[160,3]{valid=25x1}
%3 = input {fill=range(-7,14)} : f32[1,3]
%4 = col_expand_min %2, %3 : f32[160,3]{valid=25x1}
%5 = abs %1 : f32[160,3]
%6 = set_validshape %5 : f32[160,3]{valid=42x3}
%7 = input {fill=rand} : f32[160,3]
%8 = sub %4, %7 : f32[160,3]{valid=25x1}
return %6, %8
)");
  MlirJit jit;
  const RunConfig config = pto();
  const CaseOutcome out = runCase(c, jit, config);
  ASSERT_EQ(out.verdict, VerdictKind::Mismatch) << out.summary;
  const OpBlame blame = blameOp(c, jit, config);
  ASSERT_TRUE(blame.found) << "runs: " << blame.runs;
  EXPECT_EQ(blame.op, "abs") << blame.detail;
  EXPECT_EQ(blame.opIndex, 5u);
  EXPECT_EQ(blame.difference, "signed-zero") << blame.detail;
  EXPECT_EQ(blame.detail.rfind("%5 = abs", 0), 0u) << blame.detail;
}

// relu(-0) = -0 upstream of an overflowing cast is wrong too, but in
// another way: the cast is blamed, as the output's kind of difference says.
TEST(PtoBackend, ABenignDifferenceUpstreamIsNotBlamed) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=36 edge_rate=0.05
%0 = input {fill=rand} : f32[1,192]
%1 = relu %0 : f32[1,192]
%2 = cast %1 {round=rtz} : i32[1,192]
return %2
)");
  MlirJit jit;
  const OpBlame blame = blameOp(c, jit, pto());
  ASSERT_TRUE(blame.found);
  EXPECT_EQ(blame.op, "cast") << blame.detail;
  EXPECT_EQ(blame.difference, "extreme");
}

// Two ops go wrong on their own, each a known simulator behaviour here
// (tabs(-0) and trelu(-0) are -0): the one blamed is the nearest the
// output, unless its signature is known and the other's is not; a case
// that fails in a known way and a new one is filed under the new one.
TEST(PtoBackend, AKnownWrongOpIsPassedOverForAnother) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=7 edge_rate=0
%0 = input {fill=zeros} : f32[4,32]
%1 = neg %0 : f32[4,32]
%2 = relu %1 : f32[4,32]
%3 = abs %1 : f32[4,32]
%4 = add %2, %3 : f32[4,32]
return %4
)");
  MlirJit jit;
  RunConfig config = pto();
  ASSERT_EQ(runCase(c, jit, config).verdict, VerdictKind::Mismatch);
  OpBlame blame = blameOp(c, jit, config);
  ASSERT_TRUE(blame.found);
  EXPECT_EQ(blame.op, "abs") << blame.detail;
  const Signature absZero{VerdictKind::Mismatch, "", "abs", "signed-zero"};
  config.knownSignatures = {absZero.id()};
  blame = blameOp(c, jit, config);
  ASSERT_TRUE(blame.found);
  EXPECT_EQ(blame.op, "relu") << blame.detail;
  // Both known: the nearest again.
  const Signature reluZero{VerdictKind::Mismatch, "", "relu", "signed-zero"};
  config.knownSignatures.insert(reluZero.id());
  EXPECT_EQ(blameOp(c, jit, config).op, "abs");
}

// A failing case runs several times (again, other poison, the blame probe)
// and keeps its build between them; when its task ends, none of its
// directories is left (the build outlives the backend object that made it).
/// pto() with a ptoas wrapper of tests/integrations/pto/ planted in it.
RunConfig ptoPlanted(const std::string &wrapper) {
  RunConfig config = pto();
  EXPECT_EQ(::setenv("NPUFUZZ_REAL_PTOAS", config.pto.ptoas.c_str(), 1), 0);
  config.pto.ptoas = npufuzz::testing::sourceDir() + "/tests/integrations/pto/" + wrapper;
  return config;
}

// Seed 002's class planted in ptoas (tests/integrations/pto/
// bare_dst_ptoas.sh): row_expand_min's result tile has a garbage
// valid shape, which shows as a wrong value, an assertion or an
// uninitialised read in whatever reads it. The producer is blamed, as an
// undefined result of the row-expand form, however the case failed; and a
// root the campaign knows decides in two runs.
TEST(PtoBackend, AnUndefinedTileIsBlamedOnItsProducerWhereverItShows) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[4,32]
%1 = input {fill=rand} : f32[4,1]
%2 = input {fill=rand} : f32[1,32]
%3 = abs %0 : f32[4,32]
%4 = row_expand_min %3, %1 : f32[4,32]
%5 = col_expand_mul %4, %2 : f32[4,32]
%6 = add %5, %3 : f32[4,32]
return %6
)");
  MlirJit jit;
  RunConfig config = ptoPlanted("bare_dst_ptoas.sh");
  ASSERT_NE(runCase(c, jit, config).verdict, VerdictKind::Ok);
  for (const Symptom symptom : {Symptom::WrongValue, Symptom::Other}) {
    const OpBlame blame = blameOp(c, jit, config, symptom);
    ASSERT_TRUE(blame.found);
    EXPECT_EQ(blame.op, "row_expand_min") << blame.detail;
    EXPECT_EQ(blame.difference, kUndefinedResult) << blame.detail;
  }
  config.culpritOps = {"row_expand_min"};
  const OpBlame known = blameOp(c, jit, config, Symptom::Other);
  EXPECT_EQ(known.op, "row_expand_min");
  EXPECT_EQ(known.runs, 2u);
  IsolationLimits limits;
  limits.wallSeconds = 120;
  const CaseReport report = runCaseIsolated(c, jit, config, limits);
  EXPECT_EQ(report.signature.text(), "mismatch |  | row_expand_* | undefined")
      << report.result.summary;
  EXPECT_FALSE(report.result.symptom.empty());
  // The unmodified toolchain runs it exact.
  EXPECT_EQ(runCase(c, jit, pto()).verdict, VerdictKind::Ok);
}

// Seed 004's layout bug, planted in ptoas (tests/integrations/pto/
// ub_overflow_ptoas.sh): the tile at the highest address is moved to run
// past the end of A2/A3's 192 KiB UB. pto-isa's simulator would give it
// its 512 KiB scratch and run it silently; told UB's size, it stops the
// tile, and the case is an out-of-bounds write named by what went wrong,
// not by an op. The unmodified toolchain runs the case exact.
TEST(PtoBackend, ATilePastTheEndOfUbIsAnOutOfBoundsWrite) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=5 edge_rate=0
%0 = input {fill=rand} : f32[4,32]
%1 = input {fill=rand} : f32[4,32]
%2 = add %0, %1 : f32[4,32]
%3 = abs %2 : f32[4,32]
return %3
)");
  MlirJit jit;
  IsolationLimits limits;
  limits.wallSeconds = 120;
  const CaseReport report = runCaseIsolated(c, jit, ptoPlanted("ub_overflow_ptoas.sh"), limits);
  EXPECT_EQ(report.result.verdict, VerdictKind::OutOfBoundsWrite) << report.result.summary;
  EXPECT_EQ(report.signature.text(),
            "out-of-bounds-write |  | a tile past the end of its buffer | ")
      << report.result.summary;
  EXPECT_EQ(runCase(c, jit, pto()).verdict, VerdictKind::Ok);
}

TEST(PtoBackend, AFailingCaseLeavesNoDirectoryBehind) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  RunConfig config = pto();
  const std::string work = ::testing::TempDir() + "/npufuzz-pto-leak-test";
  std::filesystem::remove_all(work);
  std::filesystem::create_directories(work);
  config.pto.workDir = work;
  config.metamorphicShare = 0;
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=36 edge_rate=0.05
%0 = input {fill=rand} : f32[1,192]
%1 = relu %0 : f32[1,192]
%2 = cast %1 {round=rtz} : i32[1,192]
return %2
)");
  MlirJit jit;
  EXPECT_EQ(runCaseTask(c, jit, config).verdict, VerdictKind::Mismatch);
  for (const auto &e : std::filesystem::directory_iterator(work))
    EXPECT_EQ(e.path().filename().string().rfind("npufuzz-pto-sim-", 0), 0u)
        << e.path() << " was left behind";
  std::filesystem::remove_all(work);
}

// The real ptoas passes its canary and reports its version.
TEST(PtoBackend, TheRealToolchainPassesItsCanaries) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const PtoToolchain t = ptoToolchain();
  const CanaryResult ptoas = runCanary(ToolchainKind::Ptoas, t.ptoas);
  EXPECT_TRUE(ptoas.passed) << ptoas.error;
  EXPECT_NE(ptoas.version.find("ptoas"), std::string::npos) << ptoas.version;
  const CanaryResult isa = runCanary(ToolchainKind::PtoIsa, t.ptoIsa);
  EXPECT_TRUE(isa.passed) << isa.error;
}

// corpus/ptoas/: every distinct toolchain finding, reduced, keeps the verdict
// and signature its `// expect:` line records with this ptoas and pto-isa
// (README.md there says which), as `npufuzz replay --backend pto` runs it.
// A toolchain that fixes one changes its verdict here.
TEST(PtoBackend, TheToolchainFindingsCorpusKeepsItsVerdicts) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  ReplayOptions o;
  o.dir = npufuzz::testing::sourceDir() + "/corpus/ptoas";
  o.backend = pto();
  std::ostringstream out;
  EXPECT_EQ(runReplayCommand(o, out), 0) << out.str();
  EXPECT_EQ(out.str().find("signature now"), std::string::npos) << out.str();
  EXPECT_GE(npufuzz::testing::corpusFiles("corpus/ptoas").size(), 3u);
}

// A regression planted in ptoas's output for one family of t-ops (every mul
// becomes an add, tests/integrations/pto/mul_is_add_ptoas.sh) shows in
// whatever op the campaign's cases put around their muls; it is filed under
// a few signatures, not one per op and difference. What the planted build
// finds beyond the unmodified toolchain's findings on the same seeds is its
// doing.
TEST(PtoBackend, ARegressionOfOneTOpFamilyIsAFewSignatures) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  auto campaign = [](const std::string &name, const std::string &ptoas) {
    RunConfig config = pto();
    if (!ptoas.empty())
      config.pto.ptoas = ptoas;
    std::set<std::string> ids;
    for (const FindingSummary &f : ptoCampaign(name, config, 60))
      ids.insert(f.id + " " + f.text);
    return ids;
  };
  const char *source = std::getenv("NPUFUZZ_SOURCE_DIR"); // set by CTest
  ASSERT_NE(source, nullptr) << "run by ctest, which sets NPUFUZZ_SOURCE_DIR";
  const std::string real = pto().pto.ptoas;
  ASSERT_EQ(::setenv("NPUFUZZ_REAL_PTOAS", real.c_str(), 1), 0);
  const std::set<std::string> baseline = campaign("baseline", "");
  const std::set<std::string> planted =
      campaign("planted", std::string(source) + "/tests/integrations/pto/mul_is_add_ptoas.sh");
  std::vector<std::string> added;
  for (const std::string &id : planted)
    if (!baseline.count(id))
      added.push_back(id);
  ASSERT_FALSE(added.empty()) << "the planted regression was not found";
  std::string list;
  for (const std::string &id : added)
    list += id + "\n";
  EXPECT_LE(added.size(), 3u) << list;
  // Named by its family (ptoas also lowers some other ops through a tmul,
  // which generalisation may show need no particular op).
  EXPECT_NE(list.find(" | mul | "), std::string::npos) << list;
}

// The same class in a campaign: seed 002's regression planted in every
// row-expand t-op's result tile gave one signature per op and symptom it
// showed in (assertions in consumers, uninitialised reads of add, sub,
// cast, wrong values of col_expand_mul); it is now filed under the
// producer, and the campaign keeps a third of its clean rate.
TEST(PtoBackend, AGarbageValidShapeIsFiledUnderItsProducer) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  std::set<std::string> baseline, planted;
  for (const FindingSummary &f : ptoCampaign("baseline-002", pto(), 60))
    baseline.insert(f.text);
  for (const FindingSummary &f : ptoCampaign("planted-002", ptoPlanted("bare_dst_ptoas.sh"), 60))
    planted.insert(f.text);
  std::string list;
  for (const std::string &text : planted)
    if (!baseline.count(text))
      list += text + "\n";
  ASSERT_FALSE(list.empty()) << "the planted regression was not found";
  EXPECT_EQ(list, "mismatch |  | row_expand_* | undefined\n");
}

TEST(PtoBackend, KernelsAreSynchronisedAsTheyWouldShipUnlessAskedNotTo) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  // ptoas --enable-insert-sync orders each producer and consumer on
  // different pipes (set_flag/wait_flag), and drains the stores at the end
  // (ptoas_auto_sync_tail). The sequential simulator runs both alike.
  const std::string text = R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[8,64]
%1 = input : f32[8,64]
%2 = add %0, %1 : f32[8,64]
return %2
)";
  for (const bool sync : {true, false}) {
    RunConfig config = pto();
    const std::string work =
        ::testing::TempDir() + "/npufuzz-pto-sync-test-" + std::to_string(sync);
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);
    config.pto.workDir = work;
    config.pto.keepCaseDir = true;
    config.pto.insertSync = sync;
    const CaseOutcome out = run(text, config);
    // The simulator computes the same values either way; the pipe trace
    // shows the loads and the add unordered.
    EXPECT_EQ(out.verdict, sync ? VerdictKind::Ok : VerdictKind::Race) << out.summary << "\n"
                                                                       << out.run.message;
    EXPECT_FALSE(out.run.kernelTrace.empty());
    if (!sync)
      EXPECT_EQ(differentialVerdict(parseOrFail(text), out).where, "TLOAD/vector MTE2->V");
    std::string cpp;
    for (const auto &e : std::filesystem::recursive_directory_iterator(work))
      if (e.path().filename() == "kernel.cpp") {
        std::ifstream in(e.path());
        cpp.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    ASSERT_FALSE(cpp.empty()) << "no kernel.cpp kept under " << work;
    // (The preamble defines ptoas_auto_sync_tail either way: its call, and
    // the loads' MTE2 -> V waits, are the kernel's.)
    EXPECT_EQ(cpp.find("wait_flag(PIPE_MTE2, PIPE_V") != std::string::npos, sync) << cpp;
    EXPECT_EQ(cpp.find("ptoas_auto_sync_tail(PTOAutoSyncTailMode") != std::string::npos, sync)
        << cpp;
    std::filesystem::remove_all(work);
  }
}

namespace {
/// Two tiles added: the case the toolchain canaries use.
const char *const kAddCase = canaryCaseText();

/// The four sync bugs tests/integrations/pto/sync_bug_ptoas.sh plants, and
/// the verdict and `where` each must get.
struct SyncBug {
  const char *name;
  VerdictKind verdict;
  const char *where;
};
const SyncBug kSyncBugs[] = {
    {"drop-wait", VerdictKind::Race, "TLOAD/vector MTE2->V"},
    {"swap-event", VerdictKind::SyncDeadlock, "wait_flag MTE2->V"},
    {"drop-tail", VerdictKind::UnflushedStore, "TSTORE MTE3"},
    {"set-early", VerdictKind::Race, "TLOAD/vector MTE2->V"},
};

RunConfig withSyncBug(const SyncBug &bug) {
  RunConfig config = pto();
  EXPECT_EQ(::setenv("NPUFUZZ_REAL_PTOAS", config.pto.ptoas.c_str(), 1), 0);
  EXPECT_EQ(::setenv("NPUFUZZ_SYNC_BUG", bug.name, 1), 0);
  config.pto.ptoas = npufuzz::testing::sourceDir() + "/tests/integrations/pto/sync_bug_ptoas.sh";
  return config;
}
} // namespace

TEST(PtoRaceOracle, EachPlantedSyncBugHasItsVerdict) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  for (const SyncBug &bug : kSyncBugs) {
    const CaseOutcome out = run(kAddCase, withSyncBug(bug));
    EXPECT_EQ(out.verdict, bug.verdict) << bug.name << ": " << out.summary << "\n"
                                        << out.run.message;
    EXPECT_EQ(differentialVerdict(parseOrFail(kAddCase), out).where, bug.where) << bug.name;
  }
  // The same kernel as ptoas makes it: no finding.
  EXPECT_EQ(run(kAddCase).verdict, VerdictKind::Ok);
}

TEST(PtoRaceOracle, EachPlantedSyncBugIsFoundInACampaign) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  for (const SyncBug &bug : kSyncBugs) {
    bool found = false;
    std::string seen;
    for (const FindingSummary &f :
         ptoCampaign(std::string("sync-") + bug.name, withSyncBug(bug), 12)) {
      found |= f.id.rfind(std::string(verdictName(bug.verdict)) + "-", 0) == 0;
      seen += f.id + " " + f.text + "\n";
    }
    EXPECT_TRUE(found) << bug.name << ": no " << verdictName(bug.verdict) << " finding in\n"
                       << seen;
  }
}

namespace {
/// A chain of three tasks: t0 and t1 read only inputs, so they may run in
/// either order; t2 reads both and narrows its result by a runtime valid
/// shape; an input is returned as it is. Shares of 40 f32 rows are not
/// whole lines for 3 blocks.
std::string chainCase(uint64_t dataSeed) {
  return "npufuzz-case 1\ndata seed=" + std::to_string(dataSeed) + R"( edge_rate=0
%0 = input {fill=rand} : f32[4,40]
%1 = input {fill=rand} : f32[4,40]
task t0 blocks=3 store=scalar
%2 = add %0, %1 : f32[4,40]
task t1 blocks=2 store=tile
%3 = exp %0 : f32[4,40]
task t2 blocks=3 store=scalar
%4 = mul %2, %3 : f32[4,40]
%5 = set_validshape %4 : f32[4,40]{valid=3x17,dyn}
return %5, %3, %1
)";
}

RunConfig withHarnessBug(HarnessBug bug) {
  RunConfig config = pto();
  config.pto.harnessBug = bug;
  return config;
}
} // namespace

// Each task is an entry function of its own in one module through ptoas,
// run once per block by the harness, which writes each block's share of
// what the task hands on; the data seed picks the case's order or the
// last-ready one, and both give the reference's values with no finding.
TEST(PtoChains, EachTaskIsAKernelRunBlockByBlockInAnOrderTheGraphAllows) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(chainCase(4));
  std::string text, why;
  ASSERT_TRUE(emitPto(c, text, why)) << why;
  for (const char *f : {"@npf_task0(", "@npf_task1(", "@npf_task2("})
    EXPECT_NE(text.find(f), std::string::npos) << f << "\n" << text;
  std::set<std::vector<int32_t>> orders;
  for (const uint64_t seed : {4u, 6u}) {
    std::vector<int32_t> order;
    for (const HarnessTask &t : kernelBuffers(parseOrFail(chainCase(seed))).tasks)
      order.push_back(t.task);
    orders.insert(order);
    const CaseOutcome out = run(chainCase(seed));
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << seed << ": " << out.summary << "\n"
                                            << out.run.message;
    // Every block of every task ran, between its markers.
    size_t ends = 0;
    for (const TraceEvent &e : out.run.kernelTrace)
      ends += e.kind == TraceEvent::Kind::TaskEnd;
    EXPECT_EQ(ends, 8u) << seed;
  }
  EXPECT_EQ(orders, (std::set<std::vector<int32_t>>{{0, 1, 2}, {1, 0, 2}}));
}

// A chain is blamed like one kernel: seed 002's class planted in every
// row-expand t-op (bare_dst_ptoas.sh) crashes a 3-task chain, and the
// finding names the task and the op whose prefix first fails, not the
// signal.
TEST(PtoChains, AChainsCrashNamesItsTaskAndOp) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const Case c = parseOrFail(R"(npufuzz-case 1
data seed=4 edge_rate=0
%x = input {fill=rand} : f32[16,64]
%v = input {fill=rand} : f32[16,1]
%y = input {fill=rand} : f32[16,64]
task first blocks=2 store=tile
%e = exp %x : f32[16,64]
%s = neg %y : f32[16,64]
task second blocks=2 store=tile
%r = row_expand_add %e, %v : f32[16,64]
task third blocks=1 store=tile
%n = mul %r, %s : f32[16,64]
return %n
)");
  MlirJit jit;
  RunConfig config = ptoPlanted("bare_dst_ptoas.sh");
  ASSERT_EQ(::setenv("NPUFUZZ_BARE_TOPS", "TROWEXPAND[A-Z]*", 1), 0);
  IsolationLimits limits;
  limits.wallSeconds = 300;
  const CaseReport report = runCaseIsolated(c, jit, config, limits);
  EXPECT_NE(report.result.verdict, VerdictKind::Ok);
  EXPECT_EQ(report.signature.text(), "mismatch |  | row_expand_* | undefined")
      << report.result.summary;
  EXPECT_NE(report.result.summary.find("= row_expand_add in task second: its prefix fails"),
            std::string::npos)
      << report.result.summary;
  EXPECT_NE(report.result.symptom.find("traced to row_expand_add"), std::string::npos)
      << report.result.symptom;
  ::unsetenv("NPUFUZZ_BARE_TOPS");
  // The unmodified toolchain runs it exact.
  EXPECT_EQ(runCase(c, jit, pto()).verdict, VerdictKind::Ok);
}

// The cache bugs the harness plants, each with its verdict from the
// cache-coherency oracle, on a simulator that runs them all right.
TEST(PtoChains, EachPlantedHarnessBugHasItsCacheVerdict) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const std::pair<HarnessBug, VerdictKind> bugs[] = {
      {HarnessBug::DropFlush, VerdictKind::StaleRead},
      {HarnessBug::DropFence, VerdictKind::StaleRead},
      {HarnessBug::PackShares, VerdictKind::LostWrite},
  };
  for (const auto &[bug, verdict] : bugs) {
    const CaseOutcome out = run(chainCase(4), withHarnessBug(bug));
    EXPECT_EQ(out.verdict, verdict) << harnessBugName(bug) << ": " << out.summary;
  }
}

// A DMA task's own TSTORE is, in the trace, the write of its block's share,
// so the race oracle sees a chain's kernels as it sees one: a kernel whose
// tail sync is dropped leaves that store unflushed.
TEST(PtoChains, AChainsKernelsKeepTheRaceOracle) {
  NPUFUZZ_NEEDS_PTO_TOOLCHAIN();
  const SyncBug &dropTail = kSyncBugs[2];
  ASSERT_STREQ(dropTail.name, "drop-tail");
  const CaseOutcome out = run(chainCase(4), withSyncBug(dropTail));
  EXPECT_EQ(out.verdict, VerdictKind::UnflushedStore) << out.summary << "\n" << out.run.message;
  // Unplanted, task t1's TSTOREs write its two blocks' shares of %3's
  // tensor: disjoint runs starting on lines, together the whole of it.
  const CaseOutcome clean = run(chainCase(4));
  std::vector<std::pair<uint64_t, uint64_t>> shares;
  for (const TraceEvent &e : clean.run.kernelTrace)
    if (e.task == 1 && e.name == "TSTORE")
      for (const MemoryAccess &a : e.accesses)
        if (a.memory == Memory::GM && a.write)
          shares.push_back({a.begin, a.end});
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].second, shares[1].first);
  EXPECT_EQ(shares[0].first % kGmCacheLineBytes, 0u);
  EXPECT_EQ(shares[1].second - shares[0].first, 4u * 40u * 4u);
}
