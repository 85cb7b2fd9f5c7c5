//===- generators/GenContext.h - State shared by the op builders -*- C++ -*-===//
//
// Internal to the generator: the case under construction, the PRNG, element
// budgets, and the helpers every op builder uses to draw types and pick or
// create operands. Builders return false when they cannot build their op in
// the current state; the caller rolls the case back to its mark.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_GENCONTEXT_H
#define NPUFUZZ_GENERATORS_GENCONTEXT_H

#include "generators/CaseGenerator.h"
#include "generators/ChoiceStream.h"
#include "generators/Policy.h"
#include "ir/Case.h"

#include <functional>
#include <optional>
#include <vector>

namespace npufuzz::gen {

/// A failed operand pick or op emission.
constexpr ValueId kNoValue = -1;

using TypePred = std::function<bool(const TensorType &)>;
using DTypePred = std::function<bool(DType)>;

class GenContext {
public:
  GenContext(uint64_t seed, const Policy &policy, GenerationStats &stats);
  /// Draws from `choices` (a replayed or recorded choice sequence).
  GenContext(ChoiceStream choices, const Policy &policy, GenerationStats &stats);

  ChoiceStream rng;
  const Policy &policy;
  GenerationStats &stats;
  Case c;

  /// A point the case can be rolled back to.
  struct Mark {
    size_t ops, values;
    int64_t elements;
    unsigned inputs;
  };
  Mark mark() const { return {c.ops.size(), c.values.size(), usedElements_, numInputs_}; }
  void rollback(const Mark &m);

  //===--- Drawing types ---------------------------------------------------===//
  /// A dtype drawn by the policy's weights among those `allowed`; uniform
  /// among the allowed ones when the policy gives them all weight zero.
  DType drawDType(const DTypePred &allowed);
  unsigned drawRank(unsigned minRank, unsigned maxRank);
  /// A dim in [1, maxDim] drawn by the policy's dim classes.
  int64_t drawDim(int64_t maxDim);
  /// A shape of `rank` dims with at most `maxElements` elements.
  std::vector<int64_t> drawShape(unsigned rank, int64_t maxElements);
  /// A full type: dtype from `allowed`, rank in [minRank, maxRank] (clamped
  /// to the policy), and for rank 2 sometimes a valid shape.
  TensorType drawType(const DTypePred &allowed, unsigned minRank, unsigned maxRank,
                      bool allowValid = true);
  /// Elements a new value may still have (tensor and case budgets).
  int64_t elementsLeft() const;
  /// A scalar attribute value for `t`: special values and small numbers.
  Scalar drawScalar(DType t);
  InputFill drawFill(DType t);
  std::optional<ValidShape> drawValidShape(int64_t rows, int64_t cols);

  //===--- Operands --------------------------------------------------------===//
  /// A new input of type `t`; kNoValue when over the input or element budget.
  ValueId newInput(const TensorType &t);
  ValueId newInput(const TensorType &t, const InputFill &fill);
  /// An existing value satisfying `pred`, preferring values not used yet.
  std::optional<ValueId> pickExisting(const TypePred &pred);
  /// An existing value satisfying `pred` (with probability reuse_rate when
  /// one exists), else a new input of type `fresh()`.
  ValueId operand(const TypePred &pred, const std::function<TensorType()> &fresh);
  /// A value of exactly the shape and dtype of `t` (any valid shape): an
  /// existing one, a const splat, or a new input.
  ValueId operandLike(const TensorType &t);

  //===--- Emission --------------------------------------------------------===//
  /// Infers the result types, checks budgets, appends the op. Returns the op
  /// index, or -1 (nothing appended) when refused.
  int32_t emit(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs);
  /// emit() for single-result ops: the result value or kNoValue.
  ValueId emitValue(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs);
  /// Appends a source op of a declared type (input excluded).
  ValueId emitSource(OpKind kind, const TensorType &t, OpAttrs attrs);

private:
  ValueId addChecked(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs,
                     const std::vector<TensorType> &types);

  int64_t usedElements_ = 0;
  unsigned numInputs_ = 0;
  std::vector<uint32_t> uses_; ///< by ValueId
};

//===--- Builders (one per op family) ---------------------------------------===//

/// Builds one op of kind `k` (not Input) from the current values.
bool buildOp(GenContext &g, OpKind k);
/// View ops, in ViewGen.cpp.
bool buildView(GenContext &g, OpKind k);
/// concat, pad, reduce_mean, conv2d and the pools, in WorkloadBuilders.cpp.
bool buildWorkload(GenContext &g, OpKind k);
/// Seed patterns, in Patterns.cpp.
bool buildPattern(GenContext &g, PatternKind p);
/// A chain of views of form `f` and its consumer, in ViewChains.cpp.
bool buildViewChain(GenContext &g, ViewChainForm f);
/// Cuts a finished case into a chain of tasks at the policy's chain rate
/// (TaskGen.cpp). Its draws come from a stream of their own, so a case's
/// ops are the same with any chain settings.
void drawTasks(Case &c, uint64_t seed, const Policy &policy);

//===--- Index-map helpers (ViewGen.cpp), shared with the patterns ----------===//

/// The row-major linear index of a `shape`-shaped result, over d0..dN.
/// Unit dims contribute no term.
IndexExpr linearIndex(const std::vector<int64_t> &shape);
/// Splits `linear` (ranging within [0, numel(src))) mixed-radix over `src`:
/// one `(linear floordiv stride) mod dim` expression per source dim.
std::vector<IndexExpr> radixSplit(const IndexExpr &linear, const std::vector<int64_t> &src);
/// A random factorization of `n` into `rank` dims (unit dims included);
/// empty when some dim would exceed the verifier's limit.
std::vector<int64_t> factorize(GenContext &g, int64_t n, unsigned rank);

} // namespace npufuzz::gen

#endif // NPUFUZZ_GENERATORS_GENCONTEXT_H
