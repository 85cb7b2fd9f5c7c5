//===- ir/IndexExpr.h - Integer index expressions ---------------*- C++ -*-===//
//
// The index algebra of index-map views: integer expressions over output
// indices d0..dN built from +, multiplication by a constant, constants,
// `floordiv c` and `mod c` with c > 0. This is the algebra of Inductor's
// FloorDiv/ModularIndexing and of MLIR affine maps. Division and modulo use
// floor semantics, so negative intermediate values are well defined.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_INDEXEXPR_H
#define NPUFUZZ_IR_INDEXEXPR_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace npufuzz {

/// Closed integer interval [lo, hi].
struct Interval {
  int64_t lo = 0;
  int64_t hi = 0;
  bool operator==(const Interval &o) const { return lo == o.lo && hi == o.hi; }
};

/// Floor division and floor modulo (`b` > 0): floorDiv(-1, 4) == -1,
/// floorMod(-1, 4) == 3.
int64_t floorDiv(int64_t a, int64_t b);
int64_t floorMod(int64_t a, int64_t b);

/// An immutable expression tree with value semantics (nodes are shared).
class IndexExpr {
public:
  enum class Kind : uint8_t { Dim, Const, Add, Mul, FloorDiv, Mod };

  static IndexExpr dim(unsigned position);
  static IndexExpr constant(int64_t value);
  static IndexExpr add(IndexExpr lhs, IndexExpr rhs);
  /// lhs * factor (factor may be negative or zero).
  static IndexExpr mul(IndexExpr lhs, int64_t factor);
  /// lhs floordiv divisor, divisor > 0.
  static IndexExpr floorDiv(IndexExpr lhs, int64_t divisor);
  /// lhs mod divisor, divisor > 0; the result is in [0, divisor).
  static IndexExpr mod(IndexExpr lhs, int64_t divisor);

  IndexExpr(); ///< The constant 0.
  ~IndexExpr();
  IndexExpr(const IndexExpr &) = default;
  IndexExpr(IndexExpr &&) = default;
  // Through a temporary, whose destructor releases a long chain in a loop.
  IndexExpr &operator=(const IndexExpr &o) {
    IndexExpr copy(o);
    node_.swap(copy.node_);
    return *this;
  }
  IndexExpr &operator=(IndexExpr &&o) noexcept {
    IndexExpr moved(std::move(o));
    node_.swap(moved.node_);
    return *this;
  }

  Kind kind() const;
  /// Dim: its position; Const: its value; Mul: the factor; FloorDiv/Mod: the
  /// divisor; Add: 0.
  int64_t value() const;
  /// First operand (Add, Mul, FloorDiv, Mod).
  const IndexExpr &lhs() const;
  /// Second operand (Add only).
  const IndexExpr &rhs() const;

  /// Evaluates with floor semantics.
  int64_t eval(const std::vector<int64_t> &dims) const;
  /// A sound over-approximation of the values taken when each dim i ranges
  /// over `dims[i]`. Exact for the forms the generator produces.
  Interval range(const std::vector<Interval> &dims) const;
  /// True when every subexpression stays within [-limit, limit] for dims in
  /// `dims`, so evaluation cannot overflow. The verifier requires it.
  bool boundedBy(const std::vector<Interval> &dims, int64_t limit) const;
  /// Highest dim position used plus one (0 if none).
  unsigned numDims() const;
  /// Number of nodes; the measure the shrinker reduces.
  size_t size() const;
  /// Counts of floordiv and mod nodes.
  unsigned countFloorDivMod() const;

  /// MLIR affine syntax: `d0 * 4 + d1`, `(d0 + 3) mod 16`, `d1 floordiv 8`.
  std::string str() const;
  /// The same with dim i printed as dimNames[i] (e.g. SSA names of loop IVs,
  /// for affine.load subscripts).
  std::string str(const std::vector<std::string> &dimNames) const;

  bool operator==(const IndexExpr &o) const;
  bool operator!=(const IndexExpr &o) const { return !(*this == o); }

private:
  struct Node;
  explicit IndexExpr(std::shared_ptr<const Node> n);
  std::shared_ptr<const Node> node_;
};

/// The terms of `e` read as a sum, left to right: a + b + c is
/// add(add(a, b), c), so the terms are found down the chain of left
/// operands (a right operand that is itself a sum is one term). An
/// expression that is no sum is its own single term. Sums from text can be
/// tens of thousands of terms long: code that walks an IndexExpr goes
/// through the terms in a loop rather than recursing down a sum.
std::vector<const IndexExpr *> sumTerms(const IndexExpr &e);

/// Parses one expression in the syntax of IndexExpr::str(): integers, `dN`,
/// `+`, `-` (as + x * -1), `*` by a constant, `floordiv c`, `mod c`, parens.
/// On error returns false and sets `error` and the offset `errorPos` within
/// `text`.
bool parseIndexExpr(const std::string &text, IndexExpr &out, std::string &error, size_t &errorPos);

} // namespace npufuzz

#endif // NPUFUZZ_IR_INDEXEXPR_H
