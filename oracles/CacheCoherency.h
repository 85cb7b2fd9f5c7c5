//===- oracles/CacheCoherency.h - Each core's data cache over GM -*- C++ -*-===//
//
// An AICore's scalar loads and stores of GM go through its own data cache,
// which nothing keeps coherent: a store stays in the cache until a dcci
// (clean and invalidate, one whole line: 64 bytes on a2a3) and a following
// dsb push it out. DMA (TLOAD, TSTORE) goes to GM directly. A simulator
// that models no cache runs every such kernel right; on silicon:
//   - `stale-read`: a task reads GM that an earlier task wrote by scalar
//     stores and never pushed out (no dcci, or a dcci with no dsb before
//     the task's end), or the host reads it after the last task. So does a
//     core's own DMA read of its own unflushed store, and a core's scalar
//     load from a line it cached before its own DMA wrote it.
//   - `lost-write`: two blocks of one task write different bytes of one
//     line and one of them flushes it: the flush writes back the whole
//     line, its stale copy of the other's bytes included, so whichever
//     pushes last wins. Blocks of one task run at once, so any order of
//     them can happen, whatever order the trace shows.
// The model is the writer's side (hw-native-sys/simpler,
// docs/hardware/cache-coherency.md): every block of every task runs on a
// core whose cache holds nothing of an earlier task, so a reader's own
// stale lines across tasks are never blamed. Blocks of one task are not
// ordered against each other: what one reads of another's writes is a
// race, not a cache finding.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_CACHECOHERENCY_H
#define NPUFUZZ_ORACLES_CACHECOHERENCY_H

#include "backend/KernelTrace.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

struct CoherenceFinding {
  enum class Kind : uint8_t { StaleRead, LostWrite };
  /// Why a stale read sees old bytes.
  enum class Cause : uint8_t {
    NoDcci,    ///< the store stayed in its core's cache
    NoDsb,     ///< a dcci pushed it with no dsb before its task's end
    Cached,    ///< the reader's own cached copy predates its own DMA write
    SharedLine ///< lost-write: two blocks wrote one line
  };
  Kind kind = Kind::StaleRead;
  Cause cause = Cause::NoDcci;
  /// stale-read: the write and the read; lost-write: the write that is
  /// lost and the store whose line's flush overwrites it. Indices into the
  /// trace (a host read's too).
  size_t write = 0, read = 0;
  uint64_t line = 0; ///< the line's first GM byte
  std::string text;  ///< one line naming both, their tasks, blocks and lines

  /// `stale-read`, `lost-write`.
  std::string_view verdict() const;
  /// What a signature keeps: the verdict, the kind of the instruction at
  /// fault (the store never pushed out, the load that read its core's stale
  /// copy, the store whose flush overwrites) and the cause, never the
  /// reader, addresses or tasks: one missing flush is one signature whoever
  /// reads what it left (`stale-read | STORE | no dcci`).
  std::string signature(const std::vector<TraceEvent> &trace) const;
  /// The signature without its verdict, as a case signature's `where`.
  std::string where(const std::vector<TraceEvent> &trace) const;
};

/// Every finding of `trace`: stale reads in trace order of the read (one
/// for each line a read reads stale, naming the first stale byte's write),
/// then lost writes by task and line (one for each pair of writes).
std::vector<CoherenceFinding> analyzeCoherence(const std::vector<TraceEvent> &trace,
                                               uint64_t lineBytes = kGmCacheLineBytes);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_CACHECOHERENCY_H
