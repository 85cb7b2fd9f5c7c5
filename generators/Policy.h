//===- generators/Policy.h - Generation policy as plain data ----*- C++ -*-===//
//
// Everything that steers the case generator, kept apart from the generator
// code (as yarpgen does) so campaigns can retune it without touching code.
// A policy prints as the keys that differ from the defaults, and that text is
// recorded in every generated case's provenance, so a case names the policy
// that made it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_POLICY_H
#define NPUFUZZ_GENERATORS_POLICY_H

#include "ir/Case.h"
#include "ir/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// The seed patterns the generator can insert as a unit; each reproduces the
/// dataflow of one bug report in shared/seeds.
enum class PatternKind : uint8_t {
  MoeMask,    ///< iota == expert_idx mask, index vs i64, masked_fill, topk
  SwiGlu,     ///< matmul -> chunk x2 -> silu(gate) * up -> matmul
  ValidTail,  ///< row_expand_mul -> set_validshape -> fillpad (-> insert)
  RadixSplit, ///< mixed-radix floordiv/mod index_map to >4-D, unit dims, tails
  /// chunk or slice at an offset, any axis -> one elementwise op -> matmul
  /// (seed 001's gate on any axis; weighed 0 by the default policy)
  SlicedMatmul,
};
constexpr int kNumPatterns = 5;
std::string_view patternName(PatternKind p);

/// The chains of views a case can start with (ViewChainForms.def).
enum class ViewChainForm : uint8_t {
#define NPF_VIEW_CHAIN(Enum, Name, Weight, Description) Enum,
#include "generators/ViewChainForms.def"
};
constexpr int kNumViewChainForms = 0
#define NPF_VIEW_CHAIN(Enum, Name, Weight, Description) +1
#include "generators/ViewChainForms.def"
    ;
std::string_view viewChainFormName(ViewChainForm f);

/// How dims are drawn: a small dim (1..4), a multiple of the lane width, a
/// multiple of the lane width plus or minus a small tail, or any size up to
/// `maxDim`.
enum class DimClass : uint8_t { Small, Lane, Tail, Any };
constexpr int kNumDimClasses = 4;

struct Policy {
  /// Compute ops per case (everything but inputs); the generator draws a
  /// target in [1, maxOps]. A pattern may overshoot it by its own size.
  unsigned maxOps = 8;
  /// Inputs per case; when reached, operands come from existing values.
  unsigned maxInputs = 6;
  /// Highest rank of any value (at most kMaxRank).
  unsigned maxRank = 6;
  /// Largest dim of any value.
  int64_t maxDim = 4096;
  /// Vector lane width: dims cluster on multiples of it and just off them.
  int64_t laneWidth = 16;
  /// Element limits per value and summed over all values of a case
  /// (matmul's M*N*K counts against the case limit too).
  int64_t maxTensorElements = 1 << 16;
  int64_t maxCaseElements = 1 << 18;
  /// Steps of a drawn topk's selection (rows x k x the axis's extent): k
  /// is cut to keep under it, to 1 at least. A backend that runs topk's
  /// loop in an interpreter (IREE's VM) takes minutes past a few million;
  /// none is cut by default. The MoE seed pattern's topk (k up to 8 of a
  /// tensor within max_tensor_elements) is not cut.
  int64_t maxTopKSteps = int64_t{1} << 40;

  /// Probability that an operand is taken from existing values (when one
  /// fits) rather than from a new input.
  double reuseRate = 0.7;
  /// Probability that a new rank-2 input carries a valid shape.
  double validShapeRate = 0.15;
  /// Probability that a valid shape (input or set_validshape) is dynamic.
  double dynamicValidRate = 0.4;
  /// Case::edgeRate of generated cases.
  double edgeRate = 0.05;
  /// Maximum depth of a random index_map expression before it is fitted to
  /// its source dim.
  unsigned indexDepth = 3;
  /// Probability that a random index_map expression node is floordiv or mod.
  double floorDivModRate = 0.4;
  /// Probability that an index_map is a mixed-radix reshape (linearize the
  /// result index, split it over the source dims) rather than per-dim
  /// expressions.
  double radixMapRate = 0.4;
  /// Probability that a case starts with one of the seed patterns.
  double patternRate = 0.2;
  /// Probability that a case starts with a chain of views as models write
  /// them (ViewChainForms.def), drawn by `viewChainWeights`, fed to a
  /// consumer.
  double viewChainRate = 0.2;
  /// Chance that a slice's or chunk's last dim keeps whole lane-width
  /// blocks (unit step, size and offset multiples of the lane width, where
  /// the dim has two or more blocks): a tile target's sub-tile views and
  /// DMAs move whole 32-byte blocks. 0 draws as always (no draw is made).
  double viewLaneAligned = 0;
  /// Probability that a case of two compute ops or more is a chain of
  /// tasks (ir/Case.h), cut between its ops into 2 to `maxTasks` tasks.
  double chainRate = 0.3;
  unsigned maxTasks = 3;
  /// Blocks of a task: drawn from 1 to `maxBlocks`.
  unsigned maxBlocks = 4;
  /// Probability that a task writes GM by scalar stores rather than DMA.
  double scalarStoreRate = 0.5;

  /// Relative weights, indexed by the enum. Zero disables a choice.
  /// Input has no weight of its own: inputs are made when operands need
  /// them, so opWeights[Input] is always 0.
  std::vector<uint32_t> opWeights;        ///< by OpKind
  std::vector<uint32_t> dtypeWeights;     ///< by DType
  std::vector<uint32_t> rankWeights;      ///< index r-1 for rank r (1..6)
  std::vector<uint32_t> dimWeights;       ///< by DimClass
  std::vector<uint32_t> fillWeights;      ///< by FillKind (for float/int inputs)
  std::vector<uint32_t> patternWeights;   ///< by PatternKind
  std::vector<uint32_t> viewChainWeights; ///< by ViewChainForm

  static Policy defaults();

  /// `default` followed by the `key=value` pairs that differ from
  /// defaults(), in a fixed key order, separated by spaces.
  std::string str() const;

  bool operator==(const Policy &o) const;
  bool operator!=(const Policy &o) const { return !(*this == o); }
};

/// Parses policy text: whitespace-separated `key=value` pairs (spaces around
/// `=` allowed), one per line or several per line, `#` starting a comment to
/// the end of the line, and the word `default` (the base every text starts
/// from). Keys are those printed by Policy::str(): scalar keys such as
/// `max_ops`, and weights `op.NAME`, `dtype.NAME`, `rank.N`, `dim.CLASS`,
/// `fill.NAME`, `pattern.NAME`, `view_chain.NAME`. On error returns false with a message naming
/// the offending key; `out` is then unspecified.
bool parsePolicy(const std::string &text, Policy &out, std::string &error);

/// The default policy of --backend pto: what PTO tiles can hold (rank 2,
/// the dtypes t-ops take, rows of whole 32-byte blocks mostly) and the ops
/// the PTO emitter expresses, so that most cases reach ptoas.
Policy ptoPolicy();

/// The default policy of --backend mlir-jit and mlir-tools: the defaults
/// less the workload ops (concat, pad, reduce_mean, conv2d, the pools) the
/// MLIR styles do not lower.
Policy mlirPolicy();

/// The default policy of --backend pypto: the PTO policy less what PyPTO
/// (at the commit whose ptoas is 0.27) does not write or lower to PTO:
/// views, chains, some row and column expands.
Policy pyptoPolicy();

/// The default policy of --backend inductor: small dims, since the emitted
/// programs fold reductions and matmuls in explicit loops that
/// torch.compile unrolls (a graph node a step), and the seed patterns
/// twice as often.
Policy inductorPolicy();

/// The default policy of --backend tvm (Apache TVM through its torch
/// frontend).
Policy tvmPolicy();

/// The default policy of --backend iree: no index-typed tensors, which
/// IREE's dispatch regions do not take, and the seed patterns twice as
/// often.
Policy ireePolicy();

/// The default policy of --backend pytorchsim: the ops, dtypes and ranks
/// its npu device takes, with the seed patterns often.
Policy pytorchsimPolicy();

/// The policy a campaign of backend `backend` (its --backend name) uses
/// when no --policy is given: pto's, inductor's, tvm's, iree's and pytorchsim's own, else the
/// defaults.
Policy defaultPolicyFor(std::string_view backend);

/// Reads a policy file (`npufuzz gen --policy FILE`).
bool parsePolicyFile(const std::string &path, Policy &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_POLICY_H
