//===- backend/pto/KernelHarness.h - main() around ptoas's kernels -*- C++ -*-===//
//
// ptoas emits `npf_kernel(ptrs..., ints...)`; the harness gives it buffers
// read from DIR/argK.bin, the int arguments (runtime valid shapes), one
// call, and writes the outputs back. One harness may hold several kernels,
// each in a namespace of its own, compiled in one compiler run and chosen
// by an index on the command line (`binary DIR K`): most of a kernel's
// compile time is instantiating pto-isa's templates, which kernels share.
//
// A chain's harness plays the runtime (as simpler's does on its a2a3sim):
// each task's function runs once per block, between the trace's task
// markers, its tiles' TSTORE writing a stage of the harness's for each
// value it hands on; then the block writes its share of each such value
// (a run of whole elements starting on a cache line, as ir/Case.h asks)
// into the value's GM tensor. By DMA, the trace records the kernel's own
// TSTORE as that write (TraceShim.h); by scalar stores, the harness
// records the stores and the dcci and dsb after them. ptoas has no scalar
// GM access it could trace (its `store_scalar` is a plain `ptr[i] = x`),
// so the stores are the harness's C++, as PyPTO's are its runtime's. The
// GM tensors between tasks start as the run's poison, read from
// DIR/poison.bin (its 4-byte pattern), as the outputs do.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H
#define NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H

#include "ir/Case.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

/// A bug the harness plants in how a chain's tasks write what they hand on
/// (hidden `--pto-harness-bug`), so that the cache-coherency oracle is
/// tested end to end on the real toolchain. The npu style's test passes
/// plant the same three (tests/plugins/TestPassPlugin.cpp).
enum class HarnessBug : uint8_t {
  None,
  DropFlush,  ///< scalar stores with no dcci (seed 004: no tail flush)
  DropFence,  ///< a dcci with no dsb after it
  PackShares, ///< blocks' shares packed element to element, across lines
};
/// `none`, `drop-flush`, `drop-fence`, `pack-shares`.
std::string_view harnessBugName(HarnessBug b);
bool parseHarnessBug(std::string_view s, HarnessBug &out);

/// One task of a chain as the harness runs it: the function
/// `ptoTaskFunction(task)` on `blocks` blocks, given the GM tensors it
/// reads, then those it writes, then its scratch tensors, then ints
/// [firstInt, firstInt + numInts).
/// GM tensors are numbered as KernelBuffers::gmBytes.
struct HarnessTask {
  int32_t task = 0;
  int32_t blocks = 1;
  TaskStore store = TaskStore::Tile;
  std::vector<size_t> reads, writes;
  /// Byte sizes of its scratch tensors (ptoTaskScratchTensors), which it
  /// takes after what it writes: one of each per block.
  std::vector<size_t> scratchBytes;
  size_t firstInt = 0, numInts = 0;
};

/// A kernel's arguments: byte sizes of its buffers (inputs, then outputs),
/// of its scratch tensors, and its trailing int arguments. A chain also has GM tensors between its
/// tasks, and its tasks in the order the harness runs them.
struct KernelBuffers {
  std::vector<size_t> bytes;
  std::vector<bool> isOutput;
  /// Byte sizes of the kernel's GM scratch tensors (ptoScratchTensors),
  /// which it takes after the buffers above; the harness fills them with
  /// the run's poison.
  std::vector<size_t> scratchBytes;
  std::vector<int64_t> ints;
  /// A chain's GM tensors: the buffers above, then the values its tasks
  /// hand on that the case does not return. Bytes and element bytes.
  std::vector<size_t> gmBytes, gmElementBytes;
  std::vector<HarnessTask> tasks; ///< empty: one kernel, `npf_kernel`
  HarnessBug bug = HarnessBug::None;
};

/// What case `c`'s kernel takes: its inputs in input-op order, its outputs,
/// and (rows, cols) per dynamic set_validshape in op order (PtoEmitter.h).
/// A chain's tasks run in the case's order or in lastReadyTaskOrder,
/// chosen by the case's data seed (kept by reduction), so that a campaign
/// runs both orders and a case always runs one.
KernelBuffers kernelBuffers(const Case &c);

/// C++ that both runtimes npufuzz writes for ptoas's kernels share (this
/// harness, and simpler's task wrappers, SimplerSources.h):
/// `npfCall<N>(&f, void **bufs, const int64_t *ints)` calls a kernel with
/// each pointer and int as its parameter's type;
const char *kernelCallSource();
/// `npfShareRange(bytes, elem, blocks, blk, lo, hi)`, the elements of a
/// block's share, and `npfShare(gm, stage, bytes, elem, blocks, blk,
/// scalar)`, which writes it, marking its GM events with
/// `NPF_GM(kind, name, pipe, ptr, bytes, write)` (I: the scalar stores, C:
/// the dcci of their lines, D: the dsb). It needs `npfBug` (a HarnessBug),
/// NPF_LINE_BYTES, NPF_PIPE_S and NPF_GM defined.
const char *blockShareSource();

/// One kernel, included as kernel.cpp: `binary DIR`. With `trace`, the
/// kernel records its pipe trace into DIR/trace.txt (backend/pto/TraceShim.h).
std::string singleHarness(const KernelBuffers &b, bool trace);

/// Kernels included as k0.cpp, k1.cpp, ...: `binary DIR K` runs kernel K.
std::string batchHarness(const std::vector<KernelBuffers> &kernels, bool trace);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H
