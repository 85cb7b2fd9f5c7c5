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

#include "ir/IndexExpr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
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

  /// The one op dispatch of every style: a comment naming the op, then the
  /// style's hook for its kind. Elementwise, view and source ops reach
  /// their hook by category, so a new op of those categories needs no
  /// dispatch of its own; every other op is named here.
  void emitOp(size_t opIndex);

  // --- Text -------------------------------------------------------------------
  void line(const std::string &s);
  /// While set, line() puts its lines at the function entry, after the
  /// constants hoisted so far: a buffer that code in a loop fills and code
  /// after the loop reads must be defined before it.
  bool hoisting = false;
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

  // --- Typed arith (ScalarLowering.cpp) ---------------------------------------
  // The semantics of every op is written once, over `arithType(t)`: an
  // element of `t`, or a vector of `t` while a LaneScope is open. The npu
  // style opens one for its lane-wise loops, so its vector code is the
  // scalar code, op for op.

  /// While alive, typed arith emits `vector<lanes x T>` values.
  class LaneScope {
  public:
    LaneScope(EmitterBase &e, int64_t lanes) : e_(e), saved_(e.lanes_) { e.lanes_ = lanes; }
    ~LaneScope() { e_.lanes_ = saved_; }
    LaneScope(const LaneScope &) = delete;
    LaneScope &operator=(const LaneScope &) = delete;

  private:
    EmitterBase &e_;
    int64_t saved_;
  };
  /// `f32`, or `vector<16xf32>` inside a LaneScope of 16.
  std::string arithType(DType t) const;
  /// A hoisted constant, splatted inside a LaneScope.
  std::string laneConst(const std::string &scalarConstant, DType t);
  /// `r = name a : T`, `r = name a, b : T`, and `arith.select` (its
  /// condition i1 or a vector of i1).
  std::string op1(const std::string &name, const std::string &a, DType t);
  std::string op2(const std::string &name, const std::string &a, const std::string &b, DType t);
  std::string select(const std::string &cond, const std::string &a, const std::string &b, DType t);
  /// `arith.cmpf`/`arith.cmpi` with `pred` over operands of type `t`.
  std::string cmp(const std::string &pred, const std::string &a, const std::string &b, DType t);

  // --- Scalar semantics (ScalarLowering.cpp) -----------------------------------
  /// Widens f16/bf16 to f32 (identity otherwise): the compute type.
  std::string widen(const std::string &x, DType t);
  /// Rounds an f32 compute value back to `t` with rne (identity for f32).
  std::string narrow(const std::string &x, DType t);
  /// Applies a unary/binary/compare op; operands and result in storage type
  /// (vectors of it inside a LaneScope).
  std::string unary(const Op &op, DType t, const std::string &x);
  std::string binary(OpKind k, DType t, const std::string &a, const std::string &b);
  std::string compare(OpKind k, DType t, const std::string &a, const std::string &b);
  /// Whether the lowering's tail turns `unary` of `k` on vectors into code
  /// (libm-only functions it scalarises for scalars only do not).
  static bool unaryHasLaneForm(OpKind k);

  /// How every style reduces: the accumulator's type (floats accumulate in
  /// f32 and round once), its initial value (a constant emitted here) and
  /// the combining op.
  struct ReduceRule {
    std::string accType, init, combine;
  };
  ReduceRule reduceRule(OpKind k, DType t);
  /// The identity of reduction `k`'s combiner as a constant of storage type
  /// `t` (-0, the lowest or the highest value): what padded lanes hold.
  std::string reduceIdentity(OpKind k, DType t);
  /// The elementwise semantics of `op` applied to loaded operand elements
  /// `xs` (in operand order): unary, binary, compare, row/col expand,
  /// select, masked_fill and cast (lanes: all but cast).
  std::string elementwise(const Op &op, const std::vector<std::string> &xs);
  /// One step of matmul: `sum + a * b` for elements `a`, `b` of `in` and an
  /// accumulator of `acc` (f32 for floats: products and sums in f32;
  /// integers sign-extended to `acc` and wrapping).
  std::string multiplyAccumulate(const std::string &sum, const std::string &a, const std::string &b,
                                 DType in, DType acc);
  /// Row-major strides of `shape`, in elements.
  static std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);
  /// x > best under the topk/argmax order (NaN largest), in storage type.
  std::string greater(DType t, const std::string &x, const std::string &best);
  /// One step of topk's scan for its next pick: element `x` at index `j`
  /// against the previous pick (value, index, whether there is one) and the
  /// best candidate so far (value, index, whether there is one). Returns the
  /// new best's value, index and flag. Elements after the previous pick in
  /// the order (greater, or equal at a later index) are candidates; among
  /// them the scan keeps the first of the largest, so ties go to the lower
  /// index.
  struct TopKBest {
    std::string value, index, has;
  };
  TopKBest topkStep(DType t, const std::string &x, const std::string &j, const TopKBest &prev,
                    const TopKBest &best);
  /// `a, b, c`.
  static std::string joined(const std::vector<std::string> &v, const char *sep = ", ");
  /// `d0, d1, ..` for `rank` dims.
  static std::string dims(unsigned rank);
  /// `affine_map<(d0, .., dN) -> (dA, dB)>` selecting `picked` of `rank` dims
  /// (a transfer's permutation map).
  static std::string projection(unsigned rank, const std::vector<int64_t> &picked);
  std::string cast(const std::string &x, DType from, DType to, RoundingMode m);
  /// An `index` value as element type `t` (iota).
  std::string fromIndex(const std::string &i, DType t);
  /// What fillpad writes outside the valid region.
  std::string padValue(PadKind p, DType t);
  /// min of two valid bounds, each an integer literal, an SSA `index` or
  /// empty (unbounded), folding literals.
  std::string minBound(const std::string &a, const std::string &b);
  /// An SSA `index` for a literal or SSA bound.
  std::string indexValue(const std::string &literalOrSsa);

  // --- Index arithmetic in the plan's forms (IndexLowering.cpp) ---------------
  /// Index expression `e` over the `index` values `dims` as an SSA `index`,
  /// in the plan's IndexForm (affine.apply for AffineMap).
  std::string indexOf(const IndexExpr &e, const std::vector<std::string> &dims);
  /// `e` in arith ops on values of `t` (index or i64), floor semantics.
  std::string indexArith(const IndexExpr &e, const std::vector<std::string> &dims, DType t);
  /// `arith.index_cast` between index and an integer type.
  std::string indexCast(const std::string &x, DType from, DType to);
  /// i1: `index` value `i` < `bound` (a literal or SSA index), compared as
  /// the plan's BoundsForm says.
  std::string below(const std::string &i, const std::string &bound);

  /// Declares a runtime helper once (a `func.func private` line).
  void declareRuntime(const std::string &decl) { runtimeDecls_.insert(decl); }

  const Case &c() const { return c_; }

  /// The forms of the variant points (LoweringPlan.def) this kernel takes.
  LoweringPlan plan;

  /// A value as it crosses a task function's boundary: its SSA name and
  /// type, and its valid bounds (literals or SSA `index` names).
  struct Crossing {
    std::string value, type, rows, cols;
  };
  /// How a style hands values across a task function's boundary.
  class TaskHooks {
  public:
    virtual ~TaskHooks() = default;
    /// How value `v` crosses now.
    virtual Crossing crossingOf(ValueId v) const = 0;
    /// Where `v` is seen after its task: `c`, under names of the entry.
    virtual void bindCrossing(ValueId v, const Crossing &c) = 0;
    /// In the entry, before the call of `v`'s task: a buffer the call
    /// writes `v` into (one of its parameters), or nothing when the task
    /// returns it.
    virtual std::optional<Crossing> handBuffer(ValueId v) = 0;
    /// At the end of `v`'s task function: hands it on, into `into` (its
    /// handBuffer), or as a result, which it returns.
    virtual std::optional<Crossing> handOn(ValueId v, const std::optional<Crossing> &into) = 0;
    /// At the start of a task function, given the values it reads from
    /// outside it (its parameters); and before it returns (what it frees).
    virtual void beginTask(const std::vector<ValueId> &reads) = 0;
    virtual void endTask() = 0;
  };

protected:
  // --- Per-style hooks of emitOp -------------------------------------------------
  /// Unary, binary, compare, row/col expand, select, masked_fill, cast.
  virtual void emitElementwise(const Op &op) = 0;
  virtual void emitView(const Op &op) = 0;
  /// const and iota (inputs are kernel arguments).
  virtual void emitSource(const Op &op) = 0;
  /// set_validshape: the result is the operand with valid region
  /// rows x cols (literals or SSA `index` arguments); no data moves.
  virtual void emitSetValidShape(const Op &op, const std::string &rows,
                                 const std::string &cols) = 0;
  virtual void emitFillPad(const Op &op) = 0;
  /// insert: a copy of dest with src's valid region written at the offsets
  /// (ir/Case.h).
  virtual void emitInsert(const Op &op) = 0;
  /// The workload ops (concat, pad, reduce_mean, conv2d, the pools, addmm):
  /// a style that does not lower them refuses (emitMlir asks first).
  virtual void emitWorkload(const Op &op);
  /// reduce_sum, reduce_max, reduce_min.
  virtual void emitReduce(const Op &op) = 0;
  virtual void emitArgMax(const Op &op) = 0;
  virtual void emitTopK(const Op &op) = 0;
  virtual void emitMatmul(const Op &op) = 0;
  virtual void emitGather(const Op &op) = 0;

  /// The valid-region bounds of op `opIndex`'s result with valid shape `v`
  /// (an input's type or set_validshape's attributes): literals, or the
  /// runtime arguments when dynamic.
  static std::pair<std::string, std::string> validBounds(size_t opIndex, const ValidShape &v);

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

  /// Whether the kernel calls functions of npufuzz's runtime.
  bool usesRuntime() const { return !runtimeDecls_.empty(); }

  // --- Functions of a module ----------------------------------------------------
  /// Lines, hoisted constants and the constant cache go to a function of
  /// their own from here until endFunction (functions do not nest).
  void beginFunction();
  /// Ends it as `func.func private @name(params) -> (resultTypes)`, its
  /// body ending in `return results`; what follows goes to the entry again.
  void endFunction(const std::string &name, const std::vector<std::string> &params,
                   const std::vector<std::string> &results,
                   const std::vector<std::string> &resultTypes);

  // --- A chain's tasks (ir/Case.h) ------------------------------------------------
  /// The tasks with their ops, in the order the plan's TaskOrder runs them
  /// (a comment line says which).
  std::vector<TaskOps> taskOrder();
  /// For each value, the last task that reads it (int32 max for an output
  /// of the case, which the host reads; -1 for none).
  std::vector<int32_t> lastReaders() const;

  /// Each task of the case as a function of its own, called by the entry
  /// in the plan's task order (the affine and tensor styles): the values it
  /// reads from outside are its parameters, under the names they have in
  /// the entry, and what it hands on crosses back through `hooks`. False
  /// with `unsupported` set when an op cannot be lowered.
  bool emitTaskFunctions(TaskHooks &hooks);
  /// Every op of the case: in the entry, or a chain's tasks in functions of
  /// their own (emitTaskFunctions) and only its inputs in the entry.
  bool emitCaseOps(TaskHooks &hooks);

  const Case &c_;
  MlirKernel &out_;
  std::ostringstream body_;
  int indent_ = 2;

private:
  std::vector<std::string> hoisted_;
  std::map<std::string, std::string> constants_;
  /// The entry's hoisted lines, constants, body and indent while a function
  /// of its own is emitted; the text of the functions ended so far.
  std::vector<std::string> entryHoisted_;
  std::map<std::string, std::string> entryConstants_;
  std::ostringstream entryBody_;
  int entryIndent_ = 0;
  std::vector<std::string> functions_;
  /// The current function's hoisted lines and body (emitted at indent 2,
  /// nested one level deeper) and `return`, closing it.
  std::string functionBody(const std::string &results, const std::string &resultTypes) const;
  std::set<std::string> runtimeDecls_;
  int counter_ = 0;
  int64_t lanes_ = 0; ///< 0: scalars; else the open LaneScope's lanes
  /// A fresh SSA name for a typed arith value (`%v` on lanes, as the npu
  /// style names its vectors).
  std::string freshValue() { return fresh(lanes_ ? "v" : "t"); }
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_EMITTERBASE_H
