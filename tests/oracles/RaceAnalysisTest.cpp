//===- tests/oracles/RaceAnalysisTest.cpp - Happens-before over a trace ----===//
//
// The kernel of a PTO add as ptoas synchronises it (a load on MTE2, the
// add on V, the store on MTE3, flags between them and a tail sync), and
// the sync bugs a compiler makes of it: each is found with its verdict,
// and the synchronised kernel gives nothing.
//
//===----------------------------------------------------------------------===//
#include "oracles/RaceAnalysis.h"

#include "tests/oracles/TraceBuilders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace npufuzz;
using npufuzz::test::instr;

namespace {
TraceEvent flag(TraceEvent::Kind kind, Pipe src, Pipe dst, int event) {
  TraceEvent e;
  e.kind = kind;
  e.src = src;
  e.dst = dst;
  e.event = event;
  return e;
}
TraceEvent set(Pipe src, Pipe dst, int event = 0) {
  return flag(TraceEvent::Kind::SetFlag, src, dst, event);
}
TraceEvent wait(Pipe src, Pipe dst, int event = 0) {
  return flag(TraceEvent::Kind::WaitFlag, src, dst, event);
}
TraceEvent barrier(Pipe p) {
  TraceEvent e;
  e.kind = TraceEvent::Kind::Barrier;
  e.pipe = p;
  return e;
}

MemoryAccess ub(uint64_t begin, uint64_t end, bool write) {
  return {Memory::UB, begin, end, write};
}
MemoryAccess gm(uint64_t begin, uint64_t end, bool write) {
  return {Memory::GM, begin, end, write};
}

const TraceEvent kLoad = instr("TLOAD", Pipe::MTE2, {gm(0, 256, false), ub(0, 256, true)}, 10);
const TraceEvent kAdd = instr("TADD", Pipe::V, {ub(0, 256, false), ub(256, 512, true)}, 12);
const TraceEvent kStore =
    instr("TSTORE", Pipe::MTE3, {ub(256, 512, false), gm(512, 768, true)}, 14);

/// load; add; store, synchronised as ptoas --enable-insert-sync does.
std::vector<TraceEvent> synchronised() {
  return {kLoad,
          set(Pipe::MTE2, Pipe::V),
          wait(Pipe::MTE2, Pipe::V),
          kAdd,
          set(Pipe::V, Pipe::MTE3),
          wait(Pipe::V, Pipe::MTE3),
          kStore,
          set(Pipe::MTE3, Pipe::S),
          wait(Pipe::MTE3, Pipe::S),
          barrier(Pipe::All)};
}

std::vector<std::string> signatures(const std::vector<TraceEvent> &trace) {
  std::vector<std::string> out;
  for (const RaceFinding &f : analyzeRaces(trace))
    out.push_back(f.signature(trace));
  return out;
}
} // namespace

TEST(RaceAnalysis, ASynchronisedKernelHasNoFinding) {
  EXPECT_EQ(signatures(synchronised()), std::vector<std::string>{});
}

TEST(RaceAnalysis, AnUnsynchronisedKernelRacesOnEveryPipePair) {
  const std::vector<TraceEvent> trace = {kLoad, kAdd, kStore};
  const std::vector<RaceFinding> found = analyzeRaces(trace);
  EXPECT_EQ(signatures(trace), (std::vector<std::string>{"race | TLOAD/vector | MTE2->V",
                                                         "race | vector/TSTORE | V->MTE3",
                                                         "unflushed-store | TSTORE | MTE3"}));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].text, "TLOAD (MTE2, kernel.cpp:10) writes UB [0, 256) and TADD (V, "
                           "kernel.cpp:12) reads it with no order between them");
  EXPECT_EQ(found[0].memory, Memory::UB);
  EXPECT_EQ(found[0].begin, 0u);
  EXPECT_EQ(found[0].end, 256u);
}

TEST(RaceAnalysis, ADroppedWaitIsARaceAndASetNeverWaitedOn) {
  std::vector<TraceEvent> trace = synchronised();
  trace.erase(trace.begin() + 2); // wait(MTE2, V)
  EXPECT_EQ(signatures(trace), (std::vector<std::string>{"race | TLOAD/vector | MTE2->V",
                                                         "sync-misuse | set_flag | MTE2->V"}));
}

TEST(RaceAnalysis, SwappedEventIdsDeadlockTheWait) {
  std::vector<TraceEvent> trace = synchronised();
  trace[2].event = 1; // wait(MTE2, V, 1) after set(MTE2, V, 0)
  EXPECT_EQ(signatures(trace), (std::vector<std::string>{"sync-deadlock | wait_flag | MTE2->V",
                                                         "race | TLOAD/vector | MTE2->V",
                                                         "sync-misuse | set_flag | MTE2->V"}));
}

TEST(RaceAnalysis, ADroppedTailSyncLeavesTheStoreUnflushed) {
  std::vector<TraceEvent> trace = synchronised();
  trace.resize(trace.size() - 3);
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"unflushed-store | TSTORE | MTE3"});
  // A barrier on every pipe flushes it too.
  trace.push_back(barrier(Pipe::All));
  EXPECT_EQ(signatures(trace), std::vector<std::string>{});
  // A barrier on one pipe orders nothing across pipes.
  trace.back() = barrier(Pipe::MTE3);
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"unflushed-store | TSTORE | MTE3"});
}

TEST(RaceAnalysis, ASetAboveItsProducerOrdersNothing) {
  std::vector<TraceEvent> trace = synchronised();
  std::swap(trace[0], trace[1]); // set(MTE2, V) before the load
  EXPECT_EQ(signatures(trace), std::vector<std::string>{"race | TLOAD/vector | MTE2->V"});
}

TEST(RaceAnalysis, AnEventSetTwiceBeforeItsWaitIsMisuse) {
  std::vector<TraceEvent> trace = synchronised();
  trace.insert(trace.begin() + 2, set(Pipe::MTE2, Pipe::V));
  EXPECT_EQ(signatures(trace),
            std::vector<std::string>{"sync-misuse | set_flag/set_flag | MTE2->V"});
}

TEST(RaceAnalysis, ReadsDoNotRaceAndDisjointBytesDoNotEither) {
  const std::vector<TraceEvent> reads = {
      instr("TSTORE", Pipe::MTE3, {ub(0, 256, false)}, 1),
      instr("TADD", Pipe::V, {ub(0, 256, false), ub(1024, 1280, true)}, 2), barrier(Pipe::All)};
  EXPECT_EQ(signatures(reads), std::vector<std::string>{});
  const std::vector<TraceEvent> disjoint = {instr("TLOAD", Pipe::MTE2, {ub(0, 256, true)}, 1),
                                            instr("TADD", Pipe::V, {ub(256, 512, true)}, 2),
                                            barrier(Pipe::All)};
  EXPECT_EQ(signatures(disjoint), std::vector<std::string>{});
}

TEST(RaceAnalysis, OrderIsTransitiveThroughAThirdPipe) {
  // MTE2 -> V -> MTE3: the store is ordered after the load without a flag
  // of its own between them.
  const std::vector<TraceEvent> trace = {instr("TLOAD", Pipe::MTE2, {ub(0, 256, true)}, 1),
                                         set(Pipe::MTE2, Pipe::V),
                                         wait(Pipe::MTE2, Pipe::V),
                                         instr("TADD", Pipe::V, {ub(512, 768, true)}, 2),
                                         set(Pipe::V, Pipe::MTE3),
                                         wait(Pipe::V, Pipe::MTE3),
                                         instr("TSTORE", Pipe::MTE3, {ub(0, 256, false)}, 3),
                                         barrier(Pipe::All)};
  EXPECT_EQ(signatures(trace), std::vector<std::string>{});
}
