//===- backend/runtime/KernelHeap.cpp - A kernel's temporaries ------------===//
#include "backend/runtime/KernelHeap.h"

#include "ir/TensorData.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace npufuzz {

namespace {
thread_local uint32_t gScratchPoison = 0x99999999u;

struct Block {
  uint8_t *base;
  size_t bytes, redzone;
  unsigned ordinal; ///< the kernel's n-th allocation, from 0
  uint8_t *data() const { return base + redzone; }
};

/// This thread's kernel's live blocks, its allocations so far and its first
/// changed redzone. A kernel allocates a handful of temporaries, so a
/// vector searched from the back (frees are mostly of recent blocks) is
/// enough.
struct Heap {
  std::vector<Block> live;
  unsigned allocations = 0;
  std::optional<RedzoneFault> fault;
};
thread_local Heap gHeap;

void *allocate(size_t alignment, size_t bytes) {
  Block b;
  b.bytes = bytes;
  b.redzone = redzoneBytes(bytes, alignment);
  // A size past any allocation (a miscompiled negative one) gets what the C
  // library's malloc gives it: nothing.
  if (bytes > SIZE_MAX / 2 - 3 * b.redzone)
    return nullptr;
  b.ordinal = gHeap.allocations++;
  const size_t total = (2 * b.redzone + bytes + b.redzone - 1) / b.redzone * b.redzone;
  b.base = static_cast<uint8_t *>(std::aligned_alloc(std::max<size_t>(alignment, 64), total));
  if (!b.base)
    return nullptr;
  // The block and both redzones hold the poison, each zone from the
  // pattern's first byte (as checkRedzone reads it).
  fillPattern(b.base, b.redzone, gScratchPoison);
  fillPattern(b.data(), bytes, gScratchPoison);
  fillPattern(b.data() + bytes, b.redzone, gScratchPoison);
  gHeap.live.push_back(b);
  return b.data();
}

void checkAndRelease(const Block &b) {
  if (!gHeap.fault) {
    std::optional<RedzoneFault> f = checkRedzones(b.data(), b.bytes, b.redzone, gScratchPoison);
    if (f) {
      f->buffer =
          "temporary " + std::to_string(b.ordinal) + " (" + std::to_string(b.bytes) + " bytes)";
      f->kind = "temporary";
      gHeap.fault = f;
    }
  }
  std::free(b.base);
}
} // namespace

void setScratchPoison(uint32_t pattern) { gScratchPoison = pattern; }
uint32_t scratchPoisonPattern() { return gScratchPoison; }

void *kernelMalloc(size_t bytes) { return allocate(64, bytes); }

void *kernelAlignedAlloc(size_t alignment, size_t bytes) {
  // aligned_alloc's contract: a power of two (the redzone is a multiple of
  // it, so the block keeps it).
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return nullptr;
  return allocate(alignment, bytes);
}

void kernelFree(void *p) {
  if (!p)
    return;
  for (size_t i = gHeap.live.size(); i-- > 0;)
    if (gHeap.live[i].data() == p) {
      const Block b = gHeap.live[i];
      gHeap.live.erase(gHeap.live.begin() + static_cast<std::ptrdiff_t>(i));
      checkAndRelease(b);
      return;
    }
  // Not a block of this kernel: a double free or a pointer it made up.
  // Freeing it would corrupt the C library's heap; it is a memory error
  // of the kernel, reported in glibc's words for one.
  std::fputs("free(): invalid pointer (double free, or not a block of the kernel)\n", stderr);
  std::abort();
}

std::optional<RedzoneFault> endKernelHeap() {
  for (const Block &b : gHeap.live)
    checkAndRelease(b);
  std::optional<RedzoneFault> f = gHeap.fault;
  gHeap = Heap();
  return f;
}

} // namespace npufuzz
