//===- backend/KernelTrace.h - What a chain's kernels did, core by core -*- C++ -*-===//
//
// The backend-neutral trace of one run: for each block of each task (one
// core's run of one kernel), every instruction with its pipe and the byte
// ranges it read and wrote in each memory, every set_flag, wait_flag and
// pipe_barrier, every GM cache operation (dcci, dsb) and the task's end;
// then what the host reads back. Any backend may record it: a PTO kernel
// records it itself (backend/pto/TraceShim.h), the MLIR npu style's runtime
// records its DMA and scalar GM accesses. The race oracle
// (oracles/RaceAnalysis.h) orders each core's pipes by happens-before; the
// cache-coherency oracle (oracles/CacheCoherency.h) models each core's data
// cache over GM.
//
// An instruction on the scalar pipe (S) that accesses GM is a scalar load
// or store: it goes through its core's data cache. Every other pipe's GM
// access is DMA (MTE2, MTE3, FIX) and goes to GM directly.
//
// trace.txt, one event a line, addresses relative to the lowest one seen
// in their memory (so the same kernel gives the same text on any machine):
//   I NAME PIPE LINE N (MEM BEGIN END W)*   an instruction and its N accesses
//   S SRC DST EVENT LINE                    set_flag
//   W SRC DST EVENT LINE                    wait_flag
//   B PIPE LINE                             pipe_barrier
//   K TASK BLOCK                            the events below are this block's
//   C BEGIN END LINE                        dcci of the GM lines in [BEGIN, END)
//   D LINE                                  dsb
//   E LINE                                  the block's task ends
//   H BEGIN END                             the host reads GM [BEGIN, END)
// PIPE, SRC and DST are pto-isa's pipe numbers, MEM a Memory, W 1 for a
// write. Events before the first K are block 0 of task 0 (one kernel).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_KERNELTRACE_H
#define NPUFUZZ_BACKEND_KERNELTRACE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

/// A data cache line of a2a3's AICore: what a dcci writes back whole.
inline constexpr uint64_t kGmCacheLineBytes = 64;

/// The pipes of a core, as pto-isa numbers them (PIPE_S = 0, ...).
enum class Pipe : uint8_t { S, V, MTE1, MTE2, MTE3, M, All, FIX };
inline constexpr size_t kPipes = 8;
std::string_view pipeName(Pipe p);

/// The memories an access can be in.
enum class Memory : uint8_t { GM, UB, L1, L0A, L0B, L0C };
inline constexpr size_t kMemories = 6;
std::string_view memoryName(Memory m);

/// Bytes [begin, end) of `memory`, read or written.
struct MemoryAccess {
  Memory memory = Memory::GM;
  uint64_t begin = 0, end = 0;
  bool write = false;
};

struct TraceEvent {
  enum class Kind : uint8_t {
    Instruction,
    SetFlag,
    WaitFlag,
    Barrier,
    Dcci,
    Dsb,
    TaskEnd,
    HostRead
  };
  Kind kind = Kind::Instruction;
  std::string name;                  ///< TLOAD, TADD, ... (instructions)
  Pipe pipe = Pipe::S;               ///< an instruction's or a barrier's pipe
  Pipe src = Pipe::S, dst = Pipe::S; ///< a flag's pipes
  int event = 0;                     ///< a flag's event id
  /// An instruction's accesses; a dcci's or a host read's GM range.
  std::vector<MemoryAccess> accesses;
  int line = 0;            ///< where it is in its kernel's source (0: unknown)
  int task = 0, block = 0; ///< whose core ran it (a host read: unused)

  /// Whether this is a scalar load or store of GM, through the core's
  /// data cache.
  bool scalarGmAccess() const;
};

/// An event's kind as findings name it: an instruction's name, `set_flag`,
/// `wait_flag`, `pipe_barrier`, `dcci`, `dsb`, `end`, `host`.
std::string eventKindName(const TraceEvent &e);

/// The text of a trace, as parseKernelTrace reads it: K lines where the
/// block changes.
std::string printKernelTrace(const std::vector<TraceEvent> &trace);

/// Parses trace.txt; false with a message naming the line when it is not
/// one (a kernel that died mid-line leaves a torn last line).
bool parseKernelTrace(const std::string &text, std::vector<TraceEvent> &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_KERNELTRACE_H
