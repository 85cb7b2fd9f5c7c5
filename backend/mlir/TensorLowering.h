//===- backend/mlir/TensorLowering.h - The tensor lowering style -*- C++ -*-===//
//
// Internal to backend/mlir: cases as linalg on tensors, bufferized later by
// one-shot-bufferize. Elementwise ops, sources, reductions, argmax, gather
// and fillpad are linalg.generic ops whose regions hold the shared scalar
// semantics; views are tensor.extract_slice, reshapes, linalg.transpose or
// generics with the view's index map; matmul is linalg.matmul/batch_matmul;
// topk is scf.for over tensors. Every value is computed over its whole shape:
// elements outside a valid shape are undefined, so only fillpad and insert
// (tensor.insert_slice of the valid region) consult it. Results reach the output memrefs through
// linalg.copy from bufferization.to_buffer: no memref.copy of a strided buffer may remain, since it
// lowers to a `memrefCopy` call the JIT does not provide.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_TENSORLOWERING_H
#define NPUFUZZ_BACKEND_MLIR_TENSORLOWERING_H

#include "backend/mlir/EmitterBase.h"

namespace npufuzz {

/// The tensor holding a value, and its valid region.
struct TensorValue {
  std::string name; ///< SSA name of the tensor
  std::string type; ///< its MLIR type
  /// Valid-region bounds of rank-2 values: an integer literal or an SSA
  /// `index` value. Empty when the whole shape is valid.
  std::string rows, cols;
};

/// One operand of a linalg.generic: an SSA tensor, its type, its element
/// type and its indexing map's results over the loop dims (e.g. `d0, 0`).
struct GenericOperand {
  std::string value, type, elem, results;
};

class TensorEmitter : public EmitterBase, private EmitterBase::TaskHooks {
public:
  using EmitterBase::EmitterBase;
  bool run() override;
  /// MlirEmitOptions::tensorAbi.
  bool tensorAbi = false;
  /// The parameters of the tensor ABI, with the conversions of widened
  /// element types emitted; records the kernel's arguments.
  std::vector<std::string> tensorAbiParams();

  // --- linalg.generic -----------------------------------------------------------
  /// Opens `results = linalg.generic` over `iterators.size()` loops and its
  /// block; returns the block arguments (ins, then outs). The region is
  /// closed by closeGeneric with one yielded value per out.
  std::vector<std::string> openGeneric(const std::string &results,
                                       const std::vector<GenericOperand> &ins,
                                       const std::vector<GenericOperand> &outs,
                                       const std::vector<std::string> &iterators);
  void closeGeneric(const std::vector<std::string> &yields,
                    const std::vector<GenericOperand> &outs);
  /// `tensor.empty` of `t`, and `t` filled with `scalar` (linalg.fill).
  std::string empty(const TensorType &t);
  std::string fill(const std::string &scalar, const TensorType &t);
  /// `linalg.index` of loop dim `d`.
  std::string loopIndex(unsigned d);

  // --- Values -------------------------------------------------------------------
  const TensorValue &val(ValueId v) const { return vals_.at(v); }
  /// Binds result `v` to tensor `name` (of the value's type) with no valid
  /// region.
  void bind(ValueId v, const std::string &name);
  /// Value `v` as a generic operand indexed by `results`.
  GenericOperand operand(ValueId v, const std::string &results) const;
  /// Tensor `name` of type `t` as a generic operand indexed by `results`.
  static GenericOperand operand(const std::string &name, const TensorType &t,
                                const std::string &results);

private:
  // --- emitOp's hooks (TensorStructured.cpp: reduce to gather) -----------------
  void emitElementwise(const Op &op) override;
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
  // TensorWorkload.cpp: concat, pad, reduce_mean, conv2d, the pools, addmm.
  void emitWorkload(const Op &op) override;
  void emitMaxPool(const Op &op, const struct Window2d &w);
  void emitAddmm(const Op &op);
  /// `x` of type `t` padded by `low`/`high` with `value`; its type in `result`.
  std::string padded(const std::string &x, const TensorType &t, const std::vector<int64_t> &low,
                     const std::vector<int64_t> &high, const std::string &value,
                     TensorType &result);
  /// `x` (f32, of type `t`) divided by `n`, rounded to `to`, bound to `res`.
  void divideInto(ValueId res, const std::string &x, const TensorType &t, int64_t n, DType to);

  void emitReshape(const Op &op);
  void emitIndexMapView(const Op &op);

  // --- A chain's tasks as functions (TaskFunctions.cpp). Tasks meet at
  // memrefs, as the entry's inputs and outputs do (bufferization stops at
  // function boundaries): a task sees a value it reads as a tensor of its
  // memref, and writes one it hands on into a buffer the entry allocates.
  // Under the tensor ABI, tasks take and return tensors.
  Crossing crossingOf(ValueId v) const override;
  void bindCrossing(ValueId v, const Crossing &c) override;
  std::optional<Crossing> handBuffer(ValueId v) override;
  std::optional<Crossing> handOn(ValueId v, const std::optional<Crossing> &into) override;
  void beginTask(const std::vector<ValueId> &reads) override;
  void endTask() override;
  /// Value `v`, held in a memref, as a tensor of it (bufferization.to_tensor).
  void asTensor(ValueId v);

  /// Values held in memrefs (a chain's inputs, and what its tasks hand on)
  /// where their TensorValue is a memref; the crossings a task function
  /// replaced with tensors, restored when it ends.
  std::set<ValueId> inMemref_;
  std::map<ValueId, TensorValue> outsideTask_;
  std::map<ValueId, TensorValue> vals_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_TENSORLOWERING_H
