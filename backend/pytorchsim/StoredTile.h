//===- backend/pytorchsim/StoredTile.h - What computed the tile a DMA stores -*- C++ -*-===//
//
// Private to backend/pytorchsim (it speaks MLIR). A wrong value is named
// by the code that computed it: two lowering bugs of one op (a float `ne`
// as an ordered compare, an `add` lowered as a subtract) compute it with
// other kernel ops, and a DMA bug with the right ones. For a DMA that
// stores a scratchpad tile, this gives the ops on the tile's data path:
// from what the kernel loads (a DMA's tile, an argument) and what it
// stores to memory anyway (another output's tile, whose values are judged
// on their own), through the scratchpad stores and reloads, loop-carried
// values and casts in between, to the tile. Address arithmetic (index
// values) is not on it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_STOREDTILE_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_STOREDTILE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace npufuzz {

/// A kernel's scratchpads, who writes each and which of them DMAs store
/// to memory, found in one walk of the kernel.
class StoredTiles {
public:
  explicit StoredTiles(mlir::func::FuncOp kernel);

  /// The ops that computed the tile `store` (a DMA from a scratchpad to a
  /// kernel argument of the kernel) moves out, each as `name[ predicate or
  /// kind] type` (`arith.cmpf one f32`, `arith.extsi i1>i8`; a constant
  /// that is a float zero or an integer past 2^53 says so: `arith.constant
  /// zero f32`), sorted, distinct and joined by ", "; `copy` when it
  /// computes nothing (the tile was loaded); empty when `store` does not
  /// store a scratchpad.
  std::string computedBy(mlir::memref::DmaStartOp store) const;

private:
  /// One op that writes a scratchpad: the values it stores, when it stores
  /// some (a DMA in, or an op of memrefs only such as a template's matmul,
  /// stores none).
  struct Writer {
    mlir::Operation *op = nullptr;
    std::vector<mlir::Value> values;
  };
  const std::vector<Writer> &writersOf(const std::string &scratchpad) const;

  std::map<std::string, std::vector<Writer>> writers; ///< by scratchpad
  std::set<std::string> storedOut;                    ///< scratchpads a DMA stores to memory
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_STOREDTILE_H
