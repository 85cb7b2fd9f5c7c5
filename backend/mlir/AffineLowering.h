//===- backend/mlir/AffineLowering.h - The affine lowering style -*- C++ -*-===//
//
// Internal to backend/mlir: cases as affine loop nests over memrefs. Views
// become affine.load subscripts with their floor/mod maps, valid shapes
// become symbolic loop bounds; topk and reductions carry values in
// iter_args; gather loads through a data-dependent index.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H
#define NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H

#include "backend/mlir/EmitterBase.h"

namespace npufuzz {

/// The memref holding a value, and the loop bounds of its valid region.
struct Buffer {
  std::string memref; ///< SSA name of the memref
  std::string type;   ///< its MLIR type
  /// Valid-region bounds for rank-2 values: an integer literal or an SSA
  /// `index` symbol. Empty when the whole shape is valid.
  std::string rows, cols;
};

class AffineEmitter : public EmitterBase {
public:
  using EmitterBase::EmitterBase;
  bool run() override;

  // --- Loops ------------------------------------------------------------------
  /// Opens an affine.for per bound (literal or symbol); returns the IVs.
  std::vector<std::string> openLoops(const std::vector<std::string> &bounds);
  void closeLoops(size_t n);
  /// Loop bounds covering value `v`: its shape, or its valid region.
  std::vector<std::string> boundsOf(ValueId v, bool validOnly);

  // --- Values -----------------------------------------------------------------
  const Buffer &buf(ValueId v) const { return bufs_.at(v); }
  /// Allocates a fresh buffer for result `v` (freed at the end).
  const Buffer &alloc(ValueId v);
  /// `affine.load` of `v` at subscripts (affine expressions over SSA IVs).
  std::string load(ValueId v, const std::vector<std::string> &subscripts);
  void store(const std::string &x, ValueId v, const std::vector<std::string> &subscripts);

private:
  // --- emitOp's hooks (AffineStructured.cpp: reduce to gather) -----------------
  void emitElementwise(const Op &op) override;
  void emitView(const Op &op) override;
  void emitSource(const Op &op) override;
  void emitSetValidShape(const Op &op, const std::string &rows, const std::string &cols) override;
  void emitFillPad(const Op &op) override;
  void emitReduce(const Op &op) override;
  void emitArgMax(const Op &op) override;
  void emitTopK(const Op &op) override;
  void emitMatmul(const Op &op) override;
  void emitGather(const Op &op) override;

  std::map<ValueId, Buffer> bufs_;
  std::vector<std::string> allocs_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H
