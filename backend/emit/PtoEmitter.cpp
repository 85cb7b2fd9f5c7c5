//===- backend/emit/PtoEmitter.cpp - A case as PTO tile text --------------===//
//
// The syntax follows PTOAS's own tests and ISA pages (DPS form): tiles are
// `!pto.tile_buf<loc=vec, ...>` with dynamic v_row/v_col so that
// pto.set_validshape applies, allocated with their valid shape as operands.
//
//===----------------------------------------------------------------------===//
#include "backend/emit/PtoEmitter.h"

#include <map>
#include <set>

namespace npufuzz {

namespace {

/// PTO element type names (the case model's); empty for types PTO tiles do
/// not hold here.
std::string ptoType(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::I8:
  case DType::I32:
    return std::string(dtypeName(t));
  default:
    return "";
  }
}

/// PTO t-op names of the ops with a direct equivalent. Float-only entries
/// are checked by the caller.
std::string tOpName(OpKind k) {
  switch (k) {
  case OpKind::Add:
    return "tadd";
  case OpKind::Sub:
    return "tsub";
  case OpKind::Mul:
    return "tmul";
  case OpKind::Div:
    return "tdiv";
  case OpKind::Max:
    return "tmax";
  case OpKind::Min:
    return "tmin";
  case OpKind::And:
    return "tand";
  case OpKind::Or:
    return "tor";
  case OpKind::Xor:
    return "txor";
  case OpKind::Exp:
    return "texp";
  case OpKind::Log:
    return "tlog";
  case OpKind::Sqrt:
    return "tsqrt";
  case OpKind::Rsqrt:
    return "trsqrt";
  case OpKind::Abs:
    return "tabs";
  case OpKind::Neg:
    return "tneg";
  case OpKind::Relu:
    return "trelu";
  case OpKind::Not:
    return "tnot";
  default:
    return "";
  }
}

/// PTO round modes of tcvt.
const char *roundMode(RoundingMode m) {
  switch (m) {
  case RoundingMode::NearestEven:
    return "RINT";
  case RoundingMode::NearestAway:
    return "ROUND";
  case RoundingMode::TowardZero:
    return "TRUNC";
  case RoundingMode::Down:
    return "FLOOR";
  case RoundingMode::Up:
    return "CEIL";
  }
  return "RINT";
}

class Emitter {
public:
  explicit Emitter(const Case &c) : c_(c) {}
  bool run(std::string &out, std::string &unsupported);

private:
  std::string idx(int64_t n) {
    constants_.insert(n);
    return "%c" + std::to_string(n);
  }
  /// The tile type of `v`; a row-broadcast operand ([R,1]) is col_major.
  std::string tileType(ValueId v) const {
    const TensorType &t = c_.typeOf(v);
    const auto padded = pads_.find(v);
    const int pad = padded == pads_.end() ? 0 : padded->second;
    const bool column = t.shape[1] == 1 && t.shape[0] > 1;
    return "!pto.tile_buf<loc=vec, dtype=" + ptoType(t.dtype) + ", rows=" +
           std::to_string(t.shape[0]) + ", cols=" + std::to_string(t.shape[1]) +
           ", v_row=?, v_col=?, blayout=" + (column ? "col_major" : "row_major") +
           ", slayout=none_box, fractal=512, pad=" + std::to_string(pad) + ">";
  }
  std::string viewType(ValueId v) const {
    const TensorType &t = c_.typeOf(v);
    return "!pto.partition_tensor_view<" + std::to_string(t.shape[0]) + "x" +
           std::to_string(t.shape[1]) + "x" + ptoType(t.dtype) + ">";
  }
  std::string tile(ValueId v) const { return "%t" + std::to_string(tiles_.at(v)); }
  /// Allocates the tile of value `v` with its valid shape.
  void alloc(ValueId v, int pad = 0) {
    const TensorType &t = c_.typeOf(v);
    const ValidShape vs = t.valid.value_or(ValidShape{t.shape[0], t.shape[1], false});
    tiles_[v] = nextTile_++;
    pads_[v] = pad;
    body_ += "    " + tile(v) + " = pto.alloc_tile valid_row = " + idx(vs.rows) +
             " valid_col = " + idx(vs.cols) + " : " + tileType(v) + "\n";
  }
  /// `%p` viewed as the whole tensor of value `v`, partitioned to one tile.
  std::string view(const std::string &ptr, ValueId v) {
    const TensorType &t = c_.typeOf(v);
    const std::string tv = "%tv" + std::to_string(nextView_), pv = "%pv" + std::to_string(nextView_);
    ++nextView_;
    const std::string el = ptoType(t.dtype);
    body_ += "    " + tv + " = pto.make_tensor_view " + ptr + ", shape = [" + idx(t.shape[0]) +
             ", " + idx(t.shape[1]) + "], strides = [" + idx(t.shape[1]) + ", " + idx(1) +
             "] : !pto.tensor_view<?x?x" + el + ">\n";
    body_ += "    " + pv + " = pto.partition_view " + tv + ", offsets = [" + idx(0) + ", " +
             idx(0) + "], sizes = [" + idx(t.shape[0]) + ", " + idx(t.shape[1]) +
             "] : !pto.tensor_view<?x?x" + el + "> -> " + viewType(v) + "\n";
    return pv;
  }
  bool check(const Op &op, std::string &unsupported) const;
  bool usedOnlyBy(ValueId v, const Op &user) const;

  const Case &c_;
  std::string body_;
  std::set<int64_t> constants_;
  std::map<ValueId, int> tiles_;
  std::map<ValueId, int> pads_; ///< pad kind of each tile (0: none)
  int nextTile_ = 0, nextView_ = 0;
};

bool Emitter::usedOnlyBy(ValueId v, const Op &user) const {
  for (ValueId o : c_.outputs)
    if (o == v)
      return false;
  for (const Op &op : c_.ops)
    for (ValueId u : op.operands)
      if (u == v && &op != &user)
        return false;
  return true;
}

/// Whether PTO can express `op`, with the reason when not.
bool Emitter::check(const Op &op, std::string &unsupported) const {
  const std::string name(opName(op.kind));
  for (ValueId v : op.results) {
    const TensorType &t = c_.typeOf(v);
    if (t.rank() != 2)
      return unsupported = "pto: " + name + " result " + t.str() + " is not a rank-2 tile", false;
    if (ptoType(t.dtype).empty())
      return unsupported = "pto: no " + std::string(dtypeName(t.dtype)) + " tiles", false;
    // Row-major tile rows are whole 32-byte blocks; [R,1] tiles are col_major.
    const int64_t rowBytes = t.shape[1] * byteSize(t.dtype);
    if (!(t.shape[1] == 1) && rowBytes % 32 != 0)
      return unsupported = "pto: " + t.str() + " rows are " + std::to_string(rowBytes) +
                           " bytes, not whole 32-byte blocks",
             false;
  }
  const DType in = op.operands.empty() ? DType::F32 : c_.typeOf(op.operands[0]).dtype;
  switch (opCategory(op.kind)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: {
    const OpKind base = opCategory(op.kind) == OpCategory::RowExpand ||
                                opCategory(op.kind) == OpCategory::ColExpand
                            ? expandBaseOp(op.kind)
                            : op.kind;
    if (tOpName(base).empty())
      return unsupported = "pto: no t-op for " + name, false;
    if (base == OpKind::Div && !isFloat(in))
      return unsupported = "pto: integer div (floor, x div 0 == 0) has no t-op", false;
    if (opCategory(op.kind) == OpCategory::ColExpand && base != OpKind::Sub &&
        base != OpKind::Add && base != OpKind::Mul && base != OpKind::Div &&
        base != OpKind::Max && base != OpKind::Min)
      return unsupported = "pto: no t-op for " + name, false;
    return true;
  }
  default:
    break;
  }
  switch (op.kind) {
  case OpKind::Input:
  case OpKind::FillPad:
    return true;
  case OpKind::Cast:
    if (isFloat(in) || isFloat(op.attrs.dtype))
      return true;
    return unsupported = "pto: integer casts have no tcvt form here", false;
  case OpKind::SetValidShape:
    // In place on the tile: the source must not be read again.
    if (!usedOnlyBy(op.operands[0], op))
      return unsupported = "pto: set_validshape of a value that is used again", false;
    return true;
  default:
    return unsupported = "pto: no tile op for " + name, false;
  }
}

bool Emitter::run(std::string &out, std::string &unsupported) {
  for (const Op &op : c_.ops)
    if (!check(op, unsupported))
      return false;
  std::string params;
  std::vector<std::string> inputPtrs;
  int arg = 0;
  auto param = [&](const std::string &type) {
    const std::string p = "%arg" + std::to_string(arg++);
    params += (params.empty() ? "" : ", ") + p + ": " + type;
    return p;
  };
  for (const Op &op : c_.ops)
    if (op.kind == OpKind::Input)
      inputPtrs.push_back(param("!pto.ptr<" + ptoType(c_.typeOf(op.results[0]).dtype) + ">"));
  std::vector<std::string> outputPtrs;
  for (ValueId v : c_.outputs)
    outputPtrs.push_back(param("!pto.ptr<" + ptoType(c_.typeOf(v).dtype) + ">"));
  std::map<size_t, std::pair<std::string, std::string>> validArgs;
  for (size_t i = 0; i < c_.ops.size(); ++i)
    if (c_.ops[i].kind == OpKind::SetValidShape && c_.ops[i].attrs.dynamic)
      validArgs[i] = {param("index"), param("index")};

  size_t input = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    const ValueId r = op.results[0];
    const std::string x = op.operands.empty() ? "" : tile(op.operands[0]);
    const std::string xt = op.operands.empty() ? "" : tileType(op.operands[0]);
    switch (op.kind) {
    case OpKind::Input: {
      const std::string pv = view(inputPtrs[input++], r);
      alloc(r);
      body_ += "    pto.tload ins(" + pv + " : " + viewType(r) + ") outs(" + tile(r) + " : " +
               tileType(r) + ")\n";
      continue;
    }
    case OpKind::SetValidShape: {
      tiles_[r] = tiles_.at(op.operands[0]);
      pads_[r] = pads_.at(op.operands[0]);
      const auto dyn = validArgs.find(i);
      const std::string rows = dyn != validArgs.end() ? dyn->second.first : idx(op.attrs.rows);
      const std::string cols = dyn != validArgs.end() ? dyn->second.second : idx(op.attrs.cols);
      body_ += "    pto.set_validshape " + x + ", " + rows + ", " + cols + " : " + xt + "\n";
      continue;
    }
    case OpKind::FillPad: {
      // pad: 1 zero, 2 max, 3 min (0 is no padding).
      const int pad = op.attrs.pad == PadKind::Zero ? 1 : op.attrs.pad == PadKind::Max ? 2 : 3;
      alloc(r, pad);
      body_ += "    pto.tfillpad ins(" + x + " : " + xt + ") outs(" + tile(r) + " : " +
               tileType(r) + ")\n";
      continue;
    }
    case OpKind::Cast:
      alloc(r);
      body_ += "    pto.tcvt ins(" + x + " {rmode = #pto<round_mode " +
               roundMode(op.attrs.rounding) + ">} : " + xt + ") outs(" + tile(r) + " : " +
               tileType(r) + ")\n";
      continue;
    default:
      break;
    }
    const OpCategory cat = opCategory(op.kind);
    std::string name = tOpName(op.kind);
    if (cat == OpCategory::RowExpand)
      name = "trowexpand" + tOpName(expandBaseOp(op.kind)).substr(1);
    else if (cat == OpCategory::ColExpand)
      name = "tcolexpand" + tOpName(expandBaseOp(op.kind)).substr(1);
    alloc(r);
    std::string ins = x, types = xt;
    if (op.operands.size() == 2)
      ins += ", " + tile(op.operands[1]), types += ", " + tileType(op.operands[1]);
    body_ += "    pto." + name + " ins(" + ins + " : " + types + ") outs(" + tile(r) + " : " +
             tileType(r) + ")\n";
  }
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    const ValueId v = c_.outputs[k];
    const std::string pv = view(outputPtrs[k], v);
    body_ += "    pto.tstore ins(" + tile(v) + " : " + tileType(v) + ") outs(" + pv + " : " +
             viewType(v) + ")\n";
  }
  std::string consts;
  for (int64_t n : constants_)
    consts += "    %c" + std::to_string(n) + " = arith.constant " + std::to_string(n) + " : index\n";
  out = "// Generated by npufuzz (backend/emit/PtoEmitter.h): PTO tile assembly.\n"
        "// Arguments: a !pto.ptr per input, then per output, then (rows, cols)\n"
        "// index pairs for each runtime set_validshape, in op order.\n"
        "module {\n  func.func @npf_kernel(" + params + ")\n"
        "      attributes {pto.entry, pto.kernel_kind = #pto.kernel_kind<vector>} {\n" +
        consts + body_ + "    return\n  }\n}\n";
  return true;
}

} // namespace

bool emitPto(const Case &c, std::string &out, std::string &unsupported) {
  return Emitter(c).run(out, unsupported);
}

} // namespace npufuzz
