//===- backend/mlir/BoundsCheckPass.h - Bounds checks before accesses -*- C++ -*-===//
//
// `npufuzz-bounds-check`: before every memref.load/store, vector.load/store
// and in-bounds dimension of a vector.transfer_read/write, a call of
// npf_rt_bounds (backend/runtime/BoundsCheck.h) for each subscript, with
// the extent the access covers and the memref's size. Run after the user's
// passes on IR lowered to those ops (affine and vector transfers of rank > 1
// lowered), it names the first access outside its memref: what MLIR's
// generate-runtime-verification does for memref.load/store, extended to
// vector accesses, and stopping the kernel before the access instead of
// aborting the process.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_BOUNDSCHECKPASS_H
#define NPUFUZZ_BACKEND_MLIR_BOUNDSCHECKPASS_H

#include <string>
#include <vector>

namespace npufuzz {

/// The pipeline element that inserts the checks.
inline constexpr const char *kBoundsCheckElement = "npufuzz-bounds-check";

/// One checked access, by the site number npf_rt_bounds is called with.
struct BoundsSite {
  std::string op;       ///< `memref.load`, `vector.store`, ...
  std::string type;     ///< the memref's type
  std::string location; ///< the op's location
  bool write = false;
};

/// The sites of the last run of the pass on this thread.
const std::vector<BoundsSite> &boundsSites();

/// Registers the pass with MLIR's registry (once).
void registerBoundsCheckPass();

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_BOUNDSCHECKPASS_H
