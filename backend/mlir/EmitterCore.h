//===- backend/mlir/EmitterCore.h - Shared state of the MLIR emitter -*- C++ -*-===//
//
// Internal to backend/mlir: the text sink, SSA naming, constants, loop nests
// and per-value buffers that the op lowerings share.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_EMITTERCORE_H
#define NPUFUZZ_BACKEND_MLIR_EMITTERCORE_H

#include "backend/mlir/MlirEmitter.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace npufuzz {

/// The memref holding a value, and the loop bounds of its valid region.
struct Buffer {
  std::string memref;       ///< SSA name of the memref
  std::string type;         ///< its MLIR type
  /// Valid-region bounds for rank-2 values: an integer literal or an SSA
  /// `index` symbol. Empty when the whole shape is valid.
  std::string rows, cols;
};

class Emitter {
public:
  Emitter(const Case &c, MlirKernel &out) : c_(c), out_(out) {}

  /// Emits the module; false with `unsupported` set when the case cannot be
  /// lowered.
  bool run();
  std::string unsupported;

  // --- Text -------------------------------------------------------------------
  void line(const std::string &s);
  std::string fresh(const char *prefix = "t");
  /// `memref<16x256xf32>`.
  static std::string memrefType(const TensorType &t);
  static std::string elemType(DType t);

  // --- Constants (hoisted to the function entry, one per value) -------------
  std::string indexConst(int64_t v);
  std::string intConst(int64_t v, DType t);
  std::string floatConstBits(uint32_t bits, DType t);
  std::string floatConst(float v, DType t);
  /// A constant of `t` holding `s` (float bits or integer per dtype).
  std::string scalarConst(const Scalar &s, DType t);
  /// Zero of `t`; the lowest and highest values of `t` (-inf/+inf for floats).
  std::string zeroOf(DType t);
  std::string lowestOf(DType t);
  std::string highestOf(DType t);

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

  // --- Scalar semantics (ScalarLowering.cpp) -----------------------------------
  /// Widens f16/bf16 to f32 (identity otherwise): the compute type.
  std::string widen(const std::string &x, DType t);
  /// Rounds an f32 compute value back to `t` with rne (identity for f32).
  std::string narrow(const std::string &x, DType t);
  /// Applies a unary/binary/compare op; operands and result in storage type.
  std::string unary(OpKind k, DType t, const std::string &x);
  std::string binary(OpKind k, DType t, const std::string &a, const std::string &b);
  std::string compare(OpKind k, DType t, const std::string &a, const std::string &b);
  /// x > best under the topk/argmax order (NaN largest), in storage type.
  std::string greater(DType t, const std::string &x, const std::string &best);
  std::string cast(const std::string &x, DType from, DType to, RoundingMode m);
  /// An `index` value as element type `t` (iota).
  std::string fromIndex(const std::string &i, DType t);

  // --- Structured ops (StructuredLowering.cpp) ---------------------------------
  void emitReduce(const Op &op);
  void emitArgMax(const Op &op);
  void emitTopK(const Op &op);
  void emitMatmul(const Op &op);
  void emitGather(const Op &op);

  /// Declares a runtime helper once (a `func.func private` line).
  void declareRuntime(const std::string &decl) { runtimeDecls_.insert(decl); }

  const Case &c() const { return c_; }

private:
  void emitOp(size_t opIndex);
  void emitElementwise(const Op &op);
  void emitView(const Op &op);
  void emitSource(const Op &op);
  void emitFillPad(const Op &op);

  const Case &c_;
  MlirKernel &out_;
  std::map<ValueId, Buffer> bufs_;
  std::vector<std::string> allocs_;
  std::ostringstream body_;
  std::vector<std::string> hoisted_;
  std::map<std::string, std::string> constants_;
  std::set<std::string> runtimeDecls_;
  int indent_ = 2;
  int counter_ = 0;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_EMITTERCORE_H
