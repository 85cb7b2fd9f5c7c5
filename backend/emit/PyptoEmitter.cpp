//===- backend/emit/PyptoEmitter.cpp - A case as a PyPTO program ----------===//
//
// The names are PyPTO's language (`pypto.language`, imported as `pl`) at
// d15c356f5: its unified tile ops (pl.add, pl.exp, pl.row_expand_mul, ...),
// pl.tile.set_validshape and pl.tile.fillpad.
//
//===----------------------------------------------------------------------===//
#include "backend/emit/PyptoEmitter.h"

#include "backend/emit/PtoEmitter.h"

#include <algorithm>
#include <map>

namespace npufuzz {

namespace {

/// PyPTO's DataType of `t`; empty when its tiles here do not hold it.
std::string pyptoType(DType t) {
  switch (t) {
  case DType::F32: return "pl.FP32";
  case DType::F16: return "pl.FP16";
  case DType::I32: return "pl.INT32";
  case DType::BF16: // pto-isa's CPU simulator holds bf16 as _Float16
  case DType::I8:
  case DType::I64:
  case DType::Index:
  case DType::I1: return "";
  }
  return "";
}

/// PyPTO's function for an elementwise op, a row or a column expand of
/// base op `k`; empty when its language has none.
std::string pyptoOp(OpKind k) {
  switch (opCategory(k)) {
  case OpCategory::Unary:
    switch (k) {
    case OpKind::Neg: return "pl.neg";
    case OpKind::Abs: return "pl.abs";
    case OpKind::Exp: return "pl.exp";
    case OpKind::Log: return "pl.log";
    case OpKind::Sqrt: return "pl.sqrt";
    case OpKind::Rsqrt: return "pl.rsqrt";
    case OpKind::Relu: return "pl.relu";
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Sigmoid:
    case OpKind::Silu:
    case OpKind::Not:
    case OpKind::Round:
    case OpKind::Clamp: return "";
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
      return "";
    }
    return "";
  case OpCategory::Binary:
    switch (k) {
    case OpKind::Add: return "pl.add";
    case OpKind::Sub: return "pl.sub";
    case OpKind::Mul: return "pl.mul";
    case OpKind::Max: return "pl.maximum";
    case OpKind::Min: return "pl.minimum";
    case OpKind::Div: // division by zero is target-defined in PTO
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor: return "";
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
      return "";
    }
    return "";
  case OpCategory::RowExpand: {
    // PyPTO d15c356f5 registers PTO code generation for these alone (its
    // language also has row_expand_add and col_expand_sub, which its
    // backend does not lower); max and min have none, div is
    // target-defined by zero.
    const OpKind base = expandBaseOp(k);
    return base == OpKind::Sub   ? "pl.row_expand_sub"
           : base == OpKind::Mul ? "pl.row_expand_mul"
                                 : "";
  }
  case OpCategory::ColExpand: return expandBaseOp(k) == OpKind::Mul ? "pl.col_expand_mul" : "";
  case OpCategory::Source:
  case OpCategory::Compare:
  case OpCategory::View:
  case OpCategory::Other: return "";
  }
  return ""; // unreachable: every OpCategory is a case above
}

/// PyPTO's cast mode of rounding mode `m` ("rint", "round", ...).
const char *castMode(RoundingMode m) {
  switch (m) {
  case RoundingMode::NearestEven: return "rint";
  case RoundingMode::NearestAway: return "round";
  case RoundingMode::TowardZero: return "trunc";
  case RoundingMode::Down: return "floor";
  case RoundingMode::Up: return "ceil";
  }
  return "rint";
}

const char *padValue(PadKind p) {
  switch (p) {
  case PadKind::Zero: return "pl.PadValue.zero";
  case PadKind::Max: return "pl.PadValue.max";
  case PadKind::Min: return "pl.PadValue.min";
  }
  return "pl.PadValue.zero";
}

std::string dims(const TensorType &t) {
  return "[" + std::to_string(t.shape[0]) + ", " + std::to_string(t.shape[1]) + "]";
}

/// Why PyPTO is not given `op`; empty when it is.
std::string whyNot(const Case &c, const Op &op) {
  const std::string name(opName(op.kind));
  for (ValueId v : op.results) {
    const TensorType &t = c.typeOf(v);
    if (t.rank() != 2)
      return "pypto: " + name + " result " + t.str() + " is not a rank-2 tile";
    if (pyptoType(t.dtype).empty())
      return "pypto: no " + std::string(dtypeName(t.dtype)) + " tiles";
    // PTO's tiles span whole 32-byte blocks along their contiguous axis,
    // the rows of a tile, or the columns of an R x 1 one, which PyPTO lays
    // out col_major. PyPTO's user picks such shapes (PyPTO reports others
    // since pypto#2667; at d15c356f5 they reach pto-isa's Tile).
    const int64_t contiguous = t.shape[1] == 1 ? t.shape[0] : t.shape[1];
    if (contiguous * byteSize(t.dtype) % 32 != 0)
      return "pypto: a " + t.str() + " tile does not span whole 32-byte blocks";
  }
  switch (opCategory(op.kind)) {
  case OpCategory::Source:
    return op.kind == OpKind::Input ? "" : "pypto: no tile op for " + name + " is written";
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: {
    if (pyptoOp(op.kind).empty())
      return "pypto: no PTO code generation for " + name + " (its language or its backend)";
    if (opCategory(op.kind) != OpCategory::Binary)
      return "";
    // PyPTO's binary tile ops take operands of one valid shape; the case
    // model's result is their intersection.
    const TensorType &a = c.typeOf(op.operands[0]), &b = c.typeOf(op.operands[1]);
    const bool same =
        a.valid.has_value() == b.valid.has_value() &&
        (!a.valid || (a.valid->rows == b.valid->rows && a.valid->cols == b.valid->cols));
    return same ? "" : "pypto: " + name + " of operands with different valid shapes";
  }
  case OpCategory::Compare: return "pypto: compares are not written";
  case OpCategory::View:
    return "pypto: views are not written (at the PyPTO of ptoas 0.27, a transpose emits a "
           "ttrans ptoas rejects and a slice a textract its A2/A3 verifier rejects)";
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::SetValidShape: {
    // pl.tile.set_validshape is PyPTO's internal API, "for compiler-
    // generated code only" (ptoas then rejects it on a tile whose valid
    // shape is static): its users narrow a tile where they load it.
    const ValueId x = op.operands[0];
    const int32_t def = c.values[x].defOp;
    const bool loadOnly = def >= 0 && c.ops[def].kind == OpKind::Input &&
                          std::find(c.outputs.begin(), c.outputs.end(), x) == c.outputs.end() &&
                          std::all_of(c.ops.begin(), c.ops.end(), [&](const Op &o) {
                            return &o == &op || std::find(o.operands.begin(), o.operands.end(),
                                                          x) == o.operands.end();
                          });
    return loadOnly ? ""
                    : "pypto: a valid shape is narrowed where a tile is loaded (set_validshape is "
                      "PyPTO's internal API)";
  }
  case OpKind::FillPad: return "";
  case OpKind::Cast:
    return isFloat(c.typeOf(op.operands[0]).dtype) || isFloat(op.attrs.dtype)
               ? ""
               : "pypto: integer casts are not written";
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return "pypto: no tile op for " + name + " is written";
  }
  return ""; // unreachable: every OpKind is a case above
}

} // namespace

bool emitPypto(const Case &c, std::string &out, std::string &unsupported) {
  if (ptoIsChain(c))
    return unsupported = "pypto: a chain's tasks (orchestration functions are not written)", false;
  for (const Op &op : c.ops)
    if (std::string why = whyNot(c, op); !why.empty())
      return unsupported = std::move(why), false;
  auto tensorType = [&](ValueId v) {
    return "pl.Tensor[" + dims(c.typeOf(v)) + ", " + pyptoType(c.typeOf(v).dtype) + "]";
  };
  // A set_validshape of a loaded tile narrows the load (whyNot): its
  // result is the load's tile.
  std::map<ValueId, size_t> narrowedBy;
  std::map<ValueId, ValueId> sameTile;
  for (size_t i = 0; i < c.ops.size(); ++i)
    if (c.ops[i].kind == OpKind::SetValidShape) {
      narrowedBy[c.ops[i].operands[0]] = i;
      sameTile[c.ops[i].results[0]] = c.ops[i].operands[0];
    }
  auto var = [&](ValueId v) {
    const auto same = sameTile.find(v);
    return "v" + std::to_string(same == sameTile.end() ? v : same->second);
  };
  // Parameters: inputs, outputs, then each runtime valid shape's two dims.
  std::string params, body;
  std::map<size_t, std::pair<std::string, std::string>> runtimeValid;
  int arg = 0;
  for (const Op &op : c.ops)
    if (op.kind == OpKind::Input)
      params += "        a" + std::to_string(arg++) + ": " + tensorType(op.results[0]) + ",\n";
  for (size_t k = 0; k < c.outputs.size(); ++k)
    params += "        o" + std::to_string(k) + ": pl.Out[" + tensorType(c.outputs[k]) + "],\n";
  for (size_t i = 0; i < c.ops.size(); ++i)
    if (c.ops[i].kind == OpKind::SetValidShape && c.ops[i].attrs.dynamic) {
      const std::string n = std::to_string(runtimeValid.size());
      runtimeValid[i] = {"vr" + n, "vc" + n};
      params +=
          "        vr" + n + ": pl.Scalar[pl.INDEX],\n        vc" + n + ": pl.Scalar[pl.INDEX],\n";
    }
  int input = 0;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const ValueId r = op.results[0];
    const TensorType &t = c.typeOf(r);
    std::string value;
    switch (opCategory(op.kind)) {
    case OpCategory::Source: {
      value = "pl.load(a" + std::to_string(input++) + ", [0, 0], " + dims(t);
      if (const auto narrowed = narrowedBy.find(r); narrowed != narrowedBy.end()) {
        const Op &s = c.ops[narrowed->second];
        const auto dyn = runtimeValid.find(narrowed->second);
        value += ", valid_shapes=[" +
                 (dyn != runtimeValid.end()
                      ? dyn->second.first + ", " + dyn->second.second
                      : std::to_string(s.attrs.rows) + ", " + std::to_string(s.attrs.cols)) +
                 "]";
      } else if (t.valid) {
        value += ", valid_shapes=[" + std::to_string(t.valid->rows) + ", " +
                 std::to_string(t.valid->cols) + "]";
      }
      value += ")";
      break;
    }
    case OpCategory::Unary:
    case OpCategory::Binary:
    case OpCategory::RowExpand:
    case OpCategory::ColExpand: {
      value = pyptoOp(op.kind) + "(";
      for (size_t k = 0; k < op.operands.size(); ++k)
        value += (k ? ", " : "") + var(op.operands[k]);
      value += ")";
      break;
    }
    case OpCategory::Compare: // whyNot lets none of these through
    case OpCategory::View: break;
    case OpCategory::Other:
      if (op.kind == OpKind::SetValidShape)
        continue; // the load it narrows says it
      if (op.kind == OpKind::FillPad) {
        value = "pl.tile.fillpad(" + var(op.operands[0]) + ", pad_value=" + padValue(op.attrs.pad) +
                ")";
      } else { // Cast
        value = "pl.tile.cast(" + var(op.operands[0]) +
                ", target_type=" + pyptoType(op.attrs.dtype) + ", mode=\"" +
                castMode(op.attrs.rounding) + "\")";
      }
      break;
    }
    // No annotation: PyPTO infers each tile's type, its valid shape and
    // layout included, from the op (an annotation would override them).
    body += "        " + var(r) + " = " + value + "\n";
  }
  // Each output's valid part to its tensor, as TSTORE moves it.
  std::string returned, returnType;
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const ValueId v = c.outputs[k];
    const TensorType &t = c.typeOf(v);
    std::string shapes;
    if (t.valid) {
      const auto dyn = std::find_if(runtimeValid.begin(), runtimeValid.end(),
                                    [&](const auto &e) { return c.ops[e.first].results[0] == v; });
      shapes = dyn != runtimeValid.end()
                   ? ", shapes=[" + dyn->second.first + ", " + dyn->second.second + "]"
                   : ", shapes=[" + std::to_string(t.valid->rows) + ", " +
                         std::to_string(t.valid->cols) + "]";
    }
    const std::string s = "s" + std::to_string(k);
    body += "        " + s + ": " + tensorType(v) + " = pl.store(" + var(v) + ", [0, 0], o" +
            std::to_string(k) + shapes + ")\n";
    returned += (k ? ", " : "") + s;
    returnType += (k ? ", " : "") + tensorType(v);
  }
  if (c.outputs.size() > 1)
    returnType = "tuple[" + returnType + "]";
  out = "# Generated by npufuzz (backend/emit/PyptoEmitter.h): a case as a PyPTO program.\n"
        "import pypto.language as pl\n\n\n"
        "@pl.program\n"
        "class NpfCase:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def npf_kernel(\n"
        "        self,\n" +
        params + "    ) -> " + returnType + ":\n" + body + "        return " + returned + "\n";
  return true;
}

} // namespace npufuzz
