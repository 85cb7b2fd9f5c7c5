//===- backend/pto/PipeTrace.h - What a PTO kernel did, pipe by pipe -*- C++ -*-===//
//
// The trace of one run of a PTO kernel on pto-isa's CPU simulator: every
// tile instruction with its pipe and the byte ranges it read and wrote in
// each memory, and every set_flag, wait_flag and pipe_barrier. The kernel
// records it itself (backend/pto/TraceShim.h) into DIR/trace.txt; the race
// oracle (oracles/RaceAnalysis.h) orders it by happens-before.
//
// trace.txt, one event a line, addresses relative to the lowest one seen
// in their memory (so the same kernel gives the same text on any machine):
//   I NAME PIPE LINE N (MEM BEGIN END W)*   an instruction and its N accesses
//   S SRC DST EVENT LINE                    set_flag
//   W SRC DST EVENT LINE                    wait_flag
//   B PIPE LINE                             pipe_barrier
// PIPE, SRC and DST are pto-isa's pipe numbers, MEM a Memory, W 1 for a
// write.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PIPETRACE_H
#define NPUFUZZ_BACKEND_PTO_PIPETRACE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

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
  enum class Kind : uint8_t { Instruction, SetFlag, WaitFlag, Barrier };
  Kind kind = Kind::Instruction;
  std::string name;                  ///< TLOAD, TADD, ... (instructions)
  Pipe pipe = Pipe::S;               ///< an instruction's or a barrier's pipe
  Pipe src = Pipe::S, dst = Pipe::S; ///< a flag's pipes
  int event = 0;                     ///< a flag's event id
  std::vector<MemoryAccess> accesses;
  int line = 0; ///< where it is in kernel.cpp (0: unknown)
};

/// Parses trace.txt; false with a message naming the line when it is not
/// one (a kernel that died mid-line leaves a torn last line).
bool parsePipeTrace(const std::string &text, std::vector<TraceEvent> &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PIPETRACE_H
