//===- ir/IndexExpr.cpp - Integer index expressions -----------------------===//
//
// Evaluation, interval bounds, printing and parsing of index expressions.
//
//===----------------------------------------------------------------------===//
#include "ir/IndexExpr.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace npufuzz {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

struct IndexExpr::Node {
  Kind kind;
  int64_t value;
  IndexExpr lhs, rhs;
  Node(Kind k, int64_t v) : kind(k), value(v), lhs(nullptr), rhs(nullptr) {}
  Node(Kind k, int64_t v, IndexExpr l, IndexExpr r)
      : kind(k), value(v), lhs(std::move(l)), rhs(std::move(r)) {}
};

IndexExpr::IndexExpr(std::shared_ptr<const Node> n) : node_(std::move(n)) {}

IndexExpr::~IndexExpr() {
  // Releasing a long chain of left operands node by node would recurse once
  // per node; unlink the chain here and release it in a loop instead.
  std::shared_ptr<const Node> next = std::move(node_);
  while (next && next.use_count() == 1) {
    // Nodes are made by make_shared<Node> and only held as const: the one
    // remaining owner may take the operand apart.
    std::shared_ptr<const Node> lhs = std::move(const_cast<Node &>(*next).lhs.node_);
    next = std::move(lhs); // frees the node, whose lhs is now empty
  }
}

std::vector<const IndexExpr *> sumTerms(const IndexExpr &e) {
  std::vector<const IndexExpr *> terms;
  const IndexExpr *at = &e;
  for (; at->kind() == IndexExpr::Kind::Add; at = &at->lhs())
    terms.push_back(&at->rhs());
  terms.push_back(at);
  std::reverse(terms.begin(), terms.end());
  return terms;
}

IndexExpr::IndexExpr() : IndexExpr(constant(0)) {}

IndexExpr IndexExpr::dim(unsigned position) {
  return IndexExpr(std::make_shared<Node>(Kind::Dim, position));
}
IndexExpr IndexExpr::constant(int64_t value) {
  return IndexExpr(std::make_shared<Node>(Kind::Const, value));
}
IndexExpr IndexExpr::add(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr(std::make_shared<Node>(Kind::Add, 0, std::move(lhs), std::move(rhs)));
}
IndexExpr IndexExpr::mul(IndexExpr lhs, int64_t factor) {
  return IndexExpr(std::make_shared<Node>(Kind::Mul, factor, std::move(lhs), IndexExpr(nullptr)));
}
IndexExpr IndexExpr::floorDiv(IndexExpr lhs, int64_t divisor) {
  return IndexExpr(
      std::make_shared<Node>(Kind::FloorDiv, divisor, std::move(lhs), IndexExpr(nullptr)));
}
IndexExpr IndexExpr::mod(IndexExpr lhs, int64_t divisor) {
  return IndexExpr(std::make_shared<Node>(Kind::Mod, divisor, std::move(lhs), IndexExpr(nullptr)));
}

IndexExpr::Kind IndexExpr::kind() const { return node_->kind; }
int64_t IndexExpr::value() const { return node_->value; }
const IndexExpr &IndexExpr::lhs() const { return node_->lhs; }
const IndexExpr &IndexExpr::rhs() const { return node_->rhs; }

int64_t IndexExpr::eval(const std::vector<int64_t> &dims) const {
  switch (kind()) {
  case Kind::Dim: return value() < static_cast<int64_t>(dims.size()) ? dims[value()] : 0;
  case Kind::Const: return value();
  case Kind::Add: {
    int64_t sum = 0;
    for (const IndexExpr *t : sumTerms(*this))
      sum += t->eval(dims);
    return sum;
  }
  case Kind::Mul: return lhs().eval(dims) * value();
  case Kind::FloorDiv: return npufuzz::floorDiv(lhs().eval(dims), value());
  case Kind::Mod: return npufuzz::floorMod(lhs().eval(dims), value());
  }
  return 0;
}

namespace {
/// Interval arithmetic saturates at +-2^62 so that bounding an adversarial
/// expression never overflows; boundedBy rejects such expressions anyway.
constexpr int64_t kSaturate = int64_t(1) << 62;
int64_t sat(__int128 v) {
  return v > kSaturate ? kSaturate : v < -kSaturate ? -kSaturate : static_cast<int64_t>(v);
}
} // namespace

Interval IndexExpr::range(const std::vector<Interval> &dims) const {
  switch (kind()) {
  case Kind::Dim:
    return value() < static_cast<int64_t>(dims.size()) ? dims[value()] : Interval{0, 0};
  case Kind::Const: return {value(), value()};
  case Kind::Add: {
    const std::vector<const IndexExpr *> terms = sumTerms(*this);
    Interval sum = terms[0]->range(dims);
    for (size_t i = 1; i < terms.size(); ++i) {
      const Interval b = terms[i]->range(dims);
      sum = {sat(static_cast<__int128>(sum.lo) + b.lo), sat(static_cast<__int128>(sum.hi) + b.hi)};
    }
    return sum;
  }
  case Kind::Mul: {
    Interval a = lhs().range(dims);
    int64_t x = sat(static_cast<__int128>(a.lo) * value());
    int64_t y = sat(static_cast<__int128>(a.hi) * value());
    return {std::min(x, y), std::max(x, y)};
  }
  case Kind::FloorDiv: {
    Interval a = lhs().range(dims);
    return {npufuzz::floorDiv(a.lo, value()), npufuzz::floorDiv(a.hi, value())};
  }
  case Kind::Mod: {
    Interval a = lhs().range(dims);
    // Exact when the whole interval lies in one period.
    if (npufuzz::floorDiv(a.lo, value()) == npufuzz::floorDiv(a.hi, value()))
      return {npufuzz::floorMod(a.lo, value()), npufuzz::floorMod(a.hi, value())};
    return {0, value() - 1};
  }
  }
  return {0, 0};
}

namespace {
/// The range of `e`, and false if it or any subexpression leaves [-limit,
/// limit]. One pass over the tree: checking each subexpression with its own
/// range() would be quadratic in the length of a long sum.
bool boundedRange(const IndexExpr &e, const std::vector<Interval> &dims, int64_t limit,
                  Interval &out) {
  using Kind = IndexExpr::Kind;
  Interval a, b;
  switch (e.kind()) {
  case Kind::Dim:
  case Kind::Const: out = e.range(dims); break;
  case Kind::Add: {
    // Every partial sum a + b, (a + b) + c, ... is a subexpression.
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    if (!boundedRange(*terms[0], dims, limit, a))
      return false;
    for (size_t i = 1; i < terms.size(); ++i) {
      if (!boundedRange(*terms[i], dims, limit, b))
        return false;
      a = {sat(static_cast<__int128>(a.lo) + b.lo), sat(static_cast<__int128>(a.hi) + b.hi)};
      if (a.lo < -limit || a.hi > limit)
        return false;
    }
    out = a;
    break;
  }
  case Kind::Mul: {
    if (!boundedRange(e.lhs(), dims, limit, a))
      return false;
    const int64_t x = sat(static_cast<__int128>(a.lo) * e.value());
    const int64_t y = sat(static_cast<__int128>(a.hi) * e.value());
    out = {std::min(x, y), std::max(x, y)};
    break;
  }
  case Kind::FloorDiv:
    if (!boundedRange(e.lhs(), dims, limit, a))
      return false;
    out = {npufuzz::floorDiv(a.lo, e.value()), npufuzz::floorDiv(a.hi, e.value())};
    break;
  case Kind::Mod:
    if (!boundedRange(e.lhs(), dims, limit, a))
      return false;
    out = npufuzz::floorDiv(a.lo, e.value()) == npufuzz::floorDiv(a.hi, e.value())
              ? Interval{npufuzz::floorMod(a.lo, e.value()), npufuzz::floorMod(a.hi, e.value())}
              : Interval{0, e.value() - 1};
    break;
  }
  return out.lo >= -limit && out.hi <= limit;
}
} // namespace

bool IndexExpr::boundedBy(const std::vector<Interval> &dims, int64_t limit) const {
  Interval r;
  return boundedRange(*this, dims, limit, r);
}

unsigned IndexExpr::numDims() const {
  switch (kind()) {
  case Kind::Dim: return static_cast<unsigned>(value()) + 1;
  case Kind::Const: return 0;
  case Kind::Add: {
    unsigned n = 0;
    for (const IndexExpr *t : sumTerms(*this))
      n = std::max(n, t->numDims());
    return n;
  }
  default: return lhs().numDims();
  }
}

size_t IndexExpr::size() const {
  switch (kind()) {
  case Kind::Dim:
  case Kind::Const: return 1;
  case Kind::Add: {
    const std::vector<const IndexExpr *> terms = sumTerms(*this);
    size_t n = terms.size() - 1; // the additions
    for (const IndexExpr *t : terms)
      n += t->size();
    return n;
  }
  default: return 1 + lhs().size();
  }
}

unsigned IndexExpr::countFloorDivMod() const {
  switch (kind()) {
  case Kind::Dim:
  case Kind::Const: return 0;
  case Kind::Add: {
    unsigned n = 0;
    for (const IndexExpr *t : sumTerms(*this))
      n += t->countFloorDivMod();
    return n;
  }
  case Kind::FloorDiv:
  case Kind::Mod: return 1 + lhs().countFloorDivMod();
  case Kind::Mul: return lhs().countFloorDivMod();
  }
  return 0;
}

bool IndexExpr::operator==(const IndexExpr &o) const {
  if (node_ == o.node_)
    return true;
  if (kind() != o.kind() || value() != o.value())
    return false;
  switch (kind()) {
  case Kind::Dim:
  case Kind::Const: return true;
  case Kind::Add: {
    const std::vector<const IndexExpr *> a = sumTerms(*this), b = sumTerms(o);
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(*a[i] == *b[i]))
        return false;
    return true;
  }
  default: return lhs() == o.lhs();
  }
}

namespace {
// Precedence levels for printing: sums bind loosest, then the multiplicative
// operators (*, floordiv, mod, all left-associative), then atoms.
enum Prec { kSum = 0, kProduct = 1, kAtom = 2 };

Prec precOf(const IndexExpr &e) {
  switch (e.kind()) {
  case IndexExpr::Kind::Add: return kSum;
  case IndexExpr::Kind::Dim: return kAtom;
  case IndexExpr::Kind::Const:
    return e.value() < 0 ? kSum : kAtom; // "-3" must be parenthesised as an operand
  default: return kProduct;
  }
}

void print(const IndexExpr &e, const std::vector<std::string> &names, std::string &out) {
  auto operand = [&](const IndexExpr &sub, Prec needed) {
    if (precOf(sub) < needed) {
      out += '(';
      print(sub, names, out);
      out += ')';
    } else {
      print(sub, names, out);
    }
  };
  switch (e.kind()) {
  case IndexExpr::Kind::Dim:
    if (static_cast<size_t>(e.value()) < names.size()) {
      out += names[e.value()];
    } else {
      out += 'd';
      out += std::to_string(e.value());
    }
    return;
  case IndexExpr::Kind::Const: out += std::to_string(e.value()); return;
  case IndexExpr::Kind::Add: {
    // Sums are left-associative: the first term bare, then each added one.
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    print(*terms[0], names, out);
    for (size_t i = 1; i < terms.size(); ++i) {
      const IndexExpr &t = *terms[i];
      if (t.kind() == IndexExpr::Kind::Const && t.value() < 0) {
        // "x - 3" parses back to add(x, -3).
        out += " - ";
        out += std::to_string(-t.value());
      } else {
        out += " + ";
        operand(t, kProduct);
      }
    }
    return;
  }
  case IndexExpr::Kind::Mul:
    operand(e.lhs(), kProduct);
    out += " * ";
    out += std::to_string(e.value());
    return;
  case IndexExpr::Kind::FloorDiv:
    operand(e.lhs(), kProduct);
    out += " floordiv ";
    out += std::to_string(e.value());
    return;
  case IndexExpr::Kind::Mod:
    operand(e.lhs(), kProduct);
    out += " mod ";
    out += std::to_string(e.value());
    return;
  }
}
} // namespace

std::string IndexExpr::str() const { return str({}); }

std::string IndexExpr::str(const std::vector<std::string> &dimNames) const {
  std::string out;
  print(*this, dimNames, out);
  return out;
}

namespace {
/// Recursive-descent parser for the grammar
///   sum     := product (('+' | '-') product)*
///   product := atom (('*' int) | ('floordiv' int) | ('mod' int))*
///   atom    := 'd' int | int | '-' int | '(' sum ')'
class ExprParser {
public:
  explicit ExprParser(const std::string &text) : s_(text) {}

  bool parse(IndexExpr &out, std::string &error, size_t &errorPos) {
    bool ok = parseSum(out, 0) &&
              (skipSpace(), pos_ == s_.size() || fail("unexpected text after expression"));
    if (!ok) {
      error = error_;
      errorPos = errorPos_;
    }
    return ok;
  }

private:
  static constexpr int kMaxDepth = 64;
  /// Long sums are walked in loops (sumTerms), but everything else recurses:
  /// with at most kMaxDepth parentheses, each holding products of at most
  /// kMaxProductOps operators, no walk of an accepted expression nears the
  /// end of the stack. kMaxNodes bounds its size (a 30,000-term sum is
  /// 60,000 nodes) to what every backend can compile: MLIR's parser walks
  /// an affine sum by recursion, and overflowed the 8 MiB stack of the
  /// emitted module's parse at 100,000 terms in every style (70,000 parse).
  static constexpr size_t kMaxNodes = size_t(1) << 16;
  static constexpr int kMaxProductOps = 64;

  /// Counts a node about to be made; false past kMaxNodes.
  bool node() {
    if (++nodes_ <= kMaxNodes)
      return true;
    return fail("index expression has more than " + std::to_string(kMaxNodes) +
                " terms and operators");
  }

  bool fail(const std::string &msg) {
    if (error_.empty()) {
      error_ = msg;
      errorPos_ = pos_;
    }
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool consumeWord(const char *w) {
    skipSpace();
    size_t n = std::char_traits<char>::length(w);
    if (s_.compare(pos_, n, w) != 0)
      return false;
    // A keyword must not run into an identifier character.
    if (pos_ + n < s_.size() && std::isalnum(static_cast<unsigned char>(s_[pos_ + n])))
      return false;
    pos_ += n;
    return true;
  }
  bool parseInt(int64_t &v, bool allowNegative) {
    skipSpace();
    bool neg = false;
    if (allowNegative && pos_ < s_.size() && s_[pos_] == '-') {
      neg = true;
      ++pos_;
      skipSpace();
    }
    if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_])))
      return fail("expected an integer");
    uint64_t acc = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      acc = acc * 10 + static_cast<uint64_t>(s_[pos_] - '0');
      if (acc > (1ull << 40))
        return fail("integer out of range");
      ++pos_;
    }
    v = neg ? -static_cast<int64_t>(acc) : static_cast<int64_t>(acc);
    return true;
  }
  bool parseSum(IndexExpr &out, int depth) {
    if (depth > kMaxDepth)
      return fail("expression nested too deeply");
    if (!parseProduct(out, depth))
      return false;
    for (;;) {
      skipSpace();
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        bool minus = s_[pos_] == '-';
        ++pos_;
        IndexExpr rhs;
        if (!parseProduct(rhs, depth) || !node() || (minus && !node()))
          return false;
        if (minus)
          rhs = rhs.kind() == IndexExpr::Kind::Const ? IndexExpr::constant(-rhs.value())
                                                     : IndexExpr::mul(rhs, -1);
        out = IndexExpr::add(out, rhs);
        continue;
      }
      return true;
    }
  }
  bool parseProduct(IndexExpr &out, int depth) {
    if (!parseAtom(out, depth))
      return false;
    for (int ops = 0;; ++ops) {
      skipSpace();
      int64_t c = 0;
      if (ops == kMaxProductOps && pos_ < s_.size() &&
          (s_[pos_] == '*' || s_.compare(pos_, 8, "floordiv") == 0 ||
           s_.compare(pos_, 3, "mod") == 0))
        return fail("more than " + std::to_string(kMaxProductOps) +
                    " operators in one product; use parentheses");
      if (pos_ < s_.size() && s_[pos_] == '*') {
        ++pos_;
        if (!parseInt(c, true) || !node())
          return false;
        out = IndexExpr::mul(out, c);
      } else if (consumeWord("floordiv")) {
        skipSpace();
        const size_t at = pos_;
        if (!parseInt(c, false))
          return false;
        if (c <= 0)
          return pos_ = at, fail("floordiv needs a positive constant");
        if (!node())
          return false;
        out = IndexExpr::floorDiv(out, c);
      } else if (consumeWord("mod")) {
        skipSpace();
        const size_t at = pos_;
        if (!parseInt(c, false))
          return false;
        if (c <= 0)
          return pos_ = at, fail("mod needs a positive constant");
        if (!node())
          return false;
        out = IndexExpr::mod(out, c);
      } else {
        return true;
      }
    }
  }
  bool parseAtom(IndexExpr &out, int depth) {
    skipSpace();
    if (!node())
      return false;
    if (pos_ >= s_.size())
      return fail("expected an index expression");
    char ch = s_[pos_];
    if (ch == '(') {
      ++pos_;
      if (!parseSum(out, depth + 1))
        return false;
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ')')
        return fail("expected ')'");
      ++pos_;
      return true;
    }
    if (ch == 'd') {
      ++pos_;
      int64_t p = 0;
      if (!parseInt(p, false))
        return false;
      if (p >= 64)
        return fail("dimension position out of range");
      out = IndexExpr::dim(static_cast<unsigned>(p));
      return true;
    }
    int64_t v = 0;
    if (!parseInt(v, true))
      return false;
    out = IndexExpr::constant(v);
    return true;
  }

  const std::string &s_;
  size_t pos_ = 0;
  size_t nodes_ = 0;
  std::string error_;
  size_t errorPos_ = 0;
};
} // namespace

bool parseIndexExpr(const std::string &text, IndexExpr &out, std::string &error, size_t &errorPos) {
  return ExprParser(text).parse(out, error, errorPos);
}

} // namespace npufuzz
