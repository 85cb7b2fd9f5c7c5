//===- ir/Case.h - The tile-program case model ------------------*- C++ -*-===//
//
// A case is a small SSA program over tensors/tiles: a list of ops, each
// defining one or more values, and a list of returned values. It also records
// where it came from (generator seed and policy) and how its inputs are filled.
//
// Semantics of every op are those of the reference executor; they are stated
// next to OpKind below so that every backend has one place to read them.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_CASE_H
#define NPUFUZZ_IR_CASE_H

#include "ir/DType.h"
#include "ir/IndexExpr.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

/// Op kinds; see ir/Ops.def for the table.
///
/// Elementwise semantics (Unary/Binary/Compare/RowExpand/ColExpand/Select/
/// MaskedFill): f16/bf16 operands are widened exactly to f32, the op is
/// evaluated in f32 (transcendentals computed in double and rounded once to
/// f32), and the result is rounded to the element type with rne. Integer ops
/// wrap at the type's width. Float max/min propagate NaN and order -0 < +0.
/// Integer div is floor division, x div 0 == 0 and MIN div -1 == MIN.
/// Compare is ordered for eq/lt/le/gt/ge and unordered for ne (NaN != x).
/// Bitwise ops (and/or/xor/not) take integer and i1 operands only;
/// arithmetic and compares take no i1 except eq/ne.
///
/// Reductions keep the reduced axis with size 1. reduce_sum accumulates left
/// to right in f32 (floats) or at the type's width (integers) and rounds once
/// to the element type; reduce_max/min propagate NaN; argmax returns the i64
/// index of the first maximum (a NaN counts as the maximum).
///
/// topk: the k largest along `axis`, descending; ties keep the lower index
/// first; NaN is larger than every number. Results: values, i64 indices.
/// This order is part of the case, so backends realise it exactly rather
/// than compare tie-invariantly (torch.topk leaves the order of ties open;
/// the PyTorch emitter uses a stable descending sort instead).
///
/// matmul: [M,K]x[K,N] or [B,M,K]x[B,K,N] -> acc dtype. Each product is
/// formed in the acc type (exact for bf16/f16 into f32, wrapping for integer)
/// and accumulated left to right over k starting from 0.
///
/// concat {axis}: its operands (two or more, one dtype and rank, the same
/// shape off `axis`) laid one after another along `axis`.
///
/// pad {low, high, value}: the operand with low[d] elements before and
/// high[d] after it along each dim d, all `value` (rounded to the dtype),
/// which are defined.
///
/// reduce_mean {axis}: the f32 sum of reduce_sum (from its first term) divided by the axis' extent
/// in f32, rounded once to the element type (floats only).
///
/// Windows over NCHW [N, C, H, W] (floats only): a window of kernel[0] x
/// kernel[1] taps at stride `stride`, dilation `dilation` (conv2d, max_pool2d;
/// 1 otherwise) and zero padding `padding` each side of H and W; the output
/// extent is (H + 2p - d(k-1) - 1) / s + 1. Taps in the padding are not
/// terms: a sum runs over the in-bounds taps, in (c, kh, kw) order, in f32,
/// from its first term (so -0 when every term is -0).
/// avg_pool2d divides that sum by kernel[0] * kernel[1] (the padding
/// counted, as torch's count_include_pad). max_pool2d's results are the
/// maximum (NaN is larger than every number; -0 == +0) and the i64 index
/// h * W + w in its input plane of the first in-bounds tap holding it, the
/// last NaN for a NaN (torch's CPU kernel updates on every NaN).
/// conv2d(x, w[Cout, C/groups, kh, kw]) {stride, padding, dilation, groups}
/// -> f32: output channel o reads channels of group o / (Cout/groups); each
/// product is formed in f32 (exact for bf16/f16). On integers (i8, i32,
/// i64) the result has their type, and products and sums wrap at its width.
///
/// addmm(bias, a, b): matmul's [M,K]x[K,N] or [B,M,K]x[B,K,N] of floats in
/// f32, plus `bias` (of the result's rank, each dim 1 or the result's),
/// -> f32: the products summed over k from the first, then the bias added
/// (torch.addmm, baddbmm and linear).
///
/// cast: float->float and int->float round once under `rounding`;
/// float->int rounds under `rounding` and saturates, NaN -> 0; int->int wraps
/// (sign-extends when widening); i1 -> number is 0/1; anything -> i1 is x != 0.
///
/// insert(dest, src) {offsets}: destination passing, the seeds' `out[r:, c:]
/// = tile` or a KV-cache row update. The result is `dest` (its type, valid
/// shape included) with the valid region of `src` (all of it below rank 2)
/// written at `offsets`; every other element of `dest` keeps its value and
/// definedness. src has dest's dtype and rank and fits at the offsets.
///
/// Definedness: an element outside its value's valid shape is undefined. A
/// result element is defined when every element it was computed from is
/// defined and it lies inside the result's valid shape. fillpad defines the
/// padding. Only defined output elements are compared.
///
/// The valid-region contract: a kernel leaves the elements of its outputs
/// outside their valid shape as they were. PTO's TSTORE stores the valid
/// region only, and a caller whose output is a view into a bigger live
/// tensor relies on it. Every backend keeps to it; the harness fills each
/// output before the run and checks them (`out-of-region-write`). Kernels
/// access nothing outside their buffers (`out-of-bounds-read`/`-write`).
enum class OpKind : uint8_t {
#define NPF_OP(Enum, Name, Cat, Operands, Results, Base, Weight, Traits) Enum,
#include "ir/Ops.def"
};

/// The traits of ir/Ops.def, as bits of opTraits().
namespace op_trait {
inline constexpr unsigned None = 0, FloatOnly = 1u << 0, IntLikeOnly = 1u << 1, AnyDType = 1u << 2,
                          Approximate = 1u << 3, SingularAtZero = 1u << 4, Discontinuous = 1u << 5,
                          Variadic = 1u << 6, ReorderedSum = 1u << 7;
} // namespace op_trait

enum class OpCategory : uint8_t {
  Source,
  Unary,
  Binary,
  Compare,
  RowExpand,
  ColExpand,
  View,
  Other
};

int numOpKinds();
std::string_view opName(OpKind k);
std::optional<OpKind> parseOpName(std::string_view s);
OpCategory opCategory(OpKind k);
/// Operands it takes and results it defines (ir/Ops.def).
unsigned opOperandCount(OpKind k);
unsigned opResultCount(OpKind k);
/// Its default weight in the generator's policy (ir/Ops.def).
uint32_t opDefaultWeight(OpKind k);
/// Its op_trait bits (ir/Ops.def).
unsigned opTraits(OpKind k);
inline bool hasTrait(OpKind k, unsigned trait) { return (opTraits(k) & trait) != 0; }
bool isElementwise(OpKind k);
bool isView(OpKind k);
/// Whether an elementwise op of kind `k` (unary, binary, compare, row/col
/// expand) takes operands of element type `t`: transcendentals take floats,
/// bitwise ops integers and i1, eq/ne anything, the rest numbers (not i1).
bool elementwiseAcceptsDType(OpKind k, DType t);
/// The binary op applied by a RowExpand/ColExpand op (e.g. RowExpandMul ->
/// Mul).
OpKind expandBaseOp(OpKind k);

/// Valid region of a rank-2 tile: rows x cols, at most its shape. When
/// `dynamic`, backends must treat rows/cols as runtime values (kernel
/// arguments), not compile-time constants; the case still records them.
struct ValidShape {
  int64_t rows = 0;
  int64_t cols = 0;
  bool dynamic = false;
  bool operator==(const ValidShape &o) const {
    return rows == o.rows && cols == o.cols && dynamic == o.dynamic;
  }
  bool operator!=(const ValidShape &o) const { return !(*this == o); }
};

/// A static tensor type with an optional valid shape (rank 2 only).
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::optional<ValidShape> valid;

  int64_t numElements() const;
  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
  /// `f32[16,256]`, `f32[16,256]{valid=1x256}`, `f32[16,256]{valid=1x256,dyn}`.
  std::string str() const;
  bool operator==(const TensorType &o) const {
    return dtype == o.dtype && shape == o.shape && valid == o.valid;
  }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
};

/// A scalar attribute (const value, masked_fill value). Integer-like types use
/// `i`, float types `f`.
struct Scalar {
  int64_t i = 0;
  float f = 0.0f;
  bool operator==(const Scalar &o) const;
};

/// How the reference fills an input. Data derive from the case seed, the
/// input's ordinal and the fill, so a case text determines its data.
enum class FillKind : uint8_t {
  Random, ///< dtype-appropriate values, edge values at the case's edge rate
  Zeros,
  Ones,
  Range, ///< uniform integers in [lo, hi] (for index tensors, small ints)
  Iota,  ///< row-major linear position, wrapped/rounded to the dtype
};
constexpr int kNumFillKinds = 5;
std::string_view fillName(FillKind f);

struct InputFill {
  FillKind kind = FillKind::Random;
  int64_t lo = 0, hi = 0; ///< Range only
  bool operator==(const InputFill &o) const { return kind == o.kind && lo == o.lo && hi == o.hi; }
};

/// Padding value of fillpad: zero, or the dtype's lowest/highest value
/// (-inf/+inf for floats, MIN/MAX for integers).
enum class PadKind : uint8_t { Zero, Min, Max };
constexpr int kNumPadKinds = 3;
std::string_view padName(PadKind p);

/// All attributes an op can carry. Which op takes which field, under which
/// key and with what meaning, is the schema ir/OpAttrs.def; each op uses only
/// its rows' fields.
struct OpAttrs {
  int64_t axis = 0;
  int64_t k = 0;
  int64_t count = 0;
  int64_t index = 0;
  int64_t rows = 0, cols = 0;
  bool dynamic = false;
  DType dtype = DType::F32;
  RoundingMode rounding = RoundingMode::NearestEven;
  Scalar value;
  Scalar lo, hi;
  PadKind pad = PadKind::Zero;
  InputFill fill;
  std::vector<int64_t> offsets, sizes, strides, perm, shape;
  /// pad's widths before and after each dim; a window's (conv2d, pools)
  /// kernel, zero padding each side and dilation, per spatial dim (H, W).
  std::vector<int64_t> low, high, kernel, padding, dilation;
  /// conv2d: channel groups.
  int64_t groups = 1;
  std::vector<IndexExpr> map;
};

using ValueId = int32_t;

/// How a task writes the values it hands on through GM.
enum class TaskStore : uint8_t {
  Tile,  ///< by DMA (PTO's TSTORE): straight to GM
  Scalar ///< element by element with scalar stores, through the core's data cache
};
constexpr int kNumTaskStores = 2;
std::string_view taskStoreName(TaskStore s);

/// The most blocks a task may run on.
constexpr int32_t kMaxTaskBlocks = 64;

/// One kernel of a chain (a program of tasks, as PyPTO's orchestration and
/// simpler's runtime run them). A case with tasks is a task graph: each
/// compute op belongs to one task, a task's ops are contiguous, and a task
/// depends on the earlier tasks whose values its ops use. A value one task
/// defines and a later task uses or the case returns is a GM tensor that
/// the task writes; everything else stays in the kernel. Inputs are the
/// host's, in no task.
///
/// A task runs on `blocks` SPMD blocks (cores): each computes the task's
/// values and writes a disjoint share of each GM tensor of the task, the
/// shares together covering it; which share is the backend's. A task that
/// stores by scalar stores leaves them in its core's data cache until a
/// dcci and a dsb push them out: a backend pushes out every line it wrote
/// before the task ends, and keeps each block to lines of its own
/// (oracles/CacheCoherency.h says what happens otherwise).
///
/// Values do not depend on tasks: the reference runs the ops in order,
/// which is an order the graph allows, and a backend may run the tasks in
/// any order the graph allows.
struct Task {
  std::string name;
  int32_t blocks = 1;
  TaskStore store = TaskStore::Tile;
  bool operator==(const Task &o) const {
    return name == o.name && blocks == o.blocks && store == o.store;
  }
};

struct Op {
  OpKind kind = OpKind::Input;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  OpAttrs attrs;
  /// Its task in Case::tasks; -1 is the task of the compute op before it
  /// (the first task for one before every other), so an op a shrinker puts
  /// in keeps its neighbour's. An input is in no task, whatever this says.
  int32_t task = -1;
};

struct Value {
  TensorType type;
  int32_t defOp = -1;      ///< index into Case::ops
  int32_t resultIndex = 0; ///< which result of defOp
  std::string name;        ///< text name without '%'; empty prints the id
};

/// Where a generated case came from. Hand-written cases have no provenance.
struct Provenance {
  uint64_t seed = 0;
  std::string policy; ///< policy text (key=value ...), printed verbatim
};

/// Format version of the `.npf` text. Bump on any incompatible change.
constexpr int kNpfVersion = 1;

struct Case {
  std::optional<Provenance> provenance;
  /// Seed of input data. Generated cases use their generator seed; it is
  /// printed so a hand-edited or reduced case keeps its data.
  uint64_t dataSeed = 0;
  /// Probability (0..1) that a Random-filled element is an edge value
  /// (+-0, denormal, large magnitude, integer extremes).
  double edgeRate = 0.0;
  std::vector<Op> ops;
  std::vector<Value> values;
  std::vector<ValueId> outputs;
  /// The chain's tasks; empty: the case is one kernel.
  std::vector<Task> tasks;

  const TensorType &typeOf(ValueId v) const { return values[v].type; }
  /// Appends an op, creating its result values with `resultTypes`. Returns the
  /// op index.
  int32_t addOp(OpKind kind, std::vector<ValueId> operands, OpAttrs attrs,
                std::vector<TensorType> resultTypes);
  /// Id of result `i` of op `opIndex`.
  ValueId result(int32_t opIndex, unsigned i = 0) const { return ops[opIndex].results[i]; }
  /// Drops ops whose results are unused and not outputs, then renumbers
  /// values densely in definition order (keeping names). `keptOps`, when
  /// given, receives the former index of each op kept, in order.
  void compact(std::vector<size_t> *keptOps = nullptr);
  /// Number of ops that are not inputs.
  size_t numComputeOps() const;
  /// The types of the returned values, in Case::outputs order.
  std::vector<TensorType> outputTypes() const;
};

/// Each op's task, index into Case::tasks, with Op::task's -1 resolved;
/// -1 for inputs and for every op of a case with no tasks.
std::vector<int32_t> opTasks(const Case &c);

/// The tasks with at least one op, in order, each with the indices of its
/// ops: what a backend runs, one kernel each.
struct TaskOps {
  int32_t task = 0;
  std::vector<size_t> ops;
};
std::vector<TaskOps> taskOps(const Case &c);

/// For each value, the last task that reads it: INT32_MAX for the case's
/// outputs (the host reads them after every task), -1 for none.
std::vector<int32_t> lastReadingTasks(const Case &c);

/// Where a task meets GM: the values its ops read that the host or another
/// task defined (in first use), and the values it hands on, which a later
/// task reads or the case returns (in definition order).
struct TaskBoundary {
  std::vector<ValueId> reads, handsOn;
};
TaskBoundary taskBoundary(const Case &c, const TaskOps &k);

/// Task `k` of `c` as a case of its own, as a backend that compiles each
/// task alone sees it: an input for each value it reads (in the order of
/// taskBoundary's reads), its ops, and what it hands on returned (in the
/// order of its handsOn). No tasks, provenance or data. `boundary` is
/// taskBoundary's, or one a backend widened (a value it reads may be
/// handed on as it is).
Case taskAsCase(const Case &c, const TaskOps &k, const TaskBoundary &boundary);

/// taskOps(c) as a runtime runs them that starts, of the tasks whose
/// inputs are ready, the last one first: an order the graph allows, and
/// not the case's wherever the graph leaves room.
std::vector<TaskOps> lastReadyTaskOrder(const Case &c);

/// The printed text's 64-bit FNV-1a hash: the identity of a case.
uint64_t caseHash(const Case &c);

/// The inputs a model holds as its weights, as positions among the case's
/// inputs (in op order): those used, and only used, as a matmul's or an
/// addmm's second factor (directly, or through a transpose, as a linear
/// layer's weight is), an addmm's bias or a convolution's filter, and not
/// returned. An inference compile with freezing folds them in as constants
/// (backend/CompilerSwitches.def).
std::vector<size_t> weightInputs(const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_IR_CASE_H
