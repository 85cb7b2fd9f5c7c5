//===- tests/oracles/CacheCoherencyOracleTest.cpp - Chains on the npu style ===//
//
// Seed 004's chain run end to end in the npu style: a writer task whose
// four blocks store their shares by scalar stores, and a reader task. The
// runtime's trace of it is clean; with its tail flush dropped by a pass it
// is stale-read, and with the blocks' shares packed into shared lines,
// lost-write.
//
//===----------------------------------------------------------------------===//
#include "tests/oracles/OracleTestSupport.h"

#include <set>

using namespace npufuzz;
using namespace npufuzz::testing;

namespace {
/// Seed 004's shape, with a tensor of `shape`.
std::string routeChain(const std::string &shape) {
  return "npufuzz-case 1\n"
         "data seed=4 edge_rate=0\n"
         "%a = input {fill=rand} : f32[" +
         shape +
         "]\n"
         "task write_routes blocks=4 store=scalar\n"
         "%r = exp %a : f32[" +
         shape +
         "]\n"
         "task dispatch blocks=2 store=tile\n"
         "%s = add %r, %a : f32[" +
         shape + "]\nreturn %s\n";
}

RunConfig npu(const std::string &pipeline = "O0") {
  RunConfig config = withPipeline(pipeline);
  config.style = MlirStyle::Npu;
  return config;
}
} // namespace

TEST(CacheCoherencyOracle, AChainWrittenByTheRulesIsOkAndItsTraceHasEveryBlock) {
  JudgedCase jc(routeChain("16,64"), npu());
  EXPECT_EQ(jc.base.verdict, VerdictKind::Ok) << jc.base.summary;
  std::set<std::pair<int, int>> blocks;
  size_t hostReads = 0, flushes = 0, stores = 0, loads = 0;
  for (const TraceEvent &e : jc.base.run.kernelTrace) {
    if (e.kind == TraceEvent::Kind::TaskEnd)
      blocks.insert({e.task, e.block});
    hostReads += e.kind == TraceEvent::Kind::HostRead;
    flushes += e.kind == TraceEvent::Kind::Dcci;
    stores += e.scalarGmAccess() && e.name == "STORE";
    loads += e.scalarGmAccess() && e.name == "LOAD";
  }
  EXPECT_EQ(blocks,
            (std::set<std::pair<int, int>>{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}}));
  EXPECT_EQ(hostReads, 1u);
  EXPECT_EQ(flushes, 4u);
  // Each block's share is one run of loads from its own buffer and one of
  // stores to the GM tensor.
  EXPECT_EQ(stores, 4u);
  EXPECT_EQ(loads, 4u);
}

TEST(CacheCoherencyOracle, ADroppedTailFlushIsAStaleReadOfTheNextTask) {
  JudgedCase jc(routeChain("16,64"), npu("func.func(npufuzz-test-drop-flush)"));
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  EXPECT_EQ(v.verdict, VerdictKind::StaleRead) << v.summary;
  EXPECT_EQ(v.where, "STORE no dcci");
  EXPECT_NE(v.summary.find("TLOAD (MTE2, task 1 block"), std::string::npos) << v.summary;
}

TEST(CacheCoherencyOracle, SharesPackedIntoOneLineAreALostWrite) {
  // 60 floats on 4 blocks: 15 a block, 60 bytes, so blocks share lines.
  JudgedCase packed(routeChain("6,10"), npu("func.func(npufuzz-test-pack-shares)"));
  const CaseVerdict v = differentialVerdict(packed.c, packed.base);
  EXPECT_EQ(v.verdict, VerdictKind::LostWrite) << v.summary;
  EXPECT_EQ(v.where, "STORE shared line");
  // The same pass on shares that are whole lines anyway changes nothing.
  JudgedCase aligned(routeChain("16,64"), npu("func.func(npufuzz-test-pack-shares)"));
  EXPECT_EQ(aligned.base.verdict, VerdictKind::Ok) << aligned.base.summary;
}

// Seed 004's other bug: a tile placed past the end of its on-chip buffer
// (UB there, the npu style's scratchpad here) is an out-of-bounds write
// named as such, not a descriptor the engine rejects, a hang or silence.
TEST(CacheCoherencyOracle, ATilePastTheScratchpadsEndIsAnOutOfBoundsWrite) {
  JudgedCase jc(routeChain("16,64"), npu("func.func(npufuzz-test-tile-past-spad)"));
  const CaseVerdict v = differentialVerdict(jc.c, jc.base);
  EXPECT_EQ(v.verdict, VerdictKind::OutOfBoundsWrite) << v.summary;
  EXPECT_NE(jc.base.run.message.find("past the end of the scratchpad"), std::string::npos)
      << jc.base.run.message;
}
