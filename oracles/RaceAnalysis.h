//===- oracles/RaceAnalysis.h - Happens-before over a PTO kernel's trace -*- C++ -*-===//
//
// An NPU core runs a kernel's tile instructions on separate pipes at once
// (TLOAD on MTE2, vector ops on V, TSTORE on MTE3, cube ops on M, scalar
// code on S); only set_flag/wait_flag pairs and barriers order them. Given
// the trace of one run (every instruction with its pipe and the byte ranges
// it reads and writes, every sync with its pipes and event), this finds
// what a sequential simulator cannot show, as ThreadSanitizer does for
// threads, with a vector clock per pipe:
//   - program order holds within each pipe;
//   - set_flag(src, dst, e) orders everything before it on src before
//     everything after the matching wait_flag(src, dst, e) on dst;
//   - pipe_barrier(ALL) orders everything before it before everything
//     after it, on every pipe (a barrier on one pipe adds nothing to its
//     program order);
//   - the kernel ends on the scalar pipe.
// Each block of each task (one core's run of one kernel) is ordered on its
// own; what blocks and tasks do to each other through GM is the
// cache-coherency oracle's (oracles/CacheCoherency.h).
// Findings: two accesses on different pipes that overlap in one memory,
// one a write, with neither ordered before the other (race); a wait that
// no earlier set can satisfy (sync-deadlock); an event set twice before it
// is waited on, or left set at the end (sync-misuse); a GM write not
// ordered before the kernel's end (unflushed-store).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_RACEANALYSIS_H
#define NPUFUZZ_ORACLES_RACEANALYSIS_H

#include "backend/KernelTrace.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

struct RaceFinding {
  enum class Kind : uint8_t { Race, SyncDeadlock, SyncMisuse, UnflushedStore };
  Kind kind = Kind::Race;
  /// The two events (race: the earlier and the later access; sync
  /// findings: the flag, and for a second set the first; unflushed: the
  /// store), indices into the trace; `second` is `first` when there is one.
  size_t first = 0, second = 0;
  Memory memory = Memory::GM;
  uint64_t begin = 0, end = 0; ///< the overlap (race) or the store's bytes
  std::string text;            ///< one line naming both and where they are

  /// `race`, `sync-deadlock`, `sync-misuse`, `unflushed-store`.
  std::string_view verdict() const;
  /// What a signature keeps: the verdict, the two instruction kinds and
  /// the pipe pair, never addresses (`race | TLOAD/vector | MTE2->V`). The
  /// vector pipe's instructions are one kind, `vector`: one missing sync
  /// between two pipes is one signature whichever op it showed at.
  std::string signature(const std::vector<TraceEvent> &trace) const;
  /// The signature without its verdict, as a case signature's `where`:
  /// `TLOAD/vector MTE2->V`.
  std::string where(const std::vector<TraceEvent> &trace) const;
};

/// Every finding of `trace`, block by block in the order the trace first
/// names them; in a block, races and flag findings in trace order of the
/// later event (one race per pair of instructions), then sets never waited
/// on, then unflushed stores.
std::vector<RaceFinding> analyzeRaces(const std::vector<TraceEvent> &trace);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_RACEANALYSIS_H
