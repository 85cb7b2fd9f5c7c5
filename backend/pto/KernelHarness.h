//===- backend/pto/KernelHarness.h - main() around ptoas's kernels -*- C++ -*-===//
//
// ptoas emits `npf_kernel(ptrs..., ints...)`; the harness gives it buffers
// read from DIR/argK.bin, the int arguments (runtime valid shapes), one
// call, and writes the outputs back. One harness may hold several kernels,
// each in a namespace of its own, compiled in one compiler run and chosen
// by an index on the command line (`binary DIR K`): most of a kernel's
// compile time is instantiating pto-isa's templates, which kernels share.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H
#define NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H

#include "ir/Case.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// A kernel's arguments: byte sizes of its buffers (inputs, then outputs)
/// and its trailing int arguments.
struct KernelBuffers {
  std::vector<size_t> bytes;
  std::vector<bool> isOutput;
  std::vector<int64_t> ints;
};

/// What case `c`'s kernel takes: its inputs in input-op order, its outputs,
/// and (rows, cols) per dynamic set_validshape in op order (PtoEmitter.h).
KernelBuffers kernelBuffers(const Case &c);

/// One kernel, included as kernel.cpp: `binary DIR`. With `trace`, the
/// kernel records its pipe trace into DIR/trace.txt (backend/pto/TraceShim.h).
std::string singleHarness(const KernelBuffers &b, bool trace);

/// Kernels included as k0.cpp, k1.cpp, ...: `binary DIR K` runs kernel K.
std::string batchHarness(const std::vector<KernelBuffers> &kernels, bool trace);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_KERNELHARNESS_H
