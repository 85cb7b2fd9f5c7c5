//===- backend/mlir/EmitterBase.h - What every MLIR lowering shares -*- C++ -*-===//
//
// Internal to backend/mlir: the text sink and SSA naming, constants hoisted
// to the function entry, the scalar semantics of every op (ScalarLowering.cpp),
// the kernel ABI (arguments and their names) and the module assembly. Each
// lowering style derives from it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_EMITTERBASE_H
#define NPUFUZZ_BACKEND_MLIR_EMITTERBASE_H

#include "backend/mlir/MlirEmitter.h"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace npufuzz {

class EmitterBase {
public:
  EmitterBase(const Case &c, MlirKernel &out) : c_(c), out_(out) {}
  virtual ~EmitterBase() = default;

  /// Emits the module into the kernel; false with `unsupported` set when the
  /// case cannot be lowered in this style.
  virtual bool run() = 0;
  std::string unsupported;

  // --- Text -------------------------------------------------------------------
  void line(const std::string &s);
  std::string fresh(const char *prefix = "t");
  /// `memref<16x256xf32>`, `tensor<16x256xf32>`.
  static std::string memrefType(const TensorType &t);
  static std::string tensorType(const TensorType &t);
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

  // --- Scalar semantics (ScalarLowering.cpp) -----------------------------------
  /// Widens f16/bf16 to f32 (identity otherwise): the compute type.
  std::string widen(const std::string &x, DType t);
  /// Rounds an f32 compute value back to `t` with rne (identity for f32).
  std::string narrow(const std::string &x, DType t);
  /// Applies a unary/binary/compare op; operands and result in storage type.
  std::string unary(OpKind k, DType t, const std::string &x);
  std::string binary(OpKind k, DType t, const std::string &a, const std::string &b);
  std::string compare(OpKind k, DType t, const std::string &a, const std::string &b);

  /// How every style reduces: the accumulator's type (floats accumulate in
  /// f32 and round once), its initial value (a constant emitted here) and
  /// the combining op.
  struct ReduceRule {
    std::string accType, init, combine;
  };
  ReduceRule reduceRule(OpKind k, DType t);
  /// The elementwise semantics of `op` applied to loaded operand elements
  /// `xs` (in operand order): unary, binary, compare, row/col expand,
  /// select, masked_fill and cast.
  std::string elementwise(const Op &op, const std::vector<std::string> &xs);
  /// x > best under the topk/argmax order (NaN largest), in storage type.
  std::string greater(DType t, const std::string &x, const std::string &best);
  std::string cast(const std::string &x, DType from, DType to, RoundingMode m);
  /// An `index` value as element type `t` (iota).
  std::string fromIndex(const std::string &i, DType t);

  /// Declares a runtime helper once (a `func.func private` line).
  void declareRuntime(const std::string &decl) { runtimeDecls_.insert(decl); }

  const Case &c() const { return c_; }

protected:
  // --- Kernel ABI ---------------------------------------------------------------
  /// SSA names of the kernel arguments.
  static std::string inputArg(int ordinal) { return "%in" + std::to_string(ordinal); }
  static std::string outputArg(size_t k) { return "%out" + std::to_string(k); }
  /// Runtime valid-shape dim `dim` (0 rows, 1 cols) of op `opIndex`.
  static std::string validDimArg(size_t opIndex, int dim) {
    return "%vdim" + std::to_string(opIndex) + (dim ? "_c" : "_r");
  }
  /// Records the kernel arguments in `out_.args` and returns the parameter
  /// list: one per input (as `inputType`), one per output (as `outputType`),
  /// two `index` per runtime valid shape.
  std::vector<std::string> kernelParams(std::string (*inputType)(const TensorType &),
                                        std::string (*outputType)(const TensorType &));
  /// Writes the module: runtime declarations, `@npf_kernel(params)` with
  /// hoisted constants and the body, ending in `return results`.
  void assemble(const std::vector<std::string> &params, const std::string &results = "",
                const std::string &resultTypes = "");

  const Case &c_;
  MlirKernel &out_;
  std::ostringstream body_;
  int indent_ = 2;

private:
  std::vector<std::string> hoisted_;
  std::map<std::string, std::string> constants_;
  std::set<std::string> runtimeDecls_;
  int counter_ = 0;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_EMITTERBASE_H
