//===- backend/runtime/KernelHeap.h - A kernel's temporaries ----*- C++ -*-===//
//
// The `malloc`, `aligned_alloc` and `free` compiled kernels call (registered
// with the JIT by runtimeSymbols()). Each block is filled with the scratch
// poison, so a temporary read before it is written gives the same value on
// every run with one poison, and sits between redzones (Redzone.h), so a
// write past either end is found when the block is freed or, for a block
// the kernel never frees, when the kernel returns.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_KERNELHEAP_H
#define NPUFUZZ_BACKEND_RUNTIME_KERNELHEAP_H

#include "backend/runtime/Redzone.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace npufuzz {

/// The 32-bit pattern (repeated) the kernel heap fills blocks and redzones
/// with, for the calling thread's kernels.
void setScratchPoison(uint32_t pattern);
uint32_t scratchPoisonPattern();

void *kernelMalloc(size_t bytes);
void *kernelAlignedAlloc(size_t alignment, size_t bytes);
void kernelFree(void *p);

/// Called when a kernel returns (or was stopped): checks the redzones of
/// every block still allocated and frees it (a kernel's temporaries never
/// outlive it: its results are in its arguments), and returns the first
/// changed redzone of this kernel's blocks, freed or not.
std::optional<RedzoneFault> endKernelHeap();

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_RUNTIME_KERNELHEAP_H
