//===- ir/AttrText.cpp - Attribute text of .npf ops -----------------------===//
#include "ir/AttrText.h"
#include "ir/NumberText.h"
#include "ir/Verifier.h"

#include <sstream>

namespace npufuzz {

bool AttrReader::readIntList(const RawAttr &a, const TensorType &, std::vector<int64_t> &out) {
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

bool AttrReader::readInt(const RawAttr &a, const TensorType &, int64_t &out) {
  if (!textToInt(a.value, out))
    return fail(a.col, "attribute '" + a.key + "' must be an integer");
  return true;
}

bool AttrReader::readScalar(const RawAttr &a, const TensorType &result, Scalar &s) {
  const DType t = result.dtype;
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

bool AttrReader::readRounding(const RawAttr &a, const TensorType &, RoundingMode &m) {
  const std::optional<RoundingMode> parsed = parseRounding(a.value);
  if (!parsed)
    return fail(a.col, a.key + " must be rne, rna, rtz, rdn or rup");
  m = *parsed;
  return true;
}

bool AttrReader::readPad(const RawAttr &a, const TensorType &, PadKind &p) {
  for (PadKind k : {PadKind::Zero, PadKind::Min, PadKind::Max})
    if (a.value == padName(k)) {
      p = k;
      return true;
    }
  return fail(a.col, a.key + " must be zero, min or max");
}

bool AttrReader::readFill(const RawAttr &a, const TensorType &, InputFill &f) {
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
  return fail(a.col, a.key + " must be rand, zeros, ones, iota or range(LO,HI)");
}

bool AttrReader::readMap(const RawAttr &a, const TensorType &result, std::vector<IndexExpr> &map) {
  const size_t resultRank = result.shape.size();
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
    enum { NoRow, Failed, Read } state = NoRow;
#define NPF_ATTR(OpEnum, Key, Kind, Field)                                                         \
  if (state == NoRow && op.kind == OpKind::OpEnum && r.key == Key)                                 \
    state = read##Kind(r, result, a.Field) ? Read : Failed;
#include "ir/OpAttrs.def"
    if (state == NoRow)
      return fail(r.col,
                  "op '" + std::string(opName(op.kind)) + "' takes no attribute '" + r.key + "'");
    if (state == Failed)
      return false;
  }
  // Attributes carried by the result type.
  bool fromDType = false, fromShape = false, fromValid = false;
#define NPF_RESULT_ATTR(OpEnum, What) from##What |= op.kind == OpKind::OpEnum;
#include "ir/OpAttrs.def"
  if (fromDType)
    a.dtype = result.dtype;
  if (fromShape)
    a.shape = result.shape;
  if (fromValid) {
    if (!result.valid)
      return fail(1, std::string(opName(op.kind)) + "'s result type needs {valid=ROWSxCOLS}");
    a.rows = result.valid->rows;
    a.cols = result.valid->cols;
    a.dynamic = result.valid->dynamic;
  }
  return true;
}

// --- Printing -------------------------------------------------------------------

namespace {
// One writer per attribute kind of ir/OpAttrs.def.
std::string writeInt(int64_t v, const TensorType &) { return std::to_string(v); }

std::string writeIntList(const std::vector<int64_t> &v, const TensorType &) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string writeScalar(const Scalar &s, const TensorType &result) {
  return isFloat(result.dtype) ? floatToText(s.f) : std::to_string(s.i);
}

std::string writeRounding(RoundingMode m, const TensorType &) {
  return std::string(roundingName(m));
}

std::string writePad(PadKind p, const TensorType &) { return std::string(padName(p)); }

std::string writeFill(const InputFill &f, const TensorType &) {
  std::string s(fillName(f.kind));
  if (f.kind == FillKind::Range)
    s += "(" + std::to_string(f.lo) + "," + std::to_string(f.hi) + ")";
  return s;
}

std::string writeMap(const std::vector<IndexExpr> &map, const TensorType &result) {
  std::string m = "(";
  for (size_t i = 0; i < result.shape.size(); ++i)
    m += (i ? ", d" : "d") + std::to_string(i);
  m += ") -> (";
  for (size_t i = 0; i < map.size(); ++i)
    m += (i ? ", " : "") + map[i].str();
  return m + ")";
}
} // namespace

std::vector<std::string> attributeTexts(const Op &op, const TensorType &result) {
  std::vector<std::string> texts;
  const OpAttrs &a = op.attrs;
#define NPF_ATTR(OpEnum, Key, Kind, Field)                                                         \
  if (op.kind == OpKind::OpEnum)                                                                   \
    texts.push_back(std::string(Key) + "=" + write##Kind(a.Field, result));
#include "ir/OpAttrs.def"
  return texts;
}

} // namespace npufuzz
