//===- reference/Elementwise.cpp - Elementwise op semantics ---------------===//
//
// Unary, binary, compare, row/col expand, select, masked_fill and cast.
// Each op picks its scalar function once and runs it in a tight templated
// loop, so there is no per-element dispatch beyond the inlined lambda.
//
//===----------------------------------------------------------------------===//

#include "reference/OpEval.h"

#include <cmath>

namespace npufuzz {
namespace ref {
namespace {

/// How the second operand of a binary op is indexed.
enum class Bcast { Same, Row, Col };

/// Iteration shape: `rows` rows of `cols` elements; `rowsPerBatch` is the
/// second-to-last dim (for ColExpand's per-batch column vector).
struct Geometry {
  int64_t rows = 1, cols = 0, rowsPerBatch = 1;
};

template <Bcast B> inline int64_t rhsIndex(const Geometry &g, int64_t r, int64_t c) {
  if constexpr (B == Bcast::Same)
    return r * g.cols + c;
  else if constexpr (B == Bcast::Row)
    return r;
  else
    return (r / g.rowsPerBatch) * g.cols + c;
}

template <Bcast B, class T, class U, class F>
void binaryLoop(const RefTensor &a, const RefTensor &b, const std::vector<T> &av,
                const std::vector<T> &bv, std::vector<U> &out, std::vector<uint8_t> &def,
                const Geometry &g, F f) {
  for (int64_t r = 0; r < g.rows; ++r) {
    const int64_t base = r * g.cols;
    for (int64_t c = 0; c < g.cols; ++c) {
      const int64_t k = base + c, bk = rhsIndex<B>(g, r, c);
      out[k] = f(av[k], bv[bk]);
      def[k] = a.defined[k] & b.defined[bk];
    }
  }
}

/// Runs `f` over the operand pair with the broadcast `mode`.
template <class T, class U, class F>
void binary(Bcast mode, const Geometry &g, const RefTensor &a, const RefTensor &b,
            const std::vector<T> &av, const std::vector<T> &bv, std::vector<U> &out,
            std::vector<uint8_t> &def, F f) {
  switch (mode) {
  case Bcast::Same: return binaryLoop<Bcast::Same>(a, b, av, bv, out, def, g, f);
  case Bcast::Row: return binaryLoop<Bcast::Row>(a, b, av, bv, out, def, g, f);
  case Bcast::Col: return binaryLoop<Bcast::Col>(a, b, av, bv, out, def, g, f);
  }
}

/// Floor division with x div 0 == 0; MIN div -1 wraps to MIN (an overflow,
/// as the negation it is).
inline int64_t floorDivInt(int64_t a, int64_t b, const SignedArith &arith) {
  if (b == 0)
    return 0;
  if (b == -1)
    return arith.neg(a);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

bool floatBinary(OpKind k, Bcast mode, const Geometry &g, const RefTensor &a, const RefTensor &b,
                 RefTensor &out) {
  const DType t = out.type.dtype;
  auto run = [&](auto f) {
    binary(mode, g, a, b, a.f, b.f, out.f, out.defined,
           [&](float x, float y) { return roundRNE(f(x, y), t); });
  };
  switch (k) {
  case OpKind::Add: run([](float x, float y) { return x + y; }); return true;
  case OpKind::Sub: run([](float x, float y) { return x - y; }); return true;
  case OpKind::Mul: run([](float x, float y) { return x * y; }); return true;
  case OpKind::Div: run([](float x, float y) { return x / y; }); return true;
  case OpKind::Max: run(maxNaN); return true;
  case OpKind::Min: run(minNaN); return true;
  case OpKind::And: // integer-like only
  case OpKind::Or:
  case OpKind::Xor:
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

bool intBinary(OpKind k, SignedOverflow overflow, Bcast mode, const Geometry &g, const RefTensor &a,
               const RefTensor &b, RefTensor &out) {
  const Wrapper w(out.type.dtype);
  const SignedArith arith(out.type.dtype, overflow);
  auto run = [&](auto f) { binary(mode, g, a, b, a.i, b.i, out.i, out.defined, f); };
  using U = uint64_t;
  switch (k) {
  case OpKind::Add: run([&](int64_t x, int64_t y) { return arith.add(x, y); }); return true;
  case OpKind::Sub: run([&](int64_t x, int64_t y) { return arith.sub(x, y); }); return true;
  case OpKind::Mul: run([&](int64_t x, int64_t y) { return arith.mul(x, y); }); return true;
  case OpKind::Div:
    run([&](int64_t x, int64_t y) { return floorDivInt(x, y, arith); });
    return true;
  case OpKind::Max: run([](int64_t x, int64_t y) { return x > y ? x : y; }); return true;
  case OpKind::Min: run([](int64_t x, int64_t y) { return x < y ? x : y; }); return true;
  case OpKind::And: run([&](int64_t x, int64_t y) { return w(U(x) & U(y)); }); return true;
  case OpKind::Or: run([&](int64_t x, int64_t y) { return w(U(x) | U(y)); }); return true;
  case OpKind::Xor: run([&](int64_t x, int64_t y) { return w(U(x) ^ U(y)); }); return true;
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

/// Compares: ordered (false on NaN) except ne, which is unordered.
bool compare(OpKind k, const RefTensor &a, const RefTensor &b, RefTensor &out) {
  Geometry g;
  g.cols = out.numElements();
  auto run = [&](auto f) {
    if (a.isFloat())
      binary(Bcast::Same, g, a, b, a.f, b.f, out.i, out.defined,
             [&](float x, float y) { return int64_t(f(x, y)); });
    else
      binary(Bcast::Same, g, a, b, a.i, b.i, out.i, out.defined,
             [&](int64_t x, int64_t y) { return int64_t(f(x, y)); });
  };
  switch (k) {
  case OpKind::CmpEq: run([](auto x, auto y) { return x == y; }); return true;
  case OpKind::CmpNe: run([](auto x, auto y) { return !(x == y); }); return true;
  case OpKind::CmpLt: run([](auto x, auto y) { return x < y; }); return true;
  case OpKind::CmpLe: run([](auto x, auto y) { return x <= y; }); return true;
  case OpKind::CmpGt: run([](auto x, auto y) { return x > y; }); return true;
  case OpKind::CmpGe: run([](auto x, auto y) { return x >= y; }); return true;
#define NPF_HANDLED_CATEGORY Compare
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

template <class T, class F>
void unaryLoop(const RefTensor &x, const std::vector<T> &xv, std::vector<T> &out,
               std::vector<uint8_t> &def, F f) {
  const int64_t n = x.numElements();
  for (int64_t k = 0; k < n; ++k) {
    out[k] = f(xv[k]);
    def[k] = x.defined[k];
  }
}

/// Transcendentals are computed in double and rounded once to f32.
inline float viaDouble(double v) { return static_cast<float>(v); }
inline double sigmoidD(double d) { return 1.0 / (1.0 + std::exp(-d)); }

bool floatUnary(const Op &op, const RefTensor &x, RefTensor &out) {
  const OpKind k = op.kind;
  const DType t = out.type.dtype;
  auto run = [&](auto f) {
    unaryLoop(x, x.f, out.f, out.defined, [&](float v) { return roundRNE(f(v), t); });
  };
  switch (k) {
  case OpKind::Neg: run([](float v) { return -v; }); return true;
  case OpKind::Abs: run([](float v) { return std::fabs(v); }); return true;
  case OpKind::Exp: run([](float v) { return viaDouble(std::exp(double(v))); }); return true;
  case OpKind::Log: run([](float v) { return viaDouble(std::log(double(v))); }); return true;
  case OpKind::Sqrt: run([](float v) { return viaDouble(std::sqrt(double(v))); }); return true;
  case OpKind::Rsqrt:
    run([](float v) { return viaDouble(1.0 / std::sqrt(double(v))); });
    return true;
  case OpKind::Tanh: run([](float v) { return viaDouble(std::tanh(double(v))); }); return true;
  case OpKind::Erf: run([](float v) { return viaDouble(std::erf(double(v))); }); return true;
  case OpKind::Sigmoid: run([](float v) { return viaDouble(sigmoidD(v)); }); return true;
  case OpKind::Silu: run([](float v) { return viaDouble(double(v) * sigmoidD(v)); }); return true;
  // relu(x) = x > 0 ? x : +0, and NaN stays NaN (so relu(-0) == +0).
  case OpKind::Relu:
    run([](float v) { return std::isnan(v) ? v : (v > 0.0f ? v : 0.0f); });
    return true;
  // An integral value of a float type is exact in that type.
  case OpKind::Round: {
    const RoundingMode m = op.attrs.rounding;
    run([m](float v) { return static_cast<float>(roundToIntegral(v, m)); });
    return true;
  }
  // The bounds are of the op's type: rounded to it first.
  case OpKind::Clamp: {
    const float lo = roundRNE(op.attrs.lo.f, t), hi = roundRNE(op.attrs.hi.f, t);
    run([lo, hi](float v) { return minNaN(maxNaN(v, lo), hi); });
    return true;
  }
  case OpKind::Not: // integer-like only
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

bool intUnary(const Op &op, SignedOverflow overflow, const RefTensor &x, RefTensor &out) {
  const OpKind k = op.kind;
  const Wrapper w(out.type.dtype);
  const SignedArith arith(out.type.dtype, overflow);
  using U = uint64_t;
  auto run = [&](auto f) { unaryLoop(x, x.i, out.i, out.defined, f); };
  switch (k) {
  case OpKind::Neg: run([&](int64_t v) { return arith.negation(v); }); return true;
  case OpKind::Abs: run([&](int64_t v) { return v < 0 ? arith.negation(v) : v; }); return true;
  case OpKind::Relu: run([](int64_t v) { return v > 0 ? v : int64_t(0); }); return true;
  case OpKind::Not: run([&](int64_t v) { return w(~U(v)); }); return true;
  case OpKind::Clamp: {
    const int64_t lo = op.attrs.lo.i, hi = op.attrs.hi.i; // they fit (type inference)
    run([lo, hi](int64_t v) { return std::min(std::max(v, lo), hi); });
    return true;
  }
  case OpKind::Exp: // float only
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::Sigmoid:
  case OpKind::Silu:
  case OpKind::Round:
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

/// select %cond, %a, %b: defined only when all three elements are defined
/// (the unchosen operand included), the conservative reading of "every
/// element it was computed from".
void select(const RefTensor &cond, const RefTensor &a, const RefTensor &b, RefTensor &out) {
  const int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k) {
    const bool ch = cond.i[k] != 0;
    if (out.isFloat())
      out.f[k] = ch ? a.f[k] : b.f[k];
    else
      out.i[k] = ch ? a.i[k] : b.i[k];
    out.defined[k] = cond.defined[k] & a.defined[k] & b.defined[k];
  }
}

void maskedFill(const RefTensor &x, const RefTensor &mask, const Scalar &value, RefTensor &out) {
  const int64_t n = out.numElements();
  const DType t = out.type.dtype;
  for (int64_t k = 0; k < n; ++k)
    out.defined[k] = x.defined[k] & mask.defined[k];
  if (out.isFloat()) {
    const float v = roundRNE(value.f, t);
    for (int64_t k = 0; k < n; ++k)
      out.f[k] = mask.i[k] ? v : x.f[k];
  } else {
    const int64_t v = wrapToWidth(value.i, t);
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = mask.i[k] ? v : x.i[k];
  }
}

void cast(const RefTensor &x, RoundingMode m, RefTensor &out) {
  const DType from = x.type.dtype, to = out.type.dtype;
  const int64_t n = out.numElements();
  out.defined = x.defined;
  if (to == DType::I1) { // anything -> i1 is x != 0 (NaN != 0, -0 == 0)
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = x.isFloat() ? (x.f[k] != 0.0f) : (x.i[k] != 0);
  } else if (isFloat(from) && isFloat(to)) {
    for (int64_t k = 0; k < n; ++k)
      out.f[k] = roundFloatTo(x.f[k], to, m);
  } else if (isFloat(to)) {
    for (int64_t k = 0; k < n; ++k)
      out.f[k] = intToFloat(x.i[k], to, m);
  } else if (isFloat(from)) {
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = floatToInt(x.f[k], to, m);
  } else {
    // i1 is stored as 0/1, so wrapping also gives i1 -> number as 0/1.
    const Wrapper w(to);
    for (int64_t k = 0; k < n; ++k)
      out.i[k] = w(uint64_t(x.i[k]));
  }
}

/// Checks that every operand has the result's element count (the expand
/// ops' second operand excepted).
bool sameCounts(OpEval &e, unsigned numFull) {
  for (unsigned k = 0; k < numFull; ++k)
    if (e.operand(k).numElements() != e.result().numElements())
      return e.fail("operand " + std::to_string(k) +
                    " has a different element count than the result");
  return true;
}

} // namespace

bool evalElementwise(OpEval &e) {
  const OpKind k = e.op.kind;
  RefTensor &out = e.result();
  const std::string name(opName(k));
  switch (opCategory(k)) {
  case OpCategory::Unary: {
    if (!sameCounts(e, 1))
      return false;
    const RefTensor &x = e.operand(0);
    if (x.isFloat() ? floatUnary(e.op, x, out) : intUnary(e.op, e.signedOverflow, x, out))
      return true;
    return e.fail(name + " is not defined on " + std::string(dtypeName(x.type.dtype)));
  }
  case OpCategory::Compare:
    if (!sameCounts(e, 2))
      return false;
    return compare(k, e.operand(0), e.operand(1), out);
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: {
    const RefTensor &a = e.operand(0), &b = e.operand(1);
    const std::vector<int64_t> &shape = out.type.shape;
    Geometry g;
    Bcast mode = Bcast::Same;
    OpKind base = k;
    if (opCategory(k) == OpCategory::Binary) {
      if (!sameCounts(e, 2))
        return false;
      g.cols = out.numElements();
    } else {
      if (shape.size() < 2 || !sameCounts(e, 1))
        return e.fail(name + " needs rank >= 2 operands of the result shape");
      g.cols = shape.back();
      g.rowsPerBatch = shape[shape.size() - 2];
      g.rows = product(shape, 0, shape.size() - 1);
      const bool row = opCategory(k) == OpCategory::RowExpand;
      mode = row ? Bcast::Row : Bcast::Col;
      const int64_t want = row ? g.rows : (g.rows / g.rowsPerBatch) * g.cols;
      if (b.numElements() != want)
        return e.fail(name + ": second operand has the wrong element count");
      base = expandBaseOp(k);
    }
    if (a.isFloat() ? floatBinary(base, mode, g, a, b, out)
                    : intBinary(base, e.signedOverflow, mode, g, a, b, out))
      return true;
    return e.fail(name + " is not defined on " + std::string(dtypeName(a.type.dtype)));
  }
  case OpCategory::Source:
  case OpCategory::View:
  case OpCategory::Other: break;
  }
  switch (k) {
  case OpKind::Select:
    if (!sameCounts(e, 3))
      return false;
    select(e.operand(0), e.operand(1), e.operand(2), out);
    return true;
  case OpKind::MaskedFill:
    if (!sameCounts(e, 2))
      return false;
    maskedFill(e.operand(0), e.operand(1), e.op.attrs.value, out);
    return true;
  case OpKind::Cast:
    if (!sameCounts(e, 1))
      return false;
    cast(e.operand(0), e.op.attrs.rounding, out);
    return true;
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
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
    return e.fail("not an elementwise op: " + name);
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace ref
} // namespace npufuzz
