//===- generators/OpBuilders.cpp - Builders for the non-view ops ----------===//
//
// One builder per op family. Each picks operands whose types satisfy the
// op's typing rule (ir/Verifier.cpp), draws attributes within range, and
// emits; views are in ViewGen.cpp.
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include "ir/Verifier.h"

#include <algorithm>

namespace npufuzz::gen {

namespace {

bool anyDType(DType) { return true; }
bool numeric(DType t) { return t != DType::I1; }

/// The element types an elementwise op of kind `k` accepts.
DTypePred dtypesFor(OpKind k) {
  return [k](DType t) { return elementwiseAcceptsDType(k, t); };
}

TypePred withDType(const DTypePred &p, unsigned minRank = 1, unsigned maxRank = kMaxRank) {
  return [p, minRank, maxRank](const TensorType &t) {
    return p(t.dtype) && t.rank() >= minRank && t.rank() <= maxRank;
  };
}

/// An operand for an op that accepts `dtypes` at ranks [minRank, maxRank].
ValueId pickOperand(GenContext &g, const DTypePred &dtypes, unsigned minRank = 1,
                    unsigned maxRank = kMaxRank) {
  return g.operand(withDType(dtypes, minRank, maxRank),
                   [&] { return g.drawType(dtypes, minRank, maxRank); });
}

/// An i1 value of `shape` (a mask or a select condition).
ValueId maskLike(GenContext &g, const std::vector<int64_t> &shape) {
  return g.operandLike(TensorType{DType::I1, shape, std::nullopt});
}

// Drawing one attribute of an elementwise op by its kind in ir/OpAttrs.def.
// Kinds whose range depends on a shape (axes, lists, maps) or that only
// inputs take have builders of their own; an elementwise op never has them.
void drawAttr(GenContext &g, DType t, Scalar &s) { s = g.drawScalar(t); }
void drawAttr(GenContext &g, DType, RoundingMode &m) {
  m = static_cast<RoundingMode>(g.rng.below(kNumRoundingModes));
}
void drawAttr(GenContext &g, DType, PadKind &p) {
  p = static_cast<PadKind>(g.rng.below(kNumPadKinds));
}
template <typename Field> void drawAttr(GenContext &, DType, Field &) {}

/// The attributes ir/OpAttrs.def gives elementwise op `k` on operands of
/// `t`, in the table's order (none for most: they draw nothing).
OpAttrs drawElementwiseAttrs(GenContext &g, OpKind k, DType t) {
  OpAttrs a;
#define NPF_ATTR(OpEnum, Key, Kind, Field)                                                         \
  if (k == OpKind::OpEnum)                                                                         \
    drawAttr(g, t, a.Field);
#include "ir/OpAttrs.def"
  return a;
}

bool buildElementwise(GenContext &g, OpKind k) {
  const ValueId x = pickOperand(g, dtypesFor(k));
  if (x == kNoValue)
    return false;
  std::vector<ValueId> operands = {x};
  if (opCategory(k) != OpCategory::Unary)
    operands.push_back(g.operandLike(g.c.typeOf(x)));
  // An integer x div x never divides with mixed signs, where floor and
  // truncation part: its divisor is then an input of its own, whose data
  // makeInputs relates to x.
  if (k == OpKind::Div && !isFloat(g.c.typeOf(x).dtype) && operands[1] == x) {
    TensorType t = g.c.typeOf(x);
    t.valid.reset();
    operands[1] = g.newInput(t);
    if (operands[1] == kNoValue)
      return false;
  }
  return g.emit(k, operands, drawElementwiseAttrs(g, k, g.c.typeOf(x).dtype)) >= 0;
}

bool buildExpand(GenContext &g, OpKind k) {
  const ValueId x = pickOperand(g, numeric, 2, 2);
  if (x == kNoValue)
    return false;
  const TensorType &xt = g.c.typeOf(x);
  const bool row = opCategory(k) == OpCategory::RowExpand;
  TensorType st{xt.dtype, {row ? xt.shape[0] : 1, row ? 1 : xt.shape[1]}, std::nullopt};
  ValueId s = g.operandLike(st);
  // As in buildElementwise: an integer division's divisor is not x itself.
  if (s == x && expandBaseOp(k) == OpKind::Div && !isFloat(xt.dtype))
    s = g.newInput(st);
  return s != kNoValue && g.emit(k, {x, s}, {}) >= 0;
}

bool buildSelect(GenContext &g) {
  const ValueId a = pickOperand(g, anyDType);
  if (a == kNoValue)
    return false;
  const TensorType at = g.c.typeOf(a);
  const ValueId cond = maskLike(g, at.shape);
  return g.emit(OpKind::Select, {cond, a, g.operandLike(at)}, {}) >= 0;
}

bool buildMaskedFill(GenContext &g) {
  const ValueId x = pickOperand(g, anyDType);
  if (x == kNoValue)
    return false;
  OpAttrs attrs;
  attrs.value = g.drawScalar(g.c.typeOf(x).dtype);
  return g.emit(OpKind::MaskedFill, {x, maskLike(g, g.c.typeOf(x).shape)}, attrs) >= 0;
}

bool buildCast(GenContext &g) {
  const ValueId x = pickOperand(g, anyDType);
  if (x == kNoValue)
    return false;
  const DType from = g.c.typeOf(x).dtype;
  OpAttrs attrs;
  attrs.dtype = g.drawDType([from](DType t) { return t != from; });
  attrs.rounding = static_cast<RoundingMode>(g.rng.below(5));
  return g.emit(OpKind::Cast, {x}, attrs) >= 0;
}

bool buildReduce(GenContext &g, OpKind k) {
  const ValueId x = pickOperand(g, numeric);
  if (x == kNoValue)
    return false;
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(g.c.typeOf(x).rank()));
  return g.emit(k, {x}, attrs) >= 0;
}

bool buildTopK(GenContext &g) {
  const ValueId x = pickOperand(g, numeric);
  if (x == kNoValue)
    return false;
  const TensorType &xt = g.c.typeOf(x);
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(xt.rank()));
  const int64_t dim = xt.shape[attrs.axis];
  attrs.k = g.rng.chance(0.6) ? std::min<int64_t>(dim, g.rng.range(1, 8)) : g.rng.range(1, dim);
  // Cut after the draws, so a policy's bound changes no other case.
  const int64_t perK = xt.numElements();
  attrs.k = std::max<int64_t>(1, std::min(attrs.k, g.policy.maxTopKSteps / perK));
  return g.emit(OpKind::TopK, {x}, attrs) >= 0;
}

bool buildMatmul(GenContext &g) {
  const DType operandType = g.drawDType([](DType t) {
    return t == DType::F32 || t == DType::BF16 || t == DType::F16 || t == DType::I8 ||
           t == DType::I32;
  });
  const DType acc = isFloat(operandType) ? DType::F32 : DType::I32;
  const unsigned rank = g.policy.maxRank >= 3 && g.rng.chance(0.25) ? 3 : 2;
  auto fits = [&](const TensorType &t) { return t.dtype == operandType && t.rank() == rank; };
  // Each product is a multiply-add in the reference: M*N*K*B counts against
  // the case budget so matmuls stay cheap.
  const int64_t macBudget = std::max<int64_t>(1, g.elementsLeft());
  ValueId a = kNoValue;
  std::optional<ValueId> existing = g.pickExisting(fits);
  if (existing && g.rng.chance(g.policy.reuseRate)) {
    a = *existing;
  } else {
    TensorType at{operandType, {}, std::nullopt};
    if (rank == 3)
      at.shape.push_back(g.drawDim(4));
    at.shape.push_back(g.drawDim(64));
    at.shape.push_back(g.drawDim(128));
    a = g.newInput(at);
  }
  if (a == kNoValue)
    return false;
  const std::vector<int64_t> as = g.c.typeOf(a).shape;
  int64_t outer = 1;
  for (int64_t d : as)
    outer *= d;
  const int64_t n = g.drawDim(std::max<int64_t>(1, macBudget / outer));
  if (outer * n > macBudget)
    return false;
  std::vector<int64_t> bs = as;
  bs[rank - 2] = as[rank - 1];
  bs[rank - 1] = n;
  OpAttrs attrs;
  attrs.dtype = acc;
  return g.emit(OpKind::Matmul, {a, g.operandLike({operandType, bs, std::nullopt})}, attrs) >= 0;
}

/// An index tensor of `shape` whose values knownRange proves lie in
/// [0, limit): an existing proven value, an iota, or a range-filled input.
ValueId gatherIndices(GenContext &g, const std::vector<int64_t> &shape, int64_t limit) {
  auto proven = [&](ValueId v) {
    Interval r;
    const TensorType &t = g.c.typeOf(v);
    return t.shape == shape && isInteger(t.dtype) && knownRange(g.c, v, r) && r.lo >= 0 &&
           r.hi < limit;
  };
  std::vector<ValueId> candidates;
  for (size_t v = 0; v < g.c.values.size(); ++v)
    if (proven(static_cast<ValueId>(v)))
      candidates.push_back(static_cast<ValueId>(v));
  if (!candidates.empty() && g.rng.chance(g.policy.reuseRate))
    return g.rng.pick(candidates);
  TensorType t{
      g.drawDType([limit](DType d) { return isInteger(d) && (d != DType::I8 || limit <= 128); }),
      shape, std::nullopt};
  std::vector<unsigned> iotaAxes;
  for (unsigned i = 0; i < shape.size(); ++i)
    if (shape[i] <= limit)
      iotaAxes.push_back(i);
  if (!iotaAxes.empty() && g.rng.chance(0.2)) {
    OpAttrs attrs;
    attrs.axis = g.rng.pick(iotaAxes);
    return g.emitSource(OpKind::Iota, t, attrs);
  }
  InputFill fill;
  fill.kind = FillKind::Range;
  fill.lo = g.rng.chance(0.7) ? 0 : g.rng.range(0, limit - 1);
  fill.hi = g.rng.chance(0.7) ? limit - 1 : g.rng.range(fill.lo, limit - 1);
  return g.newInput(t, fill);
}

bool buildGather(GenContext &g) {
  const ValueId src = pickOperand(g, anyDType);
  if (src == kNoValue)
    return false;
  const std::vector<int64_t> srcShape = g.c.typeOf(src).shape;
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(srcShape.size()));
  std::vector<int64_t> idxShape = srcShape;
  const int64_t rest = g.c.typeOf(src).numElements() / srcShape[attrs.axis];
  idxShape[attrs.axis] = g.drawDim(std::max<int64_t>(1, g.elementsLeft() / 2 / rest));
  return g.emit(OpKind::Gather, {src, gatherIndices(g, idxShape, srcShape[attrs.axis])}, attrs) >=
         0;
}

bool buildSetValidShape(GenContext &g) {
  const ValueId x = pickOperand(g, anyDType, 2, 2);
  if (x == kNoValue)
    return false;
  const TensorType &xt = g.c.typeOf(x);
  const ValidShape v = *g.drawValidShape(xt.shape[0], xt.shape[1]);
  OpAttrs attrs;
  attrs.rows = v.rows;
  attrs.cols = v.cols;
  attrs.dynamic = v.dynamic;
  return g.emit(OpKind::SetValidShape, {x}, attrs) >= 0;
}

bool buildFillPad(GenContext &g) {
  // Padding only matters outside a valid shape: prefer tiles that have one,
  // and narrow a full tile first otherwise.
  std::optional<ValueId> x =
      g.pickExisting([](const TensorType &t) { return t.valid.has_value(); });
  if (!x || !g.rng.chance(g.policy.reuseRate)) {
    if (!buildSetValidShape(g))
      return false;
    x = g.c.result(static_cast<int32_t>(g.c.ops.size() - 1));
  }
  OpAttrs attrs;
  attrs.pad = static_cast<PadKind>(g.rng.below(3));
  return g.emit(OpKind::FillPad, {*x}, attrs) >= 0;
}

/// insert: a tile written into a live tensor that holds it (the seeds'
/// `out[r:, c:] = tile`). The live tensor is an existing value when one
/// holds the tile, or a new input a little bigger in each dim, so the
/// region ends inside it and its neighbours are compared.
bool buildInsert(GenContext &g) {
  const ValueId src = pickOperand(g, anyDType);
  if (src == kNoValue)
    return false;
  const TensorType st = g.c.typeOf(src);
  std::optional<ValueId> dest = g.pickExisting([&](const TensorType &t) {
    if (t.dtype != st.dtype || t.rank() != st.rank() || t.shape == st.shape)
      return false;
    for (unsigned d = 0; d < t.rank(); ++d)
      if (t.shape[d] < st.shape[d])
        return false;
    return true;
  });
  if (!dest || !g.rng.chance(g.policy.reuseRate)) {
    TensorType dt{st.dtype, st.shape, std::nullopt};
    for (size_t d = 0; d < dt.shape.size(); ++d)
      if (g.rng.chance(d + 1 == dt.shape.size() ? 0.8 : 0.5))
        dt.shape[d] += g.rng.range(1, std::max<int64_t>(4, dt.shape[d] / 2));
    if (dt.numElements() > g.elementsLeft())
      dt.shape = st.shape;
    dest = g.newInput(dt);
    if (*dest == kNoValue)
      return false;
  }
  const std::vector<int64_t> &ds = g.c.typeOf(*dest).shape;
  OpAttrs attrs;
  for (size_t d = 0; d < ds.size(); ++d)
    attrs.offsets.push_back(g.rng.range(0, ds[d] - st.shape[d]));
  return g.emit(OpKind::Insert, {*dest, src}, attrs) >= 0;
}

bool buildConst(GenContext &g) {
  const TensorType t = g.drawType(anyDType, 1, kMaxRank, /*allowValid=*/false);
  OpAttrs attrs;
  attrs.value = g.drawScalar(t.dtype);
  return g.emitSource(OpKind::Const, t, attrs) != kNoValue;
}

bool buildIota(GenContext &g) {
  TensorType t = g.drawType(numeric, 1, kMaxRank, /*allowValid=*/false);
  OpAttrs attrs;
  attrs.axis = static_cast<int64_t>(g.rng.below(t.rank()));
  if (t.dtype == DType::I8)
    t.shape[attrs.axis] = std::min<int64_t>(t.shape[attrs.axis], 128);
  return g.emitSource(OpKind::Iota, t, attrs) != kNoValue;
}

/// Ops that need a rank-2 (or higher) operand cannot be built under a
/// policy whose max_rank is 1.
unsigned minRankFor(OpKind k) {
  switch (opCategory(k)) {
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return 2;
  case OpCategory::Source:
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare: return 1;
  case OpCategory::View:
    switch (k) {
    case OpKind::Transpose:
    case OpKind::Squeeze: return 2;
    case OpKind::Slice:
    case OpKind::Chunk:
    case OpKind::Reshape:
    case OpKind::Broadcast:
    case OpKind::Unsqueeze:
    case OpKind::IndexMap:
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
      return 1;
    }
    return 1;
  case OpCategory::Other: break;
  }
  switch (k) {
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Conv2d: return 4;
  case OpKind::Addmm:
  case OpKind::Matmul:
  case OpKind::SetValidShape:
  case OpKind::FillPad: return 2;
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Gather:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return 1;
  }
  return 1; // unreachable: every OpKind is a case above
}

} // namespace

bool buildOp(GenContext &g, OpKind k) {
  if (minRankFor(k) > g.policy.maxRank)
    return false;
  switch (opCategory(k)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare: return buildElementwise(g, k);
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return buildExpand(g, k);
  case OpCategory::View: return buildView(g, k);
  case OpCategory::Source:
    switch (k) {
    case OpKind::Const: return buildConst(g);
    case OpKind::Iota: return buildIota(g);
    case OpKind::Input: // made on demand, never chosen
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
      return false;
    }
    return false;
  case OpCategory::Other: break;
  }
  switch (k) {
  case OpKind::Select: return buildSelect(g);
  case OpKind::MaskedFill: return buildMaskedFill(g);
  case OpKind::Cast: return buildCast(g);
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax: return buildReduce(g, k);
  case OpKind::TopK: return buildTopK(g);
  case OpKind::Matmul: return buildMatmul(g);
  case OpKind::Gather: return buildGather(g);
  case OpKind::SetValidShape: return buildSetValidShape(g);
  case OpKind::FillPad: return buildFillPad(g);
  case OpKind::Insert: return buildInsert(g);
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d: return buildWorkload(g, k);
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace npufuzz::gen
