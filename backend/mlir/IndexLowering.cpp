//===- backend/mlir/IndexLowering.cpp - Index arithmetic in the plan's forms ===//
//
// Floor/mod index expressions and valid-region compares, as the lowering
// plan's IndexForm and BoundsForm say. Every form computes the floor
// semantics of IndexExpr exactly: divisors are positive constants, so only
// the sign of the dividend needs care.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/EmitterBase.h"

#include "ir/IndexExpr.h"

namespace npufuzz {

namespace {
/// The type index arithmetic is done in under `form`.
DType indexArithType(IndexForm form) {
  switch (form) {
  case IndexForm::AffineMap:
  case IndexForm::FloorDiv:
  case IndexForm::CeilDiv:
  case IndexForm::DivSelect: return DType::Index;
  case IndexForm::I64: return DType::I64;
  }
  return DType::Index;
}
} // namespace

std::string EmitterBase::indexOf(const IndexExpr &e, const std::vector<std::string> &dims) {
  if (plan.index == IndexForm::AffineMap) {
    const std::string r = fresh("ix");
    line(r + " = affine.apply affine_map<(" +
         EmitterBase::dims(static_cast<unsigned>(dims.size())) + ") -> (" + e.str() + ")>(" +
         joined(dims) + ")");
    return r;
  }
  const DType t = indexArithType(plan.index);
  std::vector<std::string> typed = dims;
  if (t != DType::Index)
    for (std::string &d : typed)
      d = indexCast(d, DType::Index, t);
  const std::string r = indexArith(e, typed, t);
  return t == DType::Index ? r : indexCast(r, t, DType::Index);
}

std::string EmitterBase::indexCast(const std::string &x, DType from, DType to) {
  const std::string r = fresh("ic");
  line(r + " = arith.index_cast " + x + " : " + elemType(from) + " to " + elemType(to));
  return r;
}

std::string EmitterBase::indexArith(const IndexExpr &e, const std::vector<std::string> &dims,
                                    DType t) {
  const std::string ty = elemType(t);
  auto konst = [&](int64_t v) { return t == DType::Index ? indexConst(v) : intConst(v, t); };
  auto op = [&](const char *name, const std::string &a, const std::string &b) {
    const std::string r = fresh("ix");
    line(r + " = " + name + " " + a + ", " + b + " : " + ty);
    return r;
  };
  // `negative ? adjusted : otherwise` on the sign of remainder `rem`.
  auto ifNegative = [&](const std::string &rem, const std::string &adjusted,
                        const std::string &otherwise) {
    const std::string zero = konst(0);
    const std::string neg = fresh("ix");
    line(neg + " = arith.cmpi slt, " + rem + ", " + zero + " : " + ty);
    const std::string r = fresh("ix");
    line(r + " = arith.select " + neg + ", " + adjusted + ", " + otherwise + " : " + ty);
    return r;
  };
  // floor(a / c) and a - c * floor(a / c) for a divisor c > 0.
  auto floorDivBy = [&](const std::string &a, int64_t c) -> std::string {
    switch (plan.index) {
    case IndexForm::AffineMap:
    case IndexForm::FloorDiv:
    case IndexForm::I64: return op("arith.floordivsi", a, konst(c));
    case IndexForm::CeilDiv: {
      // floor(a / c) == -ceil(-a / c).
      // Operands are named before the ops that use them: argument
      // evaluation order is unspecified, and the text must not depend on it.
      const std::string zero = konst(0), divisor = konst(c);
      const std::string negated = op("arith.subi", zero, a);
      const std::string q = op("arith.ceildivsi", negated, divisor);
      return op("arith.subi", zero, q);
    }
    case IndexForm::DivSelect: {
      // divsi truncates: one less when the remainder is negative (c > 0).
      const std::string one = konst(1), divisor = konst(c);
      const std::string q = op("arith.divsi", a, divisor);
      const std::string rem = op("arith.remsi", a, divisor);
      const std::string less = op("arith.subi", q, one);
      return ifNegative(rem, less, q);
    }
    }
    return a;
  };
  auto modBy = [&](const std::string &a, int64_t c) -> std::string {
    switch (plan.index) {
    case IndexForm::CeilDiv: {
      const std::string divisor = konst(c);
      const std::string q = floorDivBy(a, c);
      const std::string m = op("arith.muli", q, divisor);
      return op("arith.subi", a, m);
    }
    case IndexForm::AffineMap:
    case IndexForm::FloorDiv:
    case IndexForm::DivSelect:
    case IndexForm::I64: {
      // remsi takes the dividend's sign: add c back to a negative remainder.
      const std::string divisor = konst(c);
      const std::string rem = op("arith.remsi", a, divisor);
      const std::string up = op("arith.addi", rem, divisor);
      return ifNegative(rem, up, rem);
    }
    }
    return a;
  };
  // Sums go through their terms in a loop (IndexExpr::sumTerms): a sum read
  // from text may be too long to recurse down.
  std::string sum;
  for (const IndexExpr *term : sumTerms(e)) {
    std::string v;
    switch (term->kind()) {
    case IndexExpr::Kind::Dim: v = dims.at(term->value()); break;
    case IndexExpr::Kind::Const: v = konst(term->value()); break;
    case IndexExpr::Kind::Add: v = indexArith(*term, dims, t); break; // a nested sum
    case IndexExpr::Kind::Mul: {
      const std::string factor = konst(term->value());
      const std::string x = indexArith(term->lhs(), dims, t);
      v = op("arith.muli", x, factor);
      break;
    }
    case IndexExpr::Kind::FloorDiv: {
      const std::string x = indexArith(term->lhs(), dims, t);
      v = floorDivBy(x, term->value());
      break;
    }
    case IndexExpr::Kind::Mod: {
      const std::string x = indexArith(term->lhs(), dims, t);
      v = modBy(x, term->value());
      break;
    }
    }
    sum = sum.empty() ? v : op("arith.addi", sum, v);
  }
  return sum;
}

std::string EmitterBase::below(const std::string &i, const std::string &bound) {
  const std::string r = fresh("lt");
  switch (plan.bounds) {
  case BoundsForm::Index: {
    const std::string bv = indexValue(bound);
    line(r + " = arith.cmpi slt, " + i + ", " + bv + " : index");
    return r;
  }
  case BoundsForm::I64: {
    const std::string bv = indexValue(bound);
    const std::string a = indexCast(i, DType::Index, DType::I64);
    const std::string b = indexCast(bv, DType::Index, DType::I64);
    line(r + " = arith.cmpi slt, " + a + ", " + b + " : i64");
    return r;
  }
  }
  return r;
}

} // namespace npufuzz
