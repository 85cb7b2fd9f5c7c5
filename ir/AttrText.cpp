//===- ir/AttrText.cpp - Attribute text of .npf ops -----------------------===//
#include "ir/AttrText.h"
#include "ir/NumberText.h"
#include "ir/Verifier.h"

#include <sstream>

namespace npufuzz {

bool AttrReader::intListAttr(const RawAttr &a, std::vector<int64_t> &out) {
  const std::string &v = a.value;
  if (v.size() < 2 || v.front() != '[' || v.back() != ']')
    return fail(a.col, "attribute '" + a.key + "' must be a list like [1,2]");
  std::string inner = v.substr(1, v.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    int64_t x;
    if (b == std::string::npos || !textToInt(item.substr(b, e - b + 1), x))
      return fail(a.col, "attribute '" + a.key + "' has a bad element '" + item + "'");
    if (out.size() >= kMaxRank)
      return fail(a.col, "attribute '" + a.key + "' is longer than the maximum rank");
    out.push_back(x);
  }
  return true;
}

bool AttrReader::intAttr(const RawAttr &a, int64_t &out) {
  if (!textToInt(a.value, out))
    return fail(a.col, "attribute '" + a.key + "' must be an integer");
  return true;
}

bool AttrReader::scalarAttr(const RawAttr &a, DType t, Scalar &s) {
  if (isFloat(t)) {
    if (!textToFloat(a.value, s.f))
      return fail(a.col, "attribute '" + a.key + "' must be a float");
    return true;
  }
  if (!textToInt(a.value, s.i))
    return fail(a.col, "attribute '" + a.key + "' must be an integer");
  if (s.i < minIntValue(t) || s.i > maxIntValue(t))
    return fail(a.col, "value " + a.value + " does not fit " + std::string(dtypeName(t)));
  return true;
}

bool AttrReader::fillAttr(const RawAttr &a, InputFill &f) {
  const std::string &v = a.value;
  for (FillKind k : {FillKind::Random, FillKind::Zeros, FillKind::Ones, FillKind::Iota})
    if (v == fillName(k)) {
      f.kind = k;
      return true;
    }
  if (v.rfind("range(", 0) == 0 && v.back() == ')') {
    const std::string inner = v.substr(6, v.size() - 7);
    const size_t comma = inner.find(',');
    if (comma != std::string::npos && textToInt(inner.substr(0, comma), f.lo) &&
        textToInt(inner.substr(comma + 1), f.hi)) {
      f.kind = FillKind::Range;
      return true;
    }
  }
  return fail(a.col, "fill must be rand, zeros, ones, iota or range(LO,HI)");
}

bool AttrReader::mapAttr(const RawAttr &a, size_t resultRank, std::vector<IndexExpr> &map) {
  const std::string &v = a.value;
  const size_t arrow = v.find("->");
  const size_t open = v.find('(', arrow == std::string::npos ? 0 : arrow);
  if (arrow == std::string::npos || open == std::string::npos || v.back() != ')')
    return fail(a.col, "map must look like (d0, d1) -> (d0 floordiv 4, d1)");
  // The dim list must name d0..dN-1 for the result rank, in order.
  std::string dims = v.substr(0, arrow);
  std::string expected = "(";
  for (size_t i = 0; i < resultRank; ++i)
    expected += (i ? ", d" : "d") + std::to_string(i);
  expected += ")";
  dims.erase(dims.find_last_not_of(' ') + 1);
  std::string squeezed, exp2;
  for (char ch : dims)
    if (ch != ' ')
      squeezed += ch;
  for (char ch : expected)
    if (ch != ' ')
      exp2 += ch;
  if (squeezed != exp2)
    return fail(a.col, "map dims must be " + expected + " for the result rank");
  // Split the body between the outer parentheses at top-level commas.
  const size_t bodyStart = open + 1;
  const std::string body = v.substr(bodyStart, v.size() - 1 - bodyStart);
  int depth = 0;
  size_t itemStart = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    const char ch = i < body.size() ? body[i] : ',';
    depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
    if (ch != ',' || depth != 0)
      continue;
    IndexExpr e;
    std::string err;
    size_t errPos = 0;
    if (!parseIndexExpr(body.substr(itemStart, i - itemStart), e, err, errPos))
      return fail(a.col + static_cast<int>(a.key.size() + 1 + bodyStart + itemStart + errPos),
                  "in map: " + err);
    map.push_back(e);
    if (map.size() > kMaxRank)
      return fail(a.col, "map has more expressions than the maximum rank");
    itemStart = i + 1;
  }
  return true;
}

bool AttrReader::interpretAttrs(Op &op, const std::vector<RawAttr> &attrs,
                    const std::vector<TensorType> &types) {
  OpAttrs &a = op.attrs;
  const TensorType &result = types[0];
  for (const RawAttr &r : attrs) {
    bool ok = true, known = true;
    const std::string &k = r.key;
    switch (op.kind) {
    case OpKind::Input:
      known = k == "fill";
      ok = !known || fillAttr(r, a.fill);
      break;
    case OpKind::Const:
    case OpKind::MaskedFill:
      known = k == "value";
      ok = !known || scalarAttr(r, result.dtype, a.value);
      break;
    case OpKind::Cast: {
      known = k == "round";
      std::optional<RoundingMode> m = parseRounding(r.value);
      if (known && !m)
        return fail(r.col, "round must be rne, rna, rtz, rdn or rup");
      if (m)
        a.rounding = *m;
      break;
    }
    case OpKind::FillPad:
      known = k == "pad";
      if (known) {
        if (r.value == "zero")
          a.pad = PadKind::Zero;
        else if (r.value == "min")
          a.pad = PadKind::Min;
        else if (r.value == "max")
          a.pad = PadKind::Max;
        else
          return fail(r.col, "pad must be zero, min or max");
      }
      break;
    case OpKind::Slice:
      known = k == "offsets" || k == "sizes" || k == "strides";
      if (known)
        ok = intListAttr(r, k == "offsets" ? a.offsets : k == "sizes" ? a.sizes : a.strides);
      break;
    case OpKind::Transpose:
      known = k == "perm";
      ok = !known || intListAttr(r, a.perm);
      break;
    case OpKind::IndexMap:
      known = k == "map";
      ok = !known || mapAttr(r, result.shape.size(), a.map);
      break;
    default:
      if (k == "axis")
        ok = intAttr(r, a.axis);
      else if (k == "k" && op.kind == OpKind::TopK)
        ok = intAttr(r, a.k);
      else if ((k == "count" || k == "index") && op.kind == OpKind::Chunk)
        ok = intAttr(r, k == "count" ? a.count : a.index);
      else
        known = false;
      if (k == "axis" &&
          !(op.kind == OpKind::Iota || op.kind == OpKind::ReduceSum ||
            op.kind == OpKind::ReduceMax || op.kind == OpKind::ReduceMin ||
            op.kind == OpKind::ArgMax || op.kind == OpKind::Gather ||
            op.kind == OpKind::Squeeze || op.kind == OpKind::Unsqueeze ||
            op.kind == OpKind::TopK || op.kind == OpKind::Chunk))
        known = false;
      break;
    }
    if (!known)
      return fail(r.col,
                  "op '" + std::string(opName(op.kind)) + "' takes no attribute '" + k + "'");
    if (!ok)
      return false;
  }
  // Attributes carried by the result type.
  if (op.kind == OpKind::Cast || op.kind == OpKind::Matmul)
    a.dtype = result.dtype;
  if (op.kind == OpKind::Reshape || op.kind == OpKind::Broadcast ||
      op.kind == OpKind::IndexMap)
    a.shape = result.shape;
  if (op.kind == OpKind::SetValidShape) {
    if (!result.valid)
      return fail(1, "set_validshape's result type needs {valid=ROWSxCOLS}");
    a.rows = result.valid->rows;
    a.cols = result.valid->cols;
    a.dynamic = result.valid->dynamic;
  }
  return true;
}


} // namespace npufuzz
