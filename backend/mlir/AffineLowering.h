//===- backend/mlir/AffineLowering.h - The affine lowering style -*- C++ -*-===//
//
// Internal to backend/mlir: cases as affine loop nests over memrefs. Views
// become affine.load subscripts with their floor/mod maps, valid shapes
// become symbolic loop bounds; topk and reductions carry values in
// iter_args; gather loads through a data-dependent index. The lowering plan
// varies the loops (scf, while, unrolled, tiled), the index arithmetic, the
// views (strided memrefs) and the reductions (vector ops).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H
#define NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H

#include "backend/mlir/EmitterBase.h"

#include <functional>

namespace npufuzz {

/// The memref holding a value, and the loop bounds of its valid region.
struct Buffer {
  std::string memref; ///< SSA name of the memref
  std::string type;   ///< its MLIR type
  /// Valid-region bounds for rank-2 values: an integer literal or an SSA
  /// `index` symbol. Empty when the whole shape is valid.
  std::string rows, cols;
};

class AffineEmitter : public EmitterBase, private EmitterBase::TaskHooks {
public:
  using EmitterBase::EmitterBase;
  bool run() override;

  // --- Loops (in the plan's LoopForm) ------------------------------------------
  using Body = std::function<void(const std::vector<std::string> &ivs)>;
  /// Emits a loop nest over `bounds` (literals or SSA `index` symbols) and
  /// `body` inside it, given the IVs. Affine loops, or scf loops whose
  /// innermost level may be a while loop, unrolled by two with a tail, or
  /// tiled by three: `body` may then be emitted more than once.
  void loopNest(const std::vector<std::string> &bounds, const Body &body);
  /// A loop from 0 to `n` carrying `inits` (of `types`): `result:N = for`,
  /// affine.for in the affine loop form and scf.for otherwise. Returns the
  /// IV; the region's block arguments are the names in `carried`.
  std::string openCarried(const std::string &result, int64_t from, int64_t n,
                          const std::vector<std::string> &carried,
                          const std::vector<std::string> &inits,
                          const std::vector<std::string> &types);
  void closeCarried(const std::vector<std::string> &yields, const std::vector<std::string> &types);
  /// Loop bounds covering value `v`: its shape, or its valid region.
  std::vector<std::string> boundsOf(ValueId v, bool validOnly);

  // --- Values -----------------------------------------------------------------
  const Buffer &buf(ValueId v) const { return bufs_.at(v); }
  /// Allocates a fresh buffer for result `v` (freed at the end).
  const Buffer &alloc(ValueId v);
  /// A load of `v`, and a store to it, at `subscripts`: IVs, integer
  /// literals, SSA `index` values or affine expressions over IVs (written
  /// with spaces, from subscriptOf). affine.load/store when every subscript
  /// is affine in affine loops, memref.load/store otherwise.
  std::string load(ValueId v, const std::vector<std::string> &subscripts);
  void store(const std::string &x, ValueId v, const std::vector<std::string> &subscripts);
  void storeTo(const std::string &x, const std::string &memref, const std::string &type,
               const std::vector<std::string> &subscripts);
  /// Copies the valid region of value `v` to output `k` by rows of masked
  /// 8-lane transfers (OutputForm::MaskedVectors); false, emitting nothing,
  /// where that form does not apply.
  bool maskedCopyOut(size_t k, ValueId v);
  /// Whether value `v` can be copied by maskedRows: a rank-2 identity
  /// buffer of numbers.
  bool maskedRowsApply(ValueId v) const;
  /// Copies the valid region of `v` into memref `to` (of `toType`, `toCols`
  /// columns) at offsets `at`, by rows of 8-lane transfers masked to the
  /// valid columns.
  void maskedRows(ValueId v, const std::string &to, const std::string &toType,
                  const std::vector<int64_t> &at, int64_t toCols);
  /// Writes the valid region of `src` into `res`'s buffer at offsets `at`
  /// by memref.subview of both and memref.copy (InsertForm::SubviewCopy);
  /// false, emitting nothing, for a strided source.
  bool insertBySubview(ValueId src, ValueId res, const std::vector<int64_t> &at);
  std::string loadFrom(const std::string &memref, const std::string &type,
                       const std::vector<std::string> &subscripts);
  /// A view subscript: an inline affine expression in affine loops with
  /// affine maps, else an SSA `index` in the plan's IndexForm.
  std::string subscriptOf(const IndexExpr &e, const std::vector<std::string> &ivs);

private:
  /// Whether a subscript can appear in affine.load/store.
  bool isAffineSubscript(const std::string &s) const;
  /// The subscripts as SSA `index` values (literals become constants).
  std::vector<std::string> ssaSubscripts(const std::vector<std::string> &subscripts);
  void loopLevel(const std::vector<std::string> &bounds, size_t level,
                 std::vector<std::string> &ivs, const Body &body);
  /// Views in ViewForm::Strided: the source as a strided memref whose
  /// elements are the view's, or false when the view is not strided
  /// (floor/mod maps, negative strides).
  bool stridedView(const Op &op, std::string &memref, std::string &type);
  /// Reductions in the vector forms of ReduceForm; false for the scalar
  /// form. multi_reduction needs two dims: a rank-1 source takes the
  /// vector.reduction form instead.
  bool emitVectorReduce(const Op &op);
  /// Matmul in MatmulForm::Contract: each dot product in chunks of up to 16
  /// lanes, each chunk one vector.contract from the previous chunk's sum.
  void emitContractMatmul(const Op &op);

  // --- emitOp's hooks (AffineStructured.cpp: reduce to gather) -----------------
  void emitElementwise(const Op &op) override;
  /// The elementwise `op` as one loop over its buffers collapsed to one dim
  /// (FlattenForm::Collapsed); false, emitting nothing, where a buffer is
  /// not a whole contiguous tile of the result's shape.
  bool flatElementwise(const Op &op);
  void emitView(const Op &op) override;
  void emitSource(const Op &op) override;
  void emitSetValidShape(const Op &op, const std::string &rows, const std::string &cols) override;
  void emitFillPad(const Op &op) override;
  void emitInsert(const Op &op) override;
  void emitReduce(const Op &op) override;
  void emitArgMax(const Op &op) override;
  void emitTopK(const Op &op) override;
  void emitMatmul(const Op &op) override;
  void emitGather(const Op &op) override;

  // --- A chain's tasks as functions (TaskFunctions.cpp): a value a task
  // hands on is copied, whole, into a buffer the entry allocates and
  // passes it.
  Crossing crossingOf(ValueId v) const override;
  void bindCrossing(ValueId v, const Crossing &c) override;
  std::optional<Crossing> handBuffer(ValueId v) override;
  std::optional<Crossing> handOn(ValueId v, const std::optional<Crossing> &into) override;
  void beginTask(const std::vector<ValueId> &reads) override;
  void endTask() override;

  std::map<ValueId, Buffer> bufs_;
  std::vector<std::string> allocs_;
  /// The entry's allocations while a task function is emitted.
  std::vector<std::string> entryAllocs_;
  /// IVs of the affine.for loops emitted so far: valid affine dims.
  std::set<std::string> affineIvs_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_AFFINELOWERING_H
