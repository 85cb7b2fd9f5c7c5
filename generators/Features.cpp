//===- generators/Features.cpp - Coverage tags of a case ------------------===//
#include "generators/Features.h"

#include "generators/Policy.h"
#include "ir/Window.h"

#include <algorithm>

namespace npufuzz {

namespace {

/// The lane width the `dim:tail` tag is measured against (the default
/// policy's; tags must not depend on the policy that made the case).
constexpr int64_t kLane = 16;

const Op &defOf(const Case &c, ValueId v) { return c.ops[c.values[v].defOp]; }

/// The op that produced `v`, looking through views, casts and `not`: where
/// the data really came from.
const Op &origin(const Case &c, ValueId v) {
  const Op *op = &defOf(c, v);
  while (isView(op->kind) || op->kind == OpKind::Cast || op->kind == OpKind::Not)
    op = &defOf(c, op->operands[0]);
  return *op;
}

bool isKind(const Case &c, ValueId v, OpKind k) { return defOf(c, v).kind == k; }

void indexFeatures(const IndexExpr &e, std::vector<std::string> &out) {
  switch (e.kind()) {
  case IndexExpr::Kind::Dim: return;
  case IndexExpr::Kind::Const:
    if (e.value() < 0)
      out.push_back("index:negative");
    return;
  case IndexExpr::Kind::Add:
    for (const IndexExpr *t : sumTerms(e))
      indexFeatures(*t, out);
    return;
  case IndexExpr::Kind::Mul:
    if (e.value() < 0)
      out.push_back("index:negative");
    break;
  case IndexExpr::Kind::FloorDiv: out.push_back("index:floordiv"); break;
  case IndexExpr::Kind::Mod: out.push_back("index:mod"); break;
  }
  indexFeatures(e.lhs(), out);
}

bool usesFloorDivMod(const Op &op) {
  return std::any_of(op.attrs.map.begin(), op.attrs.map.end(),
                     [](const IndexExpr &e) { return e.countFloorDivMod() > 0; });
}

/// Whether `op` ends seed pattern `p`, recognized by its dataflow wherever it
/// occurs.
bool endsPattern(const Case &c, const Op &op, PatternKind p) {
  switch (p) {
  case PatternKind::MoeMask: {
    if (op.kind != OpKind::MaskedFill)
      return false;
    const Op &cmp = origin(c, op.operands[1]);
    return (cmp.kind == OpKind::CmpEq || cmp.kind == OpKind::CmpNe) &&
           (origin(c, cmp.operands[0]).kind == OpKind::Iota ||
            origin(c, cmp.operands[1]).kind == OpKind::Iota);
  }
  case PatternKind::SwiGlu: {
    // silu(chunk(m)) * chunk(m) with m a matmul result.
    if (op.kind != OpKind::Mul)
      return false;
    auto chunkOfMatmul = [&](ValueId v) {
      const Op &chunk = defOf(c, v);
      return chunk.kind == OpKind::Chunk && isKind(c, chunk.operands[0], OpKind::Matmul);
    };
    for (int i = 0; i < 2; ++i) {
      const Op &act = defOf(c, op.operands[i]);
      if (act.kind == OpKind::Silu && chunkOfMatmul(act.operands[0]) &&
          chunkOfMatmul(op.operands[1 - i]))
        return true;
    }
    return false;
  }
  case PatternKind::ValidTail: {
    if (op.kind != OpKind::FillPad)
      return false;
    const Op &narrow = defOf(c, op.operands[0]);
    return narrow.kind == OpKind::SetValidShape &&
           opCategory(defOf(c, narrow.operands[0]).kind) == OpCategory::RowExpand;
  }
  case PatternKind::SlicedMatmul: {
    // matmul(f(view(x))) with the view a chunk or slice of an input.
    if (op.kind != OpKind::Matmul)
      return false;
    const Op &prologue = defOf(c, op.operands[0]);
    if (prologue.operands.size() != 1)
      return false;
    const Op &view = defOf(c, prologue.operands[0]);
    return (view.kind == OpKind::Chunk || view.kind == OpKind::Slice) &&
           isKind(c, view.operands[0], OpKind::Input);
  }
  case PatternKind::RadixSplit: {
    if (op.kind != OpKind::IndexMap)
      return false;
    const Op &inner = defOf(c, op.operands[0]);
    const bool highRank =
        c.typeOf(op.results[0]).rank() > 4 || c.typeOf(inner.results[0]).rank() > 4;
    return inner.kind == OpKind::IndexMap && highRank &&
           (usesFloorDivMod(op) || usesFloorDivMod(inner));
  }
  }
  return false; // unreachable: every PatternKind is a case above
}

/// The seed patterns that `op` ends.
void patternFeatures(const Case &c, const Op &op, std::vector<std::string> &out) {
  for (int i = 0; i < kNumPatterns; ++i) {
    const PatternKind p = static_cast<PatternKind>(i);
    if (endsPattern(c, op, p))
      out.push_back("pattern:" + std::string(patternName(p)));
  }
}

/// The op's own tags: how it fills, rounds, pads, multiplies, gathers,
/// narrows or maps indices. Axes, sizes and values are not tagged.
void attrFeatures(const Case &c, const Op &op, std::vector<std::string> &out) {
  const OpAttrs &a = op.attrs;
  switch (opCategory(op.kind)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return; // no attributes
  case OpCategory::Source:
    switch (op.kind) {
    case OpKind::Input: out.push_back("fill:" + std::string(fillName(a.fill.kind))); return;
    case OpKind::Const:
    case OpKind::Iota:
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
      return;
    }
    return;
  case OpCategory::View:
    switch (op.kind) {
    case OpKind::IndexMap:
      for (const IndexExpr &e : a.map)
        indexFeatures(e, out);
      return;
    case OpKind::Slice:
    case OpKind::Chunk:
    case OpKind::Transpose:
    case OpKind::Reshape:
    case OpKind::Broadcast:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
      return;
    }
    return;
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::Cast: out.push_back("round:" + std::string(roundingName(a.rounding))); return;
  case OpKind::FillPad: out.push_back("pad:" + std::string(padName(a.pad))); return;
  case OpKind::Matmul:
    out.push_back("matmul:" + std::string(dtypeName(c.typeOf(op.operands[0]).dtype)) + "->" +
                  std::string(dtypeName(a.dtype)));
    return;
  case OpKind::Gather:
    out.push_back("gather:" + std::string(opName(origin(c, op.operands[1]).kind)));
    return;
  case OpKind::SetValidShape: out.push_back(a.dynamic ? "valid:dynamic" : "valid:static"); return;
  case OpKind::Insert: {
    // Where the written region ends: inside the live tensor's rows (its
    // neighbours are compared), and whether only a valid region is written.
    const TensorType &dest = c.typeOf(op.operands[0]), &src = c.typeOf(op.operands[1]);
    const size_t last = dest.rank() - 1;
    if (a.offsets[last] + src.shape[last] < dest.shape[last])
      out.push_back("insert:interior");
    if (src.valid)
      out.push_back("insert:valid");
    return;
  }
  case OpKind::Addmm: {
    const Op &b = defOf(c, op.operands[2]);
    out.push_back(c.typeOf(op.results[0]).rank() == 3 ? "addmm:batched"
                  : b.kind == OpKind::Transpose       ? "addmm:linear"
                                                      : "addmm:plain");
    return;
  }
  case OpKind::Concat:
    // Past eight inputs Inductor stops fusing a cat pointwise
    // (max_pointwise_cat_inputs).
    out.push_back(op.operands.size() > 8 ? "concat:many" : "concat:few");
    return;
  case OpKind::Pad: {
    bool interior = false; // a dim other than the last padded
    for (size_t d = 0; d + 1 < a.low.size(); ++d)
      interior = interior || a.low[d] != 0 || a.high[d] != 0;
    out.push_back(interior ? "pad:outer" : "pad:last");
    return;
  }
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Conv2d: {
    const std::string name(opName(op.kind));
    Window2d w;
    if (!windowOf(c, op, w))
      return;
    if (w.stride[0] > 1 || w.stride[1] > 1)
      out.push_back(name + ":strided");
    if (w.padding[0] > 0 || w.padding[1] > 0)
      out.push_back(name + ":padded");
    if (w.dilation[0] > 1 || w.dilation[1] > 1)
      out.push_back(name + ":dilated");
    const Op &from = defOf(c, op.operands[0]);
    if (from.kind == OpKind::Transpose && from.attrs.perm == std::vector<int64_t>{0, 3, 1, 2})
      out.push_back(name + ":channels_last");
    if (op.kind == OpKind::Conv2d && a.groups > 1)
      out.push_back(a.groups == c.typeOf(op.operands[0]).shape[1] ? "conv2d:depthwise"
                                                                  : "conv2d:grouped");
    return;
  }
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::ReduceMean:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return;
  }
}

/// Whether view op `op` of `c` gives a value whose elements are not its
/// source's in row-major order without gaps (ignoring unit dims).
bool viewBreaksContiguity(const Case &c, const Op &op) {
  const TensorType &src = c.typeOf(op.operands[0]);
  switch (op.kind) {
  case OpKind::Transpose: {
    std::vector<int64_t> moved; // the non-unit dims, in the result's order
    for (const int64_t d : op.attrs.perm)
      if (src.shape[d] != 1)
        moved.push_back(d);
    for (size_t k = 1; k < moved.size(); ++k)
      if (moved[k] < moved[k - 1])
        return true;
    return false;
  }
  case OpKind::Slice: {
    // Contiguous when every dim after the first one with more than one
    // element is taken whole, with stride 1.
    bool inner = false;
    for (size_t d = 0; d < src.shape.size(); ++d) {
      const int64_t size = op.attrs.sizes[d];
      if (inner && (size != src.shape[d] || op.attrs.strides[d] != 1))
        return true;
      if (size > 1 && op.attrs.strides[d] != 1)
        return true;
      inner |= size > 1;
    }
    return false;
  }
  case OpKind::Chunk:
    for (int64_t d = 0; d < op.attrs.axis; ++d)
      if (src.shape[d] != 1)
        return true;
    return false;
  case OpKind::Broadcast: return c.typeOf(op.results[0]).numElements() != src.numElements();
  case OpKind::IndexMap: return true;
  case OpKind::Reshape:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze: return false;
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false;
}

} // namespace

bool reshapesANonContiguousView(const Case &c) {
  std::vector<char> nonContiguous(c.values.size(), 0);
  bool found = false;
  for (const Op &op : c.ops) {
    if (opCategory(op.kind) != OpCategory::View)
      continue;
    const bool operandIs = nonContiguous[op.operands[0]] != 0;
    if (op.kind == OpKind::Reshape && operandIs)
      found = true;
    const bool inherits =
        op.kind == OpKind::Reshape || op.kind == OpKind::Squeeze || op.kind == OpKind::Unsqueeze;
    nonContiguous[op.results[0]] = (inherits && operandIs) || viewBreaksContiguity(c, op);
  }
  return found;
}

std::vector<std::string> caseFeatures(const Case &c) {
  std::vector<std::string> out;
  for (const Value &v : c.values) {
    const TensorType &t = v.type;
    out.push_back("dtype:" + std::string(dtypeName(t.dtype)));
    out.push_back("rank:" + std::to_string(t.rank()));
    for (int64_t d : t.shape) {
      if (d > kLane && d % kLane != 0)
        out.push_back("dim:tail");
      if (d == 1 && t.rank() >= 3)
        out.push_back("dim:unit");
    }
    if (t.valid)
      out.push_back(t.valid->dynamic ? "valid:dynamic" : "valid:static");
  }
  for (const Op &op : c.ops) {
    const std::string name(opName(op.kind));
    out.push_back("op:" + name);
    if (isView(op.kind))
      out.push_back("view:" + name);
    attrFeatures(c, op, out);
    patternFeatures(c, op, out);
  }
  if (reshapesANonContiguousView(c))
    out.push_back("view:reshape_of_strided");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

} // namespace npufuzz
