//===- backend/runtime/NpuSim.h - The simulated NPU DMA engine --*- C++ -*-===//
//
// The `npu` lowering style stages tiles between "DRAM" (kernel memrefs and
// DRAM-side temporaries) and a scratchpad through this model of an NPU's DMA
// engine. A descriptor moves a strided block of at most 4 dims; the engine
// checks it before touching memory and, on a violation, records a fault that
// prints the descriptor and ignores every later transfer (the engine halts),
// so a bad descriptor surfaces as a `sim-fault` verdict rather than as
// corrupted memory; a transfer past the end of the scratchpad (a tile
// placed where it does not fit) as `out-of-bounds-write` into it or
// `out-of-bounds-read` out of it (SimFault).
//
// Checks, in order: a scratchpad is bound; direction is 0 (DRAM to
// scratchpad) or 1 (scratchpad to DRAM); 1 <= rank <= 4; every size >= 1;
// element size 1, 2, 4 or 8; the scratchpad offset is a multiple of
// kNpuSimSpadAlign bytes; every element touched lies in [0, dram_extent) on
// the DRAM side and in [0, capacity) bytes on the scratchpad side.
//
// A chain of tasks (ir/Case.h) also records its kernel trace
// (backend/KernelTrace.h) here: each block of each task between
// npf_task_begin and npf_task_end, its DMA transfers as TLOAD/TSTORE
// (between two pipe_barrier(ALL): the engine is synchronous), its scalar
// loads and stores of GM, dcci and dsb; then the
// host's reads of the outputs. A GM address in the trace is the buffer's
// ordinal of first use times 2^32 plus the byte offset in it, so a buffer
// starts on a line, as GM allocations do, and the same kernel gives the
// same trace on any machine.
//
// State is per thread, so concurrent JITs do not share a fault.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_NPUSIM_H
#define NPUFUZZ_BACKEND_RUNTIME_NPUSIM_H

#include "backend/KernelTrace.h"

#include <cstdint>
#include <string>
#include <vector>

/// Scratchpad offsets of descriptors must be multiples of this many bytes.
constexpr int64_t kNpuSimSpadAlign = 32;
/// The most dims one descriptor can have.
constexpr int64_t kNpuSimMaxRank = 4;

extern "C" {
/// Binds the scratchpad of the running kernel: `capacity` bytes at `spad`,
/// filled with the scratch poison (backend/runtime/KernelHeap.h).
void npf_sim_begin(void *spad, int64_t capacity);
/// One DMA transfer. `direction` 0 copies DRAM to scratchpad, 1 back.
/// DRAM side: `dram` is the memref's aligned pointer, `dram_extent` its
/// element count, element i of the block is at dram_offset + sum(i_d *
/// dram_stride_d). Scratchpad side: byte offset `spad_offset` plus
/// sum(i_d * spad_stride_d) elements. Sizes and strides are in elements;
/// slots past `rank` are ignored.
void npf_sim_dma(int64_t direction, void *dram, int64_t dram_extent, int64_t dram_offset,
                 int64_t spad_offset, int64_t elem_bytes, int64_t rank, int64_t s0, int64_t s1,
                 int64_t s2, int64_t s3, int64_t ds0, int64_t ds1, int64_t ds2, int64_t ds3,
                 int64_t ps0, int64_t ps1, int64_t ps2, int64_t ps3);

/// Block `block` of task `task` begins: the trace records until its end.
void npf_task_begin(int64_t task, int64_t block);
void npf_task_end();
/// A scalar store or load of `bytes` at byte `offset` of the buffer at
/// `base`, or a dcci of the lines of such a range; recorded, the access
/// itself is the kernel's.
void npf_scalar_store(void *base, int64_t offset, int64_t bytes);
void npf_scalar_load(void *base, int64_t offset, int64_t bytes);
void npf_dcci(void *base, int64_t offset, int64_t bytes);
void npf_dsb();
/// The host reads the buffer at `base` (`extent` bytes) after every task.
void npf_host_read(void *base, int64_t extent);
}

namespace npufuzz {

/// Clears the fault and unbinds the scratchpad; call before a kernel runs.
void resetSimulator();
/// What a fault was: a descriptor the engine rejects, or a transfer past
/// the end of the scratchpad (a tile placed where it does not fit: an
/// out-of-bounds write when it moves into the scratchpad, a read out).
enum class SimFault : uint8_t { Descriptor, ScratchpadWrite, ScratchpadRead };

/// Moves the recorded fault's message into `message`, and its kind into
/// `kind` when given; false when the engine did not fault since the last
/// reset.
bool takeSimulatorFault(std::string &message, SimFault *kind = nullptr);
/// Moves the kernel trace recorded since the last reset into `out`; empty
/// when no task began.
void takeKernelTrace(std::vector<TraceEvent> &out);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_RUNTIME_NPUSIM_H
