//===- backend/runtime/BoundsCheck.cpp - Where a kernel left its memref ---===//
#include "backend/runtime/BoundsCheck.h"

#include <csetjmp>

namespace {
/// Where a stopped kernel returns to: set for the duration of one call.
thread_local std::jmp_buf *gStop = nullptr;
thread_local npufuzz::BoundsFault gFault;
} // namespace

extern "C" void npf_rt_bounds(int64_t site, int64_t dim, int64_t index, int64_t extent,
                              int64_t size) {
  if (index >= 0 && extent <= size && index <= size - extent)
    return;
  gFault = {site, dim, index, extent, size};
  // Compiled kernel frames hold no destructors: unwinding them by a jump is
  // safe. Without a caller to return to, the access would be made: stop.
  if (gStop)
    std::longjmp(*gStop, 1);
  __builtin_trap();
}

namespace npufuzz {

std::optional<BoundsFault> callKernelChecked(PackedKernel kernel, void **args) {
  std::jmp_buf stop;
  std::jmp_buf *outer = gStop;
  gStop = &stop;
  if (setjmp(stop)) {
    gStop = outer;
    return gFault;
  }
  kernel(args);
  gStop = outer;
  return std::nullopt;
}

} // namespace npufuzz
