//===- ir/Parser.cpp - Parse .npf text ------------------------------------===//
//
// A line-oriented recursive-descent parser. It never throws or aborts: every
// malformed input ends in a TextError with a 1-based line and column. After
// the syntax is read the case goes through verifyCase, and a type error is
// reported at the line of the op that caused it.
//
//===----------------------------------------------------------------------===//
#include "ir/AttrText.h"
#include "ir/FileText.h"
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
  if (line == 0) // about the file as a whole (unreadable, a directory, ...)
    return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + message;
}

namespace {

constexpr size_t kMaxOps = 100000;
constexpr size_t kMaxTextBytes = 64u << 20;

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
      } else if (peekWord("task")) {
        if (!parseTask())
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
  /// `task NAME blocks=N store=tile|scalar`: the compute ops below are
  /// its, until the next task line.
  bool parseTask() {
    identifier();
    skipSpace();
    const int nameCol = static_cast<int>(pos_) + 1;
    Task t;
    t.name = identifier();
    if (t.name.empty())
      return failHere("expected a task name");
    for (const Task &other : c_.tasks)
      if (other.name == t.name)
        return fail(lineNo_, nameCol, "repeated task '" + t.name + "'");
    if (c_.tasks.size() >= static_cast<size_t>(kMaxOps))
      return fail(lineNo_, nameCol, "more than " + std::to_string(kMaxOps) + " tasks");
    std::map<std::string, std::pair<std::string, int>> kv;
    if (!keyValues(kv))
      return false;
    for (const auto &[key, v] : kv) {
      if (key == "blocks") {
        int64_t n = 0;
        if (!textToInt(v.first, n) || n < 1 || n > kMaxTaskBlocks)
          return fail(lineNo_, v.second,
                      "blocks must be an integer in [1, " + std::to_string(kMaxTaskBlocks) + "]");
        t.blocks = static_cast<int32_t>(n);
      } else if (key == "store") {
        bool known = false;
        for (int k = 0; k < kNumTaskStores; ++k)
          if (v.first == taskStoreName(static_cast<TaskStore>(k))) {
            t.store = static_cast<TaskStore>(k);
            known = true;
          }
        if (!known)
          return fail(lineNo_, v.second, "store must be tile or scalar");
      } else {
        return fail(lineNo_, v.second, "unknown task key '" + key + "'");
      }
    }
    c_.tasks.push_back(std::move(t));
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
      return fail(line, 1,
                  std::to_string(resultNames.size()) + " result name(s) but " +
                      std::to_string(types.size()) + " type(s)");
    if (c_.ops.size() >= kMaxOps)
      return fail(line, 1, "more than " + std::to_string(kMaxOps) + " ops");
    AttrReader reader;
    if (!reader.interpretAttrs(op, attrs, types))
      return fail(lineNo_, reader.errorCol, reader.error);
    for (size_t i = 0; i < resultNames.size(); ++i)
      if (names_.count(resultNames[i]))
        return failAt(resultCols[i], "redefinition of %" + resultNames[i]);
    const int32_t opIndex =
        c_.addOp(op.kind, std::move(op.operands), std::move(op.attrs), std::move(types));
    if (op.kind != OpKind::Input)
      c_.ops[opIndex].task = static_cast<int32_t>(c_.tasks.size()) - 1;
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

bool parseCaseFile(const std::string &path, Case &out, TextError &error, std::string *text) {
  std::string own, why;
  std::string &read = text ? *text : own;
  if (!readFileBytes(path, read, why, kMaxTextBytes + 1)) {
    // `why` starts with the path, which format() puts first again.
    error = {0, 0, why.substr(path.size() + 2)};
    return false;
  }
  return parseCase(read, out, error);
}

} // namespace npufuzz
