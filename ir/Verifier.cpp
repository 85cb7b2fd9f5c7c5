//===- ir/Verifier.cpp - Type inference and case validation ---------------===//
//
// Every op's typing rule lives in inferResultTypes; verifyCase re-runs it on
// each op and adds the whole-program checks (SSA order, result bookkeeping,
// outputs, limits). Source ops (input, const, iota) declare their type; all
// other result types are derived.
//
//===----------------------------------------------------------------------===//
#include "ir/Verifier.h"

#include <algorithm>
#include <set>

namespace npufuzz {

namespace {

std::string shapeStr(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

/// Checks rank and per-dim limits of a shape a result would get.
bool checkShape(const std::vector<int64_t> &shape, std::string &error) {
  if (shape.empty() || shape.size() > kMaxRank) {
    error = "rank " + std::to_string(shape.size()) + " is outside 1.." +
            std::to_string(kMaxRank);
    return false;
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1 || d > kMaxDim) {
      error = "dimension " + std::to_string(d) + " in " + shapeStr(shape) +
              " is outside 1.." + std::to_string(kMaxDim);
      return false;
    }
    n *= d;
    if (n > kMaxTensorElements) {
      error = "shape " + shapeStr(shape) + " has more than " +
              std::to_string(kMaxTensorElements) + " elements";
      return false;
    }
  }
  return true;
}

bool checkAxis(int64_t axis, unsigned rank, std::string &error) {
  if (axis < 0 || axis >= static_cast<int64_t>(rank)) {
    error = "axis " + std::to_string(axis) + " is outside [0, " + std::to_string(rank) + ")";
    return false;
  }
  return true;
}

bool isTranscendental(OpKind k) {
  switch (k) {
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::Sigmoid:
  case OpKind::Silu:
    return true;
  default:
    return false;
  }
}

bool isBitwise(OpKind k) {
  return k == OpKind::And || k == OpKind::Or || k == OpKind::Xor || k == OpKind::Not;
}

/// Element-type rule shared by unary, binary and expand ops.
bool checkArithDType(OpKind k, DType t, std::string &error) {
  bool ok;
  if (isTranscendental(k))
    ok = isFloat(t);
  else if (isBitwise(k))
    ok = isIntLike(t);
  else
    ok = isFloat(t) || isInteger(t);
  if (!ok)
    error = std::string(opName(k)) + " does not take " + std::string(dtypeName(t));
  return ok;
}

/// The valid shape of an elementwise result: the intersection of the
/// operands' valid regions; none when that is the full static shape.
std::optional<ValidShape> combineValid(const std::vector<const TensorType *> &ts,
                                       const std::vector<int64_t> &shape) {
  if (shape.size() != 2)
    return std::nullopt;
  bool any = false;
  ValidShape v{shape[0], shape[1], false};
  for (const TensorType *t : ts) {
    if (!t->valid)
      continue;
    any = true;
    v.rows = std::min(v.rows, t->valid->rows);
    v.cols = std::min(v.cols, t->valid->cols);
    v.dynamic |= t->valid->dynamic;
  }
  if (!any || (v.rows == shape[0] && v.cols == shape[1] && !v.dynamic))
    return std::nullopt;
  return v;
}

TensorType elementwiseResult(DType dtype, const std::vector<const TensorType *> &ts) {
  TensorType r;
  r.dtype = dtype;
  r.shape = ts[0]->shape;
  r.valid = combineValid(ts, r.shape);
  return r;
}

bool sameShape(const TensorType &a, const TensorType &b, std::string &error) {
  if (a.shape != b.shape) {
    error = "operand shapes differ: " + shapeStr(a.shape) + " vs " + shapeStr(b.shape);
    return false;
  }
  return true;
}

bool sameDType(const TensorType &a, const TensorType &b, std::string &error) {
  if (a.dtype != b.dtype) {
    error = "operand element types differ: " + std::string(dtypeName(a.dtype)) +
            " vs " + std::string(dtypeName(b.dtype));
    return false;
  }
  return true;
}

bool checkSourceType(const Case &c, const Op &op, std::vector<TensorType> &types,
                     std::string &error) {
  if (op.results.size() != 1 || op.results[0] < 0 ||
      static_cast<size_t>(op.results[0]) >= c.values.size()) {
    error = "source op needs exactly one declared result";
    return false;
  }
  const TensorType &t = c.values[op.results[0]].type;
  if (!checkShape(t.shape, error))
    return false;
  if (t.valid) {
    if (op.kind != OpKind::Input || t.rank() != 2) {
      error = "only rank-2 inputs can declare a valid shape";
      return false;
    }
    if (t.valid->rows < 1 || t.valid->rows > t.shape[0] || t.valid->cols < 1 ||
        t.valid->cols > t.shape[1]) {
      error = "valid shape " + std::to_string(t.valid->rows) + "x" +
              std::to_string(t.valid->cols) + " exceeds " + shapeStr(t.shape);
      return false;
    }
  }
  if (op.kind == OpKind::Iota) {
    if (!checkAxis(op.attrs.axis, t.rank(), error))
      return false;
    if (t.dtype == DType::I1 ||
        (isIntLike(t.dtype) && t.shape[op.attrs.axis] - 1 > maxIntValue(t.dtype))) {
      error = "iota along a dim of " + std::to_string(t.shape[op.attrs.axis]) +
              " does not fit " + std::string(dtypeName(t.dtype));
      return false;
    }
  }
  if (op.kind == OpKind::Input && op.attrs.fill.kind == FillKind::Range) {
    const InputFill &f = op.attrs.fill;
    if (f.lo > f.hi || (isIntLike(t.dtype) && (f.lo < minIntValue(t.dtype) ||
                                               f.hi > maxIntValue(t.dtype))) ||
        f.lo < -(1ll << 24) || f.hi > (1ll << 24)) {
      error = "fill range(" + std::to_string(f.lo) + "," + std::to_string(f.hi) +
              ") is empty or does not fit " + std::string(dtypeName(t.dtype));
      return false;
    }
  }
  types = {t};
  return true;
}

bool inferView(const Case &c, const Op &op, const TensorType &src, TensorType &r,
               std::string &error) {
  const OpAttrs &a = op.attrs;
  const unsigned rank = src.rank();
  r.dtype = src.dtype;
  switch (op.kind) {
  case OpKind::Slice:
    if (a.offsets.size() != rank || a.sizes.size() != rank || a.strides.size() != rank) {
      error = "slice needs offsets, sizes and strides of the source rank";
      return false;
    }
    for (unsigned i = 0; i < rank; ++i) {
      if (a.offsets[i] < 0 || a.sizes[i] < 1 || a.strides[i] < 1 ||
          a.offsets[i] + (a.sizes[i] - 1) * a.strides[i] >= src.shape[i]) {
        error = "slice dim " + std::to_string(i) + " reads outside [0, " +
                std::to_string(src.shape[i]) + ")";
        return false;
      }
    }
    r.shape = a.sizes;
    return true;
  case OpKind::Chunk:
    if (!checkAxis(a.axis, rank, error))
      return false;
    if (a.count < 1 || src.shape[a.axis] % a.count != 0 || a.index < 0 ||
        a.index >= a.count) {
      error = "chunk count " + std::to_string(a.count) + " index " +
              std::to_string(a.index) + " does not split dim " +
              std::to_string(src.shape[a.axis]);
      return false;
    }
    r.shape = src.shape;
    r.shape[a.axis] /= a.count;
    return true;
  case OpKind::Transpose: {
    std::vector<int64_t> sorted = a.perm;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned i = 0; i < sorted.size(); ++i)
      if (sorted[i] != i) {
        error = "perm " + shapeStr(a.perm) + " is not a permutation";
        return false;
      }
    if (a.perm.size() != rank) {
      error = "perm " + shapeStr(a.perm) + " does not match rank " + std::to_string(rank);
      return false;
    }
    for (unsigned i = 0; i < rank; ++i)
      r.shape.push_back(src.shape[a.perm[i]]);
    return true;
  }
  case OpKind::Reshape:
    r.shape = a.shape;
    if (!checkShape(r.shape, error))
      return false;
    if (r.numElements() != src.numElements()) {
      error = "reshape " + shapeStr(src.shape) + " to " + shapeStr(r.shape) +
              " changes the element count";
      return false;
    }
    return true;
  case OpKind::Broadcast:
    r.shape = a.shape;
    if (r.shape.size() != rank) {
      error = "broadcast keeps the rank";
      return false;
    }
    for (unsigned i = 0; i < rank; ++i)
      if (src.shape[i] != r.shape[i] && src.shape[i] != 1) {
        error = "broadcast of " + shapeStr(src.shape) + " to " + shapeStr(r.shape) +
                " grows a dim that is not 1";
        return false;
      }
    return true;
  case OpKind::Squeeze:
    if (!checkAxis(a.axis, rank, error))
      return false;
    if (rank < 2 || src.shape[a.axis] != 1) {
      error = "squeeze needs a size-1 dim and rank >= 2";
      return false;
    }
    r.shape = src.shape;
    r.shape.erase(r.shape.begin() + a.axis);
    return true;
  case OpKind::Unsqueeze:
    if (a.axis < 0 || a.axis > static_cast<int64_t>(rank)) {
      error = "unsqueeze axis " + std::to_string(a.axis) + " is outside [0, " +
              std::to_string(rank) + "]";
      return false;
    }
    r.shape = src.shape;
    r.shape.insert(r.shape.begin() + a.axis, 1);
    return true;
  case OpKind::IndexMap: {
    r.shape = a.shape;
    if (!checkShape(r.shape, error))
      return false;
    if (a.map.size() != rank) {
      error = "index_map has " + std::to_string(a.map.size()) +
              " expressions for a rank-" + std::to_string(rank) + " source";
      return false;
    }
    std::vector<Interval> dims;
    for (int64_t d : r.shape)
      dims.push_back({0, d - 1});
    for (unsigned j = 0; j < rank; ++j) {
      if (a.map[j].numDims() > r.shape.size()) {
        error = "index_map expression '" + a.map[j].str() + "' uses a dim beyond rank " +
                std::to_string(r.shape.size());
        return false;
      }
      Interval iv = a.map[j].range(dims);
      if (iv.lo < 0 || iv.hi >= src.shape[j]) {
        error = "index_map expression '" + a.map[j].str() + "' ranges over [" +
                std::to_string(iv.lo) + ", " + std::to_string(iv.hi) +
                "], outside source dim " + std::to_string(src.shape[j]);
        return false;
      }
    }
    return true;
  }
  default:
    error = "not a view";
    return false;
  }
}

bool inferMatmul(const Op &op, const TensorType &a, const TensorType &b,
                 TensorType &r, std::string &error) {
  const DType acc = op.attrs.dtype;
  bool comboOk = a.dtype == b.dtype &&
                 ((acc == DType::F32 && (a.dtype == DType::F32 || a.dtype == DType::BF16 ||
                                         a.dtype == DType::F16)) ||
                  (acc == DType::I32 && (a.dtype == DType::I8 || a.dtype == DType::I32)));
  if (!comboOk) {
    error = "matmul " + std::string(dtypeName(a.dtype)) + " x " +
            std::string(dtypeName(b.dtype)) + " -> " + std::string(dtypeName(acc)) +
            " is not a supported combination";
    return false;
  }
  const unsigned rank = a.rank();
  if ((rank != 2 && rank != 3) || b.rank() != rank) {
    error = "matmul takes two rank-2 or two rank-3 operands";
    return false;
  }
  if (rank == 3 && a.shape[0] != b.shape[0]) {
    error = "matmul batch dims differ";
    return false;
  }
  if (a.shape[rank - 1] != b.shape[rank - 2]) {
    error = "matmul contraction dims differ: " + shapeStr(a.shape) + " x " + shapeStr(b.shape);
    return false;
  }
  r.dtype = acc;
  r.shape = a.shape;
  r.shape[rank - 1] = b.shape[rank - 1];
  return true;
}

} // namespace

bool inferResultTypes(const Case &c, const Op &op, std::vector<TensorType> &types,
                      std::string &error) {
  types.clear();
  const OpCategory cat = opCategory(op.kind);
  size_t arity = 1;
  if (cat == OpCategory::Source)
    arity = 0;
  else if (cat == OpCategory::Binary || cat == OpCategory::Compare ||
           cat == OpCategory::RowExpand || cat == OpCategory::ColExpand ||
           op.kind == OpKind::MaskedFill || op.kind == OpKind::Matmul ||
           op.kind == OpKind::Gather)
    arity = 2;
  else if (op.kind == OpKind::Select)
    arity = 3;
  if (op.operands.size() != arity) {
    error = std::string(opName(op.kind)) + " takes " + std::to_string(arity) +
            " operand(s), got " + std::to_string(op.operands.size());
    return false;
  }
  std::vector<const TensorType *> in;
  for (ValueId v : op.operands) {
    if (v < 0 || static_cast<size_t>(v) >= c.values.size()) {
      error = "operand %" + std::to_string(v) + " does not exist";
      return false;
    }
    in.push_back(&c.values[v].type);
  }
  const OpAttrs &a = op.attrs;
  TensorType r;
  switch (cat) {
  case OpCategory::Source:
    return checkSourceType(c, op, types, error);
  case OpCategory::Unary:
    if (!checkArithDType(op.kind, in[0]->dtype, error))
      return false;
    r = elementwiseResult(in[0]->dtype, in);
    break;
  case OpCategory::Binary:
  case OpCategory::Compare:
    if (!sameDType(*in[0], *in[1], error) || !sameShape(*in[0], *in[1], error))
      return false;
    if (cat == OpCategory::Binary && !checkArithDType(op.kind, in[0]->dtype, error))
      return false;
    if (cat == OpCategory::Compare && in[0]->dtype == DType::I1 &&
        op.kind != OpKind::CmpEq && op.kind != OpKind::CmpNe) {
      error = "only eq and ne compare i1 values";
      return false;
    }
    r = elementwiseResult(cat == OpCategory::Compare ? DType::I1 : in[0]->dtype, in);
    break;
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: {
    if (!sameDType(*in[0], *in[1], error) ||
        !checkArithDType(expandBaseOp(op.kind), in[0]->dtype, error))
      return false;
    const bool row = cat == OpCategory::RowExpand;
    if (in[0]->rank() != 2 || in[1]->rank() != 2 ||
        in[1]->shape[0] != (row ? in[0]->shape[0] : 1) ||
        in[1]->shape[1] != (row ? 1 : in[0]->shape[1])) {
      error = std::string(opName(op.kind)) + " needs x[R,C] and s[" +
              (row ? "R,1" : "1,C") + "], got " + shapeStr(in[0]->shape) + " and " +
              shapeStr(in[1]->shape);
      return false;
    }
    r = elementwiseResult(in[0]->dtype, {in[0]});
    break;
  }
  case OpCategory::View:
    if (!inferView(c, op, *in[0], r, error))
      return false;
    break;
  case OpCategory::Other:
    switch (op.kind) {
    case OpKind::Select:
      if (in[0]->dtype != DType::I1) {
        error = "select condition must be i1";
        return false;
      }
      if (!sameShape(*in[0], *in[1], error) || !sameShape(*in[1], *in[2], error) ||
          !sameDType(*in[1], *in[2], error))
        return false;
      r = elementwiseResult(in[1]->dtype, in);
      break;
    case OpKind::MaskedFill:
      if (in[1]->dtype != DType::I1) {
        error = "masked_fill mask must be i1";
        return false;
      }
      if (!sameShape(*in[0], *in[1], error))
        return false;
      r = elementwiseResult(in[0]->dtype, in);
      break;
    case OpKind::Cast:
      r = elementwiseResult(a.dtype, in);
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ArgMax:
      if (!checkAxis(a.axis, in[0]->rank(), error))
        return false;
      if (in[0]->dtype == DType::I1) {
        error = std::string(opName(op.kind)) + " does not take i1";
        return false;
      }
      r.dtype = op.kind == OpKind::ArgMax ? DType::I64 : in[0]->dtype;
      r.shape = in[0]->shape;
      r.shape[a.axis] = 1;
      break;
    case OpKind::TopK: {
      if (!checkAxis(a.axis, in[0]->rank(), error))
        return false;
      if (in[0]->dtype == DType::I1 || a.k < 1 || a.k > in[0]->shape[a.axis]) {
        error = "topk k=" + std::to_string(a.k) + " needs 1 <= k <= " +
                std::to_string(in[0]->shape[a.axis]) + " and a non-i1 operand";
        return false;
      }
      r.dtype = in[0]->dtype;
      r.shape = in[0]->shape;
      r.shape[a.axis] = a.k;
      TensorType idx = r;
      idx.dtype = DType::I64;
      types = {r, idx};
      return true;
    }
    case OpKind::Matmul:
      if (!inferMatmul(op, *in[0], *in[1], r, error))
        return false;
      break;
    case OpKind::Gather: {
      const TensorType &src = *in[0], &idx = *in[1];
      if (!isInteger(idx.dtype) || idx.rank() != src.rank() ||
          !checkAxis(a.axis, src.rank(), error)) {
        if (error.empty())
          error = "gather needs an integer index tensor of the source rank";
        return false;
      }
      for (unsigned i = 0; i < src.rank(); ++i)
        if (i != a.axis && idx.shape[i] != src.shape[i]) {
          error = "gather index shape " + shapeStr(idx.shape) + " differs from source " +
                  shapeStr(src.shape) + " off the gather axis";
          return false;
        }
      Interval range;
      if (!knownRange(c, op.operands[1], range) || range.lo < 0 ||
          range.hi >= src.shape[a.axis]) {
        error = "gather indices are not provably within [0, " +
                std::to_string(src.shape[a.axis]) + ")";
        return false;
      }
      r.dtype = src.dtype;
      r.shape = idx.shape;
      break;
    }
    case OpKind::SetValidShape:
      if (in[0]->rank() != 2 || a.rows < 1 || a.rows > in[0]->shape[0] || a.cols < 1 ||
          a.cols > in[0]->shape[1]) {
        error = "set_validshape " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                " needs a rank-2 tile of at least that size, got " + shapeStr(in[0]->shape);
        return false;
      }
      r.dtype = in[0]->dtype;
      r.shape = in[0]->shape;
      r.valid = ValidShape{a.rows, a.cols, a.dynamic};
      break;
    case OpKind::FillPad:
      if (in[0]->rank() != 2) {
        error = "fillpad needs a rank-2 tile";
        return false;
      }
      r.dtype = in[0]->dtype;
      r.shape = in[0]->shape;
      break;
    default:
      error = "unhandled op";
      return false;
    }
    break;
  }
  if (!checkShape(r.shape, error))
    return false;
  types = {r};
  return true;
}

bool knownRange(const Case &c, ValueId v, Interval &range) {
  if (v < 0 || static_cast<size_t>(v) >= c.values.size())
    return false;
  const Value &val = c.values[v];
  // Data outside a valid shape can be anything a backend left there.
  if (val.type.valid || !isIntLike(val.type.dtype) || val.defOp < 0)
    return false;
  const Op &op = c.ops[val.defOp];
  switch (op.kind) {
  case OpKind::Input:
    switch (op.attrs.fill.kind) {
    case FillKind::Range:
      range = {op.attrs.fill.lo, op.attrs.fill.hi};
      return true;
    case FillKind::Zeros:
      range = {0, 0};
      return true;
    case FillKind::Ones:
      range = {1, 1};
      return true;
    case FillKind::Iota:
      range = {0, val.type.numElements() - 1};
      return range.hi <= maxIntValue(val.type.dtype);
    case FillKind::Random:
      return false;
    }
    return false;
  case OpKind::Const:
    range = {op.attrs.value.i, op.attrs.value.i};
    return true;
  case OpKind::Iota:
    range = {0, val.type.shape[op.attrs.axis] - 1};
    return true;
  case OpKind::TopK:
    if (val.resultIndex != 1)
      return false;
    range = {0, c.values[op.operands[0]].type.shape[op.attrs.axis] - 1};
    return true;
  case OpKind::ArgMax:
    range = {0, c.values[op.operands[0]].type.shape[op.attrs.axis] - 1};
    return true;
  case OpKind::Cast:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
    if (!knownRange(c, op.operands[0], range))
      return false;
    return range.lo >= minIntValue(val.type.dtype) && range.hi <= maxIntValue(val.type.dtype);
  default:
    if (isView(op.kind))
      return knownRange(c, op.operands[0], range);
    return false;
  }
}

std::vector<IndexExpr> viewIndexMap(const Case &c, const Op &op) {
  const TensorType &src = c.values[op.operands[0]].type;
  const TensorType &res = c.values[op.results[0]].type;
  const OpAttrs &a = op.attrs;
  const unsigned rank = src.rank();
  std::vector<IndexExpr> map;
  using E = IndexExpr;
  switch (op.kind) {
  case OpKind::Slice:
    for (unsigned j = 0; j < rank; ++j) {
      E e = a.strides[j] == 1 ? E::dim(j) : E::mul(E::dim(j), a.strides[j]);
      map.push_back(a.offsets[j] ? E::add(e, E::constant(a.offsets[j])) : e);
    }
    break;
  case OpKind::Chunk:
    for (unsigned j = 0; j < rank; ++j) {
      const int64_t offset = a.index * res.shape[j];
      map.push_back(j == a.axis && offset ? E::add(E::dim(j), E::constant(offset))
                                          : E::dim(j));
    }
    break;
  case OpKind::Transpose:
    map.resize(rank);
    for (unsigned i = 0; i < rank; ++i)
      map[a.perm[i]] = E::dim(i);
    break;
  case OpKind::Reshape: {
    // Linearise the result index row-major, then split it mixed-radix over
    // the source shape: the floordiv/mod form Inductor and affine maps use.
    std::vector<int64_t> strides(res.shape.size(), 1);
    for (size_t i = res.shape.size(); i-- > 1;)
      strides[i - 1] = strides[i] * res.shape[i];
    E linear = E::constant(0);
    bool first = true;
    for (size_t i = 0; i < res.shape.size(); ++i) {
      if (res.shape[i] == 1)
        continue;
      const unsigned d = static_cast<unsigned>(i);
      E term = strides[i] == 1 ? E::dim(d) : E::mul(E::dim(d), strides[i]);
      linear = first ? term : E::add(linear, term);
      first = false;
    }
    int64_t srcStride = src.numElements();
    for (unsigned j = 0; j < rank; ++j) {
      srcStride /= src.shape[j];
      if (src.shape[j] == 1) {
        map.push_back(E::constant(0));
        continue;
      }
      E e = srcStride == 1 ? linear : E::floorDiv(linear, srcStride);
      map.push_back(j == 0 ? e : E::mod(e, src.shape[j]));
    }
    break;
  }
  case OpKind::Broadcast:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(src.shape[j] == 1 && res.shape[j] != 1 ? E::constant(0) : E::dim(j));
    break;
  case OpKind::Squeeze:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(j == a.axis ? E::constant(0)
                                : E::dim(j < a.axis ? j : j - 1));
    break;
  case OpKind::Unsqueeze:
    for (unsigned j = 0; j < rank; ++j)
      map.push_back(E::dim(j < a.axis ? j : j + 1));
    break;
  case OpKind::IndexMap:
    map = a.map;
    break;
  default:
    break;
  }
  return map;
}

std::string verifyCase(const Case &c, int *failingOp) {
  if (failingOp)
    *failingOp = -1;
  auto where = [&](size_t i) {
    if (failingOp)
      *failingOp = static_cast<int>(i);
    const Op &op = c.ops[i];
    std::string s = "op " + std::to_string(i) + " (";
    if (!op.results.empty() && op.results[0] >= 0 &&
        static_cast<size_t>(op.results[0]) < c.values.size()) {
      const Value &v = c.values[op.results[0]];
      s += "%" + (v.name.empty() ? std::to_string(op.results[0]) : v.name) + " = ";
    }
    return s + std::string(opName(op.kind)) + "): ";
  };
  if (c.edgeRate < 0.0 || c.edgeRate > 1.0)
    return "edge_rate must be within [0, 1]";
  int64_t total = 0;
  std::set<std::string> names;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    if (static_cast<int>(op.kind) >= numOpKinds())
      return where(i) + "unknown op kind";
    for (ValueId v : op.operands)
      if (v < 0 || static_cast<size_t>(v) >= c.values.size() ||
          c.values[v].defOp < 0 || static_cast<size_t>(c.values[v].defOp) >= i)
        return where(i) + "uses %" + std::to_string(v) + " before it is defined";
    const size_t expected = op.kind == OpKind::TopK ? 2 : 1;
    if (op.results.size() != expected)
      return where(i) + "must define " + std::to_string(expected) + " result(s)";
    for (size_t r = 0; r < op.results.size(); ++r) {
      ValueId v = op.results[r];
      if (v < 0 || static_cast<size_t>(v) >= c.values.size() ||
          c.values[v].defOp != static_cast<int32_t>(i) ||
          c.values[v].resultIndex != static_cast<int32_t>(r))
        return where(i) + "result bookkeeping is inconsistent";
      if (!c.values[v].name.empty() && !names.insert(c.values[v].name).second)
        return where(i) + "redefines %" + c.values[v].name;
    }
    std::vector<TensorType> types;
    std::string error;
    if (!inferResultTypes(c, op, types, error))
      return where(i) + error;
    for (size_t r = 0; r < types.size(); ++r) {
      const TensorType &declared = c.values[op.results[r]].type;
      if (declared != types[r])
        return where(i) + "declared type " + declared.str() + " but the op produces " +
               types[r].str();
      total += types[r].numElements();
    }
    if (total > kMaxCaseElements)
      return where(i) + "the case has more than " + std::to_string(kMaxCaseElements) +
             " elements";
  }
  for (size_t i = 0; i < c.values.size(); ++i)
    if (c.values[i].defOp < 0 || static_cast<size_t>(c.values[i].defOp) >= c.ops.size())
      return "value %" + std::to_string(i) + " has no defining op";
  if (c.outputs.empty())
    return "the case returns nothing";
  std::set<ValueId> seen;
  for (ValueId v : c.outputs) {
    if (v < 0 || static_cast<size_t>(v) >= c.values.size())
      return "return of undefined value %" + std::to_string(v);
    if (!seen.insert(v).second)
      return "value %" + std::to_string(v) + " is returned twice";
  }
  return "";
}

} // namespace npufuzz
