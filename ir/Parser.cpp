//===- ir/Parser.cpp - Parse .npf text ------------------------------------===//
//
// A line-oriented recursive-descent parser. It never throws or aborts: every
// malformed input ends in a TextError with a 1-based line and column. After
// the syntax is read the case goes through verifyCase, and a type error is
// reported at the line of the op that caused it.
//
//===----------------------------------------------------------------------===//
#include "ir/NumberText.h"
#include "ir/Text.h"
#include "ir/Verifier.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace npufuzz {

std::string TextError::format(const std::string &file) const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + message;
}

namespace {

constexpr size_t kMaxOps = 100000;
constexpr size_t kMaxTextBytes = 64u << 20;

/// A raw `key=value` attribute, interpreted once the op's types are known.
struct RawAttr {
  std::string key, value;
  int col = 0;
};

class Parser {
public:
  Parser(const std::string &text, Case &out, TextError &error)
      : text_(text), c_(out), error_(error) {}

  bool parse() {
    c_ = Case();
    if (text_.size() > kMaxTextBytes)
      return fail(1, 1, "file is larger than " + std::to_string(kMaxTextBytes) + " bytes");
    bool sawHeader = false, sawReturn = false;
    size_t start = 0;
    int lineNo = 0;
    while (start <= text_.size()) {
      size_t end = text_.find('\n', start);
      if (end == std::string::npos)
        end = text_.size();
      ++lineNo;
      line_ = text_.substr(start, end - start);
      if (!line_.empty() && line_.back() == '\r')
        line_.pop_back();
      lineNo_ = lineNo;
      pos_ = 0;
      start = end + 1;
      skipSpace();
      if (atEnd() || peekIs("//"))
        continue;
      if (!sawHeader) {
        if (!parseHeader())
          return false;
        sawHeader = true;
        continue;
      }
      if (sawReturn)
        return failHere("nothing may follow 'return'");
      if (peekWord("generator")) {
        if (!parseGenerator())
          return false;
      } else if (peekWord("data")) {
        if (!parseData())
          return false;
      } else if (peekWord("return")) {
        if (!parseReturn())
          return false;
        sawReturn = true;
      } else if (!parseOp()) {
        return false;
      }
    }
    if (!sawHeader)
      return fail(1, 1, "empty file: expected 'npufuzz-case " + std::to_string(kNpfVersion) + "'");
    if (!sawReturn)
      return fail(lineNo, 1, "missing 'return' at the end of the case");
    int failing = -1;
    std::string msg = verifyCase(c_, &failing);
    if (!msg.empty()) {
      const int line = failing >= 0 ? opLines_[failing] : returnLine_;
      return fail(line, 1, msg);
    }
    return true;
  }

private:
  // --- Error reporting -----------------------------------------------------
  bool fail(int line, int col, const std::string &msg) {
    error_.line = line;
    error_.col = col;
    error_.message = msg;
    return false;
  }
  bool failAt(size_t pos, const std::string &msg) {
    return fail(lineNo_, static_cast<int>(pos) + 1, msg);
  }
  bool failHere(const std::string &msg) { return failAt(pos_, msg); }

  // --- Lexing helpers on the current line ----------------------------------
  bool atEnd() const { return pos_ >= line_.size(); }
  void skipSpace() {
    while (!atEnd() && (line_[pos_] == ' ' || line_[pos_] == '\t'))
      ++pos_;
    if (peekIs("//")) // a trailing comment ends the line
      pos_ = line_.size();
  }
  bool peekIs(const char *s) const { return line_.compare(pos_, std::strlen(s), s) == 0; }
  bool peekWord(const char *w) const {
    const size_t n = std::strlen(w);
    return peekIs(w) && (pos_ + n >= line_.size() || !isIdentChar(line_[pos_ + n]));
  }
  static bool isIdentChar(char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
  }
  bool expect(char ch) {
    skipSpace();
    if (atEnd() || line_[pos_] != ch)
      return failHere(std::string("expected '") + ch + "'");
    ++pos_;
    return true;
  }
  bool consume(char ch) {
    skipSpace();
    if (!atEnd() && line_[pos_] == ch) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string identifier() {
    skipSpace();
    size_t b = pos_;
    while (!atEnd() && isIdentChar(line_[pos_]))
      ++pos_;
    return line_.substr(b, pos_ - b);
  }
  bool integer(int64_t &v) {
    skipSpace();
    size_t b = pos_;
    if (!atEnd() && line_[pos_] == '-')
      ++pos_;
    while (!atEnd() && std::isdigit(static_cast<unsigned char>(line_[pos_])))
      ++pos_;
    if (!textToInt(std::string_view(line_).substr(b, pos_ - b), v))
      return failAt(b, "expected an integer");
    return true;
  }
  bool endOfLine() {
    skipSpace();
    return atEnd() || failHere("unexpected text '" + line_.substr(pos_, 20) + "'");
  }
  /// key=value pairs up to the end of the line (header lines).
  bool keyValues(std::map<std::string, std::pair<std::string, int>> &kv) {
    for (;;) {
      skipSpace();
      if (atEnd())
        return true;
      const int col = static_cast<int>(pos_) + 1;
      std::string key = identifier();
      if (key.empty())
        return failHere("expected key=value");
      if (!expect('='))
        return false;
      std::string value;
      skipSpace();
      const size_t quoteAt = pos_;
      if (consume('"')) {
        size_t close = line_.find('"', pos_);
        if (close == std::string::npos)
          return failAt(quoteAt, "unterminated string");
        value = line_.substr(pos_, close - pos_);
        pos_ = close + 1;
      } else {
        value = identifier();
      }
      if (!kv.emplace(key, std::make_pair(value, col)).second)
        return fail(lineNo_, col, "repeated key '" + key + "'");
    }
  }

  // --- Header lines --------------------------------------------------------
  bool parseHeader() {
    if (!peekWord("npufuzz-case"))
      return failHere("expected 'npufuzz-case " + std::to_string(kNpfVersion) + "' header");
    identifier();
    int64_t version = 0;
    if (!integer(version))
      return false;
    if (version != kNpfVersion)
      return failHere("unsupported format version " + std::to_string(version) +
                      " (this npufuzz reads version " + std::to_string(kNpfVersion) + ")");
    return endOfLine();
  }
  bool parseGenerator() {
    identifier();
    std::map<std::string, std::pair<std::string, int>> kv;
    if (!keyValues(kv))
      return false;
    Provenance p;
    for (const auto &[key, v] : kv) {
      if (key == "seed") {
        if (!textToUInt(v.first, p.seed))
          return fail(lineNo_, v.second, "generator seed must be an unsigned integer");
      } else if (key == "policy") {
        p.policy = v.first;
      } else {
        return fail(lineNo_, v.second, "unknown generator key '" + key + "'");
      }
    }
    c_.provenance = p;
    return true;
  }
  bool parseData() {
    identifier();
    std::map<std::string, std::pair<std::string, int>> kv;
    if (!keyValues(kv))
      return false;
    for (const auto &[key, v] : kv) {
      if (key == "seed") {
        if (!textToUInt(v.first, c_.dataSeed))
          return fail(lineNo_, v.second, "data seed must be an unsigned integer");
      } else if (key == "edge_rate") {
        if (!textToDouble(v.first, c_.edgeRate) || !(c_.edgeRate >= 0 && c_.edgeRate <= 1))
          return fail(lineNo_, v.second, "edge_rate must be a number in [0, 1]");
      } else {
        return fail(lineNo_, v.second, "unknown data key '" + key + "'");
      }
    }
    return true;
  }
  bool parseReturn() {
    returnLine_ = lineNo_;
    identifier();
    do {
      ValueId v;
      if (!useValue(v))
        return false;
      c_.outputs.push_back(v);
    } while (consume(','));
    return endOfLine();
  }

  // --- Values --------------------------------------------------------------
  bool valueName(std::string &name) {
    skipSpace();
    if (atEnd() || line_[pos_] != '%')
      return failHere("expected a value name like %0");
    ++pos_;
    size_t b = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(line_[pos_])) ||
                        line_[pos_] == '_' || line_[pos_] == '.'))
      ++pos_;
    if (pos_ == b)
      return failHere("expected a value name after '%'");
    name = line_.substr(b, pos_ - b);
    return true;
  }
  bool useValue(ValueId &v) {
    skipSpace();
    const size_t at = pos_;
    std::string name;
    if (!valueName(name))
      return false;
    auto it = names_.find(name);
    if (it == names_.end())
      return failAt(at, "use of undefined value %" + name);
    v = it->second;
    return true;
  }

  // --- Types ---------------------------------------------------------------
  bool type(TensorType &t) {
    skipSpace();
    const size_t at = pos_;
    std::string dt;
    while (!atEnd() && std::isalnum(static_cast<unsigned char>(line_[pos_])))
      dt += line_[pos_++];
    std::optional<DType> d = parseDType(dt);
    if (!d)
      return failAt(at, "unknown element type '" + dt + "'");
    t.dtype = *d;
    if (!expect('['))
      return false;
    do {
      int64_t dim;
      const size_t dimAt = pos_;
      if (!integer(dim))
        return false;
      if (dim < 1 || dim > kMaxDim)
        return failAt(dimAt, "dimension " + std::to_string(dim) + " is outside 1.." +
                                 std::to_string(kMaxDim));
      if (t.shape.size() >= kMaxRank)
        return failAt(dimAt, "rank exceeds " + std::to_string(kMaxRank));
      t.shape.push_back(dim);
    } while (consume(','));
    if (!expect(']'))
      return false;
    if (consume('{')) {
      if (identifier() != "valid" || !expect('='))
        return failHere("expected valid=ROWSxCOLS");
      ValidShape v;
      int64_t rows;
      if (!integer(rows))
        return false;
      if (atEnd() || line_[pos_] != 'x')
        return failHere("expected 'x' in valid=ROWSxCOLS");
      ++pos_;
      if (!integer(v.cols))
        return false;
      v.rows = rows;
      if (consume(',')) {
        if (identifier() != "dyn")
          return failHere("expected 'dyn'");
        v.dynamic = true;
      }
      if (!expect('}'))
        return false;
      t.valid = v;
    }
    return true;
  }

  // --- Ops -----------------------------------------------------------------
  /// Reads an attribute value up to the next ',' or '}' at nesting depth 0.
  bool rawValue(std::string &value) {
    skipSpace();
    size_t b = pos_;
    std::vector<size_t> open; // positions of unclosed brackets
    while (!atEnd()) {
      char ch = line_[pos_];
      if (ch == '(' || ch == '[')
        open.push_back(pos_);
      else if (ch == ')' || ch == ']') {
        if (open.empty())
          return failHere(std::string("unbalanced '") + ch + "'");
        open.pop_back();
      } else if (open.empty() && (ch == ',' || ch == '}'))
        break;
      ++pos_;
    }
    if (!open.empty())
      return failAt(open.back(), "unbalanced bracket: this one is never closed");
    value = line_.substr(b, pos_ - b);
    while (!value.empty() && value.back() == ' ')
      value.pop_back();
    if (value.empty())
      return failHere("empty attribute value");
    return true;
  }

  bool parseOp() {
    const int line = lineNo_;
    std::vector<std::string> resultNames;
    std::vector<size_t> resultCols;
    do {
      resultCols.push_back(pos_);
      std::string n;
      if (!valueName(n))
        return false;
      resultNames.push_back(n);
    } while (consume(','));
    if (!expect('='))
      return false;
    skipSpace();
    const size_t kindAt = pos_;
    std::string kindName = identifier();
    std::optional<OpKind> kind = parseOpName(kindName);
    if (!kind)
      return failAt(kindAt, "unknown op '" + kindName + "'");
    Op op;
    op.kind = *kind;
    skipSpace();
    if (!atEnd() && line_[pos_] == '%') {
      do {
        ValueId v;
        if (!useValue(v))
          return false;
        op.operands.push_back(v);
      } while (consume(','));
    }
    std::vector<RawAttr> attrs;
    if (consume('{')) {
      do {
        RawAttr a;
        skipSpace();
        a.col = static_cast<int>(pos_) + 1;
        a.key = identifier();
        if (a.key.empty())
          return failHere("expected an attribute name");
        if (!expect('=') || !rawValue(a.value))
          return false;
        for (const RawAttr &other : attrs)
          if (other.key == a.key)
            return fail(lineNo_, a.col, "repeated attribute '" + a.key + "'");
        attrs.push_back(std::move(a));
      } while (consume(','));
      if (!expect('}'))
        return false;
    }
    if (!expect(':'))
      return false;
    std::vector<TensorType> types;
    do {
      TensorType t;
      if (!type(t))
        return false;
      types.push_back(std::move(t));
    } while (consume(','));
    if (!endOfLine())
      return false;
    if (types.size() != resultNames.size())
      return fail(line, 1, std::to_string(resultNames.size()) + " result name(s) but " +
                               std::to_string(types.size()) + " type(s)");
    if (c_.ops.size() >= kMaxOps)
      return fail(line, 1, "more than " + std::to_string(kMaxOps) + " ops");
    if (!interpretAttrs(op, attrs, types))
      return false;
    for (size_t i = 0; i < resultNames.size(); ++i)
      if (names_.count(resultNames[i]))
        return failAt(resultCols[i], "redefinition of %" + resultNames[i]);
    const int32_t opIndex =
        c_.addOp(op.kind, std::move(op.operands), std::move(op.attrs), std::move(types));
    for (size_t i = 0; i < resultNames.size(); ++i) {
      const ValueId id = c_.result(opIndex, static_cast<unsigned>(i));
      names_[resultNames[i]] = id;
      // Numeric names are positions, re-derived when printing; others stay.
      bool numeric = resultNames[i].find_first_not_of("0123456789") == std::string::npos;
      if (!numeric)
        c_.values[id].name = resultNames[i];
    }
    opLines_.push_back(line);
    return true;
  }

  bool intListAttr(const RawAttr &a, std::vector<int64_t> &out) {
    const std::string &v = a.value;
    if (v.size() < 2 || v.front() != '[' || v.back() != ']')
      return fail(lineNo_, a.col, "attribute '" + a.key + "' must be a list like [1,2]");
    std::string inner = v.substr(1, v.size() - 2);
    std::stringstream ss(inner);
    std::string item;
    while (std::getline(ss, item, ',')) {
      size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
      int64_t x;
      if (b == std::string::npos || !textToInt(item.substr(b, e - b + 1), x))
        return fail(lineNo_, a.col, "attribute '" + a.key + "' has a bad element '" + item + "'");
      if (out.size() >= kMaxRank)
        return fail(lineNo_, a.col, "attribute '" + a.key + "' is longer than the maximum rank");
      out.push_back(x);
    }
    return true;
  }

  bool intAttr(const RawAttr &a, int64_t &out) {
    if (!textToInt(a.value, out))
      return fail(lineNo_, a.col, "attribute '" + a.key + "' must be an integer");
    return true;
  }

  bool scalarAttr(const RawAttr &a, DType t, Scalar &s) {
    if (isFloat(t)) {
      if (!textToFloat(a.value, s.f))
        return fail(lineNo_, a.col, "attribute '" + a.key + "' must be a float");
      return true;
    }
    if (!textToInt(a.value, s.i))
      return fail(lineNo_, a.col, "attribute '" + a.key + "' must be an integer");
    if (s.i < minIntValue(t) || s.i > maxIntValue(t))
      return fail(lineNo_, a.col, "value " + a.value + " does not fit " + std::string(dtypeName(t)));
    return true;
  }

  bool fillAttr(const RawAttr &a, InputFill &f) {
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
    return fail(lineNo_, a.col, "fill must be rand, zeros, ones, iota or range(LO,HI)");
  }

  bool mapAttr(const RawAttr &a, size_t resultRank, std::vector<IndexExpr> &map) {
    const std::string &v = a.value;
    const size_t arrow = v.find("->");
    const size_t open = v.find('(', arrow == std::string::npos ? 0 : arrow);
    if (arrow == std::string::npos || open == std::string::npos || v.back() != ')')
      return fail(lineNo_, a.col, "map must look like (d0, d1) -> (d0 floordiv 4, d1)");
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
      return fail(lineNo_, a.col, "map dims must be " + expected + " for the result rank");
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
        return fail(lineNo_,
                    a.col + static_cast<int>(a.key.size() + 1 + bodyStart + itemStart + errPos),
                    "in map: " + err);
      map.push_back(e);
      if (map.size() > kMaxRank)
        return fail(lineNo_, a.col, "map has more expressions than the maximum rank");
      itemStart = i + 1;
    }
    return true;
  }

  /// Sets op.attrs from the raw attributes, checking that the op's kind takes
  /// each one. Attributes derivable from the result type are taken from it.
  bool interpretAttrs(Op &op, const std::vector<RawAttr> &attrs,
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
          return fail(lineNo_, r.col, "round must be rne, rna, rtz, rdn or rup");
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
            return fail(lineNo_, r.col, "pad must be zero, min or max");
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
        return fail(lineNo_, r.col,
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
        return fail(lineNo_, 1, "set_validshape's result type needs {valid=ROWSxCOLS}");
      a.rows = result.valid->rows;
      a.cols = result.valid->cols;
      a.dynamic = result.valid->dynamic;
    }
    return true;
  }

  const std::string &text_;
  Case &c_;
  TextError &error_;
  std::string line_;
  int lineNo_ = 0;
  size_t pos_ = 0;
  std::map<std::string, ValueId> names_;
  std::vector<int> opLines_;
  int returnLine_ = 0;
};

} // namespace

bool parseCase(const std::string &text, Case &out, TextError &error) {
  return Parser(text, out, error).parse();
}

bool parseCaseFile(const std::string &path, Case &out, TextError &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = {0, 0, "cannot open file"};
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parseCase(ss.str(), out, error);
}

} // namespace npufuzz
