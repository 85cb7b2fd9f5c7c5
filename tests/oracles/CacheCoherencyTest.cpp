//===- tests/oracles/CacheCoherencyTest.cpp - Each core's cache over GM ---===//
//
// Chains of two tasks as PyPTO emits them (a writer that stores its
// results to GM with scalar stores, a reader that loads them), and the
// per-block outputs of simpler's kernel-programming guide: each cache bug
// is found with its verdict and cause on its own, and the kernel written
// by the rules (dcci every line written, then dsb; a line per block) gives
// nothing.
//
//===----------------------------------------------------------------------===//
#include "oracles/CacheCoherency.h"

#include "tests/oracles/TraceBuilders.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace npufuzz;
using npufuzz::test::instr;

namespace {
TraceEvent on(TraceEvent e, int task, int block) {
  e.task = task;
  e.block = block;
  return e;
}
TraceEvent store(uint64_t begin, uint64_t end, int line = 0) {
  return instr("STORE", Pipe::S, {{Memory::GM, begin, end, true}}, line);
}
TraceEvent load(uint64_t begin, uint64_t end) {
  return instr("LOAD", Pipe::S, {{Memory::GM, begin, end, false}});
}
TraceEvent tload(uint64_t begin, uint64_t end) {
  return instr("TLOAD", Pipe::MTE2, {{Memory::GM, begin, end, false}, {Memory::UB, 0, 64, true}});
}
TraceEvent tstore(uint64_t begin, uint64_t end) {
  return instr("TSTORE", Pipe::MTE3, {{Memory::UB, 0, 64, false}, {Memory::GM, begin, end, true}});
}
TraceEvent marker(TraceEvent::Kind kind, uint64_t begin = 0, uint64_t end = 0) {
  TraceEvent e;
  e.kind = kind;
  if (kind == TraceEvent::Kind::Dcci || kind == TraceEvent::Kind::HostRead)
    e.accesses = {{Memory::GM, begin, end, kind == TraceEvent::Kind::Dcci}};
  return e;
}
TraceEvent dcci(uint64_t begin, uint64_t end) { return marker(TraceEvent::Kind::Dcci, begin, end); }
TraceEvent dsb() { return marker(TraceEvent::Kind::Dsb); }
TraceEvent end() { return marker(TraceEvent::Kind::TaskEnd); }
TraceEvent host(uint64_t begin, uint64_t end) {
  return marker(TraceEvent::Kind::HostRead, begin, end);
}

/// Appends `events` as block `block` of task `task`.
void run(std::vector<TraceEvent> &trace, int task, int block, std::vector<TraceEvent> events) {
  for (TraceEvent &e : events)
    trace.push_back(on(std::move(e), task, block));
}

std::vector<std::string> signatures(const std::vector<TraceEvent> &trace) {
  std::vector<std::string> out;
  for (const CoherenceFinding &f : analyzeCoherence(trace))
    out.push_back(f.signature(trace));
  return out;
}

/// Seed 004: write_route_outputs stores 8 indices (32 bytes) with scalar
/// stores; dispatch, the next task, TLOADs them. `tail` is what the writer
/// does after its stores.
std::vector<TraceEvent> routeChain(std::vector<TraceEvent> tail) {
  std::vector<TraceEvent> trace;
  std::vector<TraceEvent> writer;
  for (uint64_t k = 0; k < 8; ++k)
    writer.push_back(store(4 * k, 4 * k + 4, 20));
  for (TraceEvent &e : tail)
    writer.push_back(std::move(e));
  writer.push_back(end());
  run(trace, 0, 0, writer);
  run(trace, 1, 0, {tload(0, 32), end()});
  return trace;
}
} // namespace

TEST(CacheCoherency, AWriterWithNoTailFlushIsAStaleReadOfTheNextTask) {
  const std::vector<TraceEvent> trace = routeChain({});
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"stale-read | STORE | no dcci"});
  const CoherenceFinding f = analyzeCoherence(trace).at(0);
  EXPECT_EQ(f.line, 0u);
  EXPECT_NE(f.text.find("TLOAD (MTE2, task 1 block 0)"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("STORE (S, task 0 block 0, line 20)"), std::string::npos) << f.text;
  EXPECT_NE(f.text.find("the GM line at 0x0"), std::string::npos) << f.text;
}

TEST(CacheCoherency, AFlushWithNoDsbBeforeTheTasksEndIsStaleToo) {
  EXPECT_EQ(signatures(routeChain({dcci(0, 32)})),
            std::vector<std::string>{"stale-read | STORE | no dsb"});
}

TEST(CacheCoherency, AWriterThatFlushesEveryLineItWroteGivesNothing) {
  EXPECT_TRUE(signatures(routeChain({dcci(0, 32), dsb()})).empty());
  // A dcci of a line it never stored to leaves the stored one in the cache.
  EXPECT_EQ(signatures(routeChain({dcci(64, 128), dsb()})),
            std::vector<std::string>{"stale-read | STORE | no dcci"});
}

TEST(CacheCoherency, ScalarLoadsAndTheHostReadStaleLinesAsDmaDoes) {
  std::vector<TraceEvent> trace;
  run(trace, 0, 0, {store(0, 4), end()});
  run(trace, 1, 0, {load(0, 4), end()});
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"stale-read | STORE | no dcci"});
  trace.clear();
  run(trace, 0, 0, {store(128, 132), end()});
  trace.push_back(host(128, 192));
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"stale-read | STORE | no dcci"});
}

TEST(CacheCoherency, ACoresOwnDmaReadOfItsUnflushedStoreIsStale) {
  std::vector<TraceEvent> trace;
  run(trace, 0, 0, {store(0, 4), tload(0, 64), end()});
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"stale-read | STORE | no dcci"});
  // Its own scalar load hits its own dirty line: right.
  trace.clear();
  run(trace, 0, 0, {store(0, 4), load(0, 4), end()});
  EXPECT_TRUE(signatures(trace).empty());
}

TEST(CacheCoherency, ALineCachedBeforeTheCoresOwnDmaWriteIsReadStale) {
  std::vector<TraceEvent> trace;
  run(trace, 0, 0, {load(0, 4), tstore(0, 64), load(0, 4), end()});
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"stale-read | LOAD | cached"});
  trace.clear();
  run(trace, 0, 0, {load(0, 4), tstore(0, 64), dcci(0, 64), load(0, 4), end()});
  EXPECT_TRUE(signatures(trace).empty());
}

TEST(CacheCoherency, DmaChainsAndBlocksOfOneTaskAreNotCacheFindings) {
  std::vector<TraceEvent> trace;
  run(trace, 0, 0, {tstore(0, 64), end()});
  run(trace, 1, 0, {tload(0, 64), load(0, 4), end()});
  trace.push_back(host(0, 64));
  EXPECT_TRUE(signatures(trace).empty());
  // What one block reads of another's unflushed store in the same task is
  // unordered: a race, not a stale line.
  trace.clear();
  run(trace, 0, 0, {store(0, 4), dcci(0, 4), dsb(), end()});
  run(trace, 0, 1, {store(64, 68), tload(64, 68), dcci(64, 68), dsb(), end()});
  ASSERT_EQ(signatures(trace).size(), 1u); // its own TLOAD only
  trace.clear();
  run(trace, 0, 0, {store(0, 4), end()});
  run(trace, 0, 1, {tload(0, 4), end()});
  EXPECT_TRUE(signatures(trace).empty());
}

// simpler's docs/aicore-kernel-programming.md: out[block_idx] = value with
// a dcci per block packs four blocks' floats into one line.
TEST(CacheCoherency, BlocksThatFlushOneLineLoseEachOthersWrites) {
  std::vector<TraceEvent> packed;
  for (int b = 0; b < 4; ++b)
    run(packed, 0, b, {store(4 * b, 4 * b + 4, 30), dcci(4 * b, 4 * b + 4), dsb(), end()});
  packed.push_back(host(0, 16));
  const std::vector<std::string> found = signatures(packed);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(std::set<std::string>(found.begin(), found.end()),
            std::set<std::string>{"lost-write | STORE | shared line"});
  EXPECT_NE(analyzeCoherence(packed).at(0).text.find("the last to flush wins"), std::string::npos);
  // The trace ran them one at a time; silicon runs them in any order, so
  // the reversed trace is the same finding.
  std::vector<TraceEvent> reversed;
  for (int b = 3; b >= 0; --b)
    run(reversed, 0, b, {store(4 * b, 4 * b + 4), dcci(4 * b, 4 * b + 4), dsb(), end()});
  EXPECT_EQ(signatures(reversed).size(), found.size());
  // One line a block: nothing.
  std::vector<TraceEvent> strided;
  for (int b = 0; b < 4; ++b)
    run(strided, 0, b, {store(64 * b, 64 * b + 4), dcci(64 * b, 64 * b + 4), dsb(), end()});
  strided.push_back(host(0, 256));
  EXPECT_TRUE(signatures(strided).empty());
  // Another block's DMA write into the line is lost the same way.
  std::vector<TraceEvent> mixed;
  run(mixed, 0, 0, {store(0, 4), dcci(0, 4), dsb(), end()});
  run(mixed, 0, 1, {tstore(32, 64), end()});
  EXPECT_EQ(signatures(mixed), std::vector<std::string>{"lost-write | STORE | shared line"});
}

TEST(CacheCoherency, TheTraceTextKeepsTasksBlocksAndCacheOperations) {
  std::vector<TraceEvent> trace = routeChain({dcci(0, 32)});
  run(trace, 2, 3, {store(64, 68), dcci(64, 68), dsb(), end()});
  trace.push_back(host(0, 128));
  const std::string text = printKernelTrace(trace);
  EXPECT_NE(text.find("K 2 3\n"), std::string::npos) << text;
  std::vector<TraceEvent> back;
  std::string error;
  ASSERT_TRUE(parseKernelTrace(text, back, error)) << error;
  EXPECT_EQ(printKernelTrace(back), text);
  EXPECT_EQ(signatures(back), signatures(trace));
  ASSERT_EQ(back.size(), trace.size());
  EXPECT_EQ(back[trace.size() - 3].kind, TraceEvent::Kind::Dsb);
  EXPECT_EQ(back[trace.size() - 3].task, 2);
  EXPECT_EQ(back[trace.size() - 3].block, 3);
  EXPECT_FALSE(parseKernelTrace("K 1\n", back, error));
  EXPECT_FALSE(parseKernelTrace("K 1 2 junk\n", back, error));
  EXPECT_FALSE(parseKernelTrace("C 64 0 1\n", back, error));
}

// Any writes of 4-byte elements by any blocks of one task, each block
// flushing what it stored and fencing: lost-write exactly when a line
// holds elements of two blocks, and never a stale read by the host.
RC_GTEST_PROP(CacheCoherency, ALineWrittenByTwoBlocksIsALostWrite, ()) {
  const int blocks = *rc::gen::inRange(1, 5);
  const auto owner =
      *rc::gen::container<std::vector<int>>(*rc::gen::inRange(1, 48), rc::gen::inRange(-1, blocks));
  std::vector<TraceEvent> trace;
  std::map<uint64_t, std::set<int>> writersOfLine;
  for (int b = 0; b < blocks; ++b) {
    std::vector<TraceEvent> events;
    for (size_t k = 0; k < owner.size(); ++k)
      if (owner[k] == b) {
        events.push_back(store(4 * k, 4 * k + 4));
        writersOfLine[4 * k / kGmCacheLineBytes].insert(b);
      }
    events.push_back(dcci(0, 4 * owner.size()));
    events.push_back(dsb());
    events.push_back(end());
    run(trace, 0, b, events);
  }
  trace.push_back(host(0, 4 * owner.size()));
  const bool shared = std::any_of(writersOfLine.begin(), writersOfLine.end(),
                                  [](const auto &l) { return l.second.size() > 1; });
  std::set<std::string> verdicts;
  for (const CoherenceFinding &f : analyzeCoherence(trace))
    verdicts.insert(std::string(f.verdict()));
  RC_ASSERT(verdicts == (shared ? std::set<std::string>{"lost-write"} : std::set<std::string>{}));
}
