//===- backend/runtime/BoundsCheck.h - Where a kernel left its memref -*- C++ -*-===//
//
// The runtime half of bounds-checked runs: the instrumentation
// (backend/mlir/BoundsCheckPass.h) calls npf_rt_bounds before every load and
// store with each subscript, the extent the access covers along that
// dimension and the memref's size there. The first access outside its memref
// is recorded and the kernel is stopped there, before it touches the
// memory, so the run reports where it went wrong instead of crashing.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_BOUNDSCHECK_H
#define NPUFUZZ_BACKEND_RUNTIME_BOUNDSCHECK_H

#include <cstdint>
#include <optional>

extern "C" {
/// Checks `0 <= index` and `index + extent <= size` along dimension `dim` of
/// the access numbered `site`; stops the kernel at the first that fails.
void npf_rt_bounds(int64_t site, int64_t dim, int64_t index, int64_t extent, int64_t size);
}

namespace npufuzz {

/// The first access of a kernel outside its memref.
struct BoundsFault {
  int64_t site = 0, dim = 0, index = 0, extent = 0, size = 0;
};

using PackedKernel = void (*)(void **);

/// Calls `kernel(args)`. Returns the access that stopped it, if a bounds
/// check did.
std::optional<BoundsFault> callKernelChecked(PackedKernel kernel, void **args);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_RUNTIME_BOUNDSCHECK_H
