//===- ir/TypeInference.cpp - Result types of every op --------------------===//
//
// Every op's typing rule lives here: result types are a function of operand
// types and attributes. Source ops (input, const, iota) declare their type.
//
//===----------------------------------------------------------------------===//
#include "ir/TypeRules.h"
#include "ir/Verifier.h"

#include <algorithm>

namespace npufuzz {

namespace {

/// Element-type rule shared by unary, binary and expand ops.
bool checkArithDType(OpKind k, DType t, std::string &error) {
  if (elementwiseAcceptsDType(k, t))
    return true;
  error = std::string(opName(k)) + " does not take " + std::string(dtypeName(t));
  return false;
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
    error = "operand element types differ: " + std::string(dtypeName(a.dtype)) + " vs " +
            std::string(dtypeName(b.dtype));
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
      error = "valid shape " + std::to_string(t.valid->rows) + "x" + std::to_string(t.valid->cols) +
              " exceeds " + shapeStr(t.shape);
      return false;
    }
  }
  if (op.kind == OpKind::Iota) {
    if (!checkAxis(op.attrs.axis, t.rank(), error))
      return false;
    if (t.dtype == DType::I1 ||
        (isIntLike(t.dtype) && t.shape[op.attrs.axis] - 1 > maxIntValue(t.dtype))) {
      error = "iota along a dim of " + std::to_string(t.shape[op.attrs.axis]) + " does not fit " +
              std::string(dtypeName(t.dtype));
      return false;
    }
  }
  if (op.kind == OpKind::Const && isIntLike(t.dtype) &&
      (op.attrs.value.i < minIntValue(t.dtype) || op.attrs.value.i > maxIntValue(t.dtype))) {
    error = "value " + std::to_string(op.attrs.value.i) + " does not fit " +
            std::string(dtypeName(t.dtype));
    return false;
  }
  if (op.kind == OpKind::Input && op.attrs.fill.kind == FillKind::Range) {
    const InputFill &f = op.attrs.fill;
    if (f.lo > f.hi ||
        (isIntLike(t.dtype) && (f.lo < minIntValue(t.dtype) || f.hi > maxIntValue(t.dtype))) ||
        f.lo < -(1ll << 24) || f.hi > (1ll << 24)) {
      error = "fill range(" + std::to_string(f.lo) + "," + std::to_string(f.hi) +
              ") is empty or does not fit " + std::string(dtypeName(t.dtype));
      return false;
    }
  }
  types = {t};
  return true;
}

bool inferMatmul(const Op &op, const TensorType &a, const TensorType &b, TensorType &r,
                 std::string &error) {
  const DType acc = op.attrs.dtype;
  bool comboOk = a.dtype == b.dtype &&
                 ((acc == DType::F32 &&
                   (a.dtype == DType::F32 || a.dtype == DType::BF16 || a.dtype == DType::F16)) ||
                  (acc == DType::I32 && (a.dtype == DType::I8 || a.dtype == DType::I32)));
  if (!comboOk) {
    error = "matmul " + std::string(dtypeName(a.dtype)) + " x " + std::string(dtypeName(b.dtype)) +
            " -> " + std::string(dtypeName(acc)) + " is not a supported combination";
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

namespace {
/// Whether scalar attribute `key` fits the integer-like type `t` (any
/// float attribute does: it is rounded to the type where it is used).
bool fits(const Scalar &s, DType t, const char *key, std::string &error) {
  if (!isIntLike(t) || (s.i >= minIntValue(t) && s.i <= maxIntValue(t)))
    return true;
  error =
      std::string(key) + " " + std::to_string(s.i) + " does not fit " + std::string(dtypeName(t));
  return false;
}
template <typename Field> bool fits(const Field &, DType, const char *, std::string &) {
  return true; // not a scalar of the op's type
}

/// Whether every attribute of elementwise op `op` on `t` (ir/OpAttrs.def)
/// fits `t`.
bool elementwiseAttrsFit(const Op &op, DType t, std::string &error) {
#define NPF_ATTR(OpEnum, Key, Kind, Field)                                                         \
  if (op.kind == OpKind::OpEnum && !fits(op.attrs.Field, t, Key, error))                           \
    return false;
#include "ir/OpAttrs.def"
  return true;
}
} // namespace

bool inferResultTypes(const Case &c, const Op &op, std::vector<TensorType> &types,
                      std::string &error) {
  types.clear();
  const OpCategory cat = opCategory(op.kind);
  const size_t arity = opOperandCount(op.kind);
  const bool variadic = hasTrait(op.kind, op_trait::Variadic);
  if (variadic ? op.operands.size() < arity : op.operands.size() != arity) {
    error = std::string(opName(op.kind)) + " takes " + (variadic ? "at least " : "") +
            std::to_string(arity) + " operand(s), got " + std::to_string(op.operands.size());
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
  case OpCategory::Source: return checkSourceType(c, op, types, error);
  case OpCategory::Unary:
    if (!checkArithDType(op.kind, in[0]->dtype, error) ||
        !elementwiseAttrsFit(op, in[0]->dtype, error))
      return false;
    r = elementwiseResult(in[0]->dtype, in);
    break;
  case OpCategory::Binary:
  case OpCategory::Compare:
    if (!sameDType(*in[0], *in[1], error) || !sameShape(*in[0], *in[1], error))
      return false;
    if (cat == OpCategory::Binary && !checkArithDType(op.kind, in[0]->dtype, error))
      return false;
    if (cat == OpCategory::Compare && in[0]->dtype == DType::I1 && op.kind != OpKind::CmpEq &&
        op.kind != OpKind::CmpNe) {
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
      error = std::string(opName(op.kind)) + " needs x[R,C] and s[" + (row ? "R,1" : "1,C") +
              "], got " + shapeStr(in[0]->shape) + " and " + shapeStr(in[1]->shape);
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
      if (isIntLike(in[0]->dtype) &&
          (a.value.i < minIntValue(in[0]->dtype) || a.value.i > maxIntValue(in[0]->dtype))) {
        error = "value " + std::to_string(a.value.i) + " does not fit " +
                std::string(dtypeName(in[0]->dtype));
        return false;
      }
      r = elementwiseResult(in[0]->dtype, in);
      break;
    case OpKind::Cast: r = elementwiseResult(a.dtype, in); break;
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
        error = "topk k=" + std::to_string(a.k) +
                " needs 1 <= k <= " + std::to_string(in[0]->shape[a.axis]) +
                " and a non-i1 operand";
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
      if (!knownRange(c, op.operands[1], range) || range.lo < 0 || range.hi >= src.shape[a.axis]) {
        error =
            "gather indices are not provably within [0, " + std::to_string(src.shape[a.axis]) + ")";
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
    case OpKind::Insert: {
      const TensorType &dest = *in[0], &src = *in[1];
      if (!sameDType(dest, src, error))
        return false;
      bool fits = src.rank() == dest.rank() && a.offsets.size() == dest.rank();
      for (unsigned i = 0; fits && i < dest.rank(); ++i)
        fits = a.offsets[i] >= 0 && a.offsets[i] + src.shape[i] <= dest.shape[i];
      if (!fits) {
        error = "insert of " + shapeStr(src.shape) + " at offsets " + shapeStr(a.offsets) +
                " does not fit in " + shapeStr(dest.shape);
        return false;
      }
      r = dest;
      break;
    }
    case OpKind::Concat:
    case OpKind::Pad:
    case OpKind::ReduceMean:
    case OpKind::AvgPool2d:
    case OpKind::MaxPool2d:
    case OpKind::Addmm:
    case OpKind::Conv2d: return inferWorkload(op, in, types, error);
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
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

} // namespace npufuzz
