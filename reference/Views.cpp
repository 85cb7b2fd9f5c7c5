//===- reference/Views.cpp - View ops as materialized copies --------------===//
//
// Every view's result element (and its definedness) is the source element at
// the index given by viewIndexMap: one IndexExpr per source dim over the
// result dims. Reshape is a plain row-major copy. Maps that are affine (every
// slice, chunk, transpose, broadcast, squeeze, unsqueeze and affine
// index_map) become one xtensor strided view, so no per-element expression
// evaluation happens; maps with floordiv/mod run a flat postfix program per
// element instead of walking the expression tree.
//
//===----------------------------------------------------------------------===//

#include "ir/Verifier.h"
#include "reference/OpEval.h"

#include <algorithm>

#include <xtensor/xadapt.hpp>
#include <xtensor/xstrided_view.hpp>

namespace npufuzz {
namespace ref {
namespace {

/// c + sum_j coef[j] * d_j.
struct Affine {
  std::vector<int64_t> coef;
  int64_t c = 0;
};

/// Writes the affine form of `e` over `rank` dims; false when `e` has a
/// floordiv/mod of a non-constant.
bool toAffine(const IndexExpr &e, unsigned rank, Affine &out) {
  out.coef.assign(rank, 0);
  out.c = 0;
  switch (e.kind()) {
  case IndexExpr::Kind::Dim: out.coef[size_t(e.value())] = 1; return true;
  case IndexExpr::Kind::Const: out.c = e.value(); return true;
  case IndexExpr::Kind::Add: {
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    if (!toAffine(*terms[0], rank, out))
      return false;
    for (size_t i = 1; i < terms.size(); ++i) {
      Affine r;
      if (!toAffine(*terms[i], rank, r))
        return false;
      for (unsigned j = 0; j < rank; ++j)
        out.coef[j] += r.coef[j];
      out.c += r.c;
    }
    return true;
  }
  case IndexExpr::Kind::Mul:
    if (!toAffine(e.lhs(), rank, out))
      return false;
    for (int64_t &k : out.coef)
      k *= e.value();
    out.c *= e.value();
    return true;
  case IndexExpr::Kind::FloorDiv:
  case IndexExpr::Kind::Mod:
    if (!toAffine(e.lhs(), rank, out))
      return false;
    for (int64_t k : out.coef)
      if (k != 0)
        return false;
    out.c =
        e.kind() == IndexExpr::Kind::Mod ? floorMod(out.c, e.value()) : floorDiv(out.c, e.value());
    return true;
  }
  return false;
}

template <class T>
void stridedCopy(const std::vector<T> &src, std::vector<T> &dst, const std::vector<size_t> &shape,
                 std::vector<ptrdiff_t> strides, size_t offset) {
  auto s = xt::adapt(src.data(), src.size(), xt::no_ownership(), std::vector<size_t>{src.size()});
  auto d = xt::adapt(dst.data(), dst.size(), xt::no_ownership(), shape);
  d = xt::strided_view(s, shape, std::move(strides), offset, xt::layout_type::dynamic);
}

/// Copies through an affine map; the caller checked every access in bounds.
void affineCopy(const std::vector<Affine> &map, const RefTensor &src, RefTensor &out) {
  const std::vector<int64_t> srcStrides = src.strides();
  const unsigned rank = out.type.rank();
  std::vector<ptrdiff_t> strides(rank, 0);
  int64_t offset = 0;
  for (size_t i = 0; i < map.size(); ++i) {
    offset += map[i].c * srcStrides[i];
    for (unsigned j = 0; j < rank; ++j)
      strides[j] += map[i].coef[j] * srcStrides[i];
  }
  const std::vector<size_t> shape(out.type.shape.begin(), out.type.shape.end());
  if (src.isFloat())
    stridedCopy(src.f, out.f, shape, strides, size_t(offset));
  else
    stridedCopy(src.i, out.i, shape, strides, size_t(offset));
  stridedCopy(src.defined, out.defined, shape, std::move(strides), size_t(offset));
}

/// A postfix program for one IndexExpr.
struct Instr {
  IndexExpr::Kind kind;
  int64_t arg;
};

void compile(const IndexExpr &e, std::vector<Instr> &code) {
  switch (e.kind()) {
  case IndexExpr::Kind::Dim:
  case IndexExpr::Kind::Const: break;
  case IndexExpr::Kind::Add: {
    // Postfix for a left-deep sum: t0 t1 + t2 + ...
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    compile(*terms[0], code);
    for (size_t i = 1; i < terms.size(); ++i) {
      compile(*terms[i], code);
      code.push_back({IndexExpr::Kind::Add, 0});
    }
    return;
  }
  default: compile(e.lhs(), code); break;
  }
  code.push_back({e.kind(), e.value()});
}

/// Runs a program; `stack` has room for every instruction.
inline int64_t run(const std::vector<Instr> &code, const int64_t *dims, int64_t *stack) {
  int64_t sp = 0;
  for (const Instr &in : code) {
    switch (in.kind) {
    case IndexExpr::Kind::Dim: stack[sp++] = dims[in.arg]; break;
    case IndexExpr::Kind::Const: stack[sp++] = in.arg; break;
    case IndexExpr::Kind::Add:
      --sp;
      stack[sp - 1] += stack[sp];
      break;
    case IndexExpr::Kind::Mul: stack[sp - 1] *= in.arg; break;
    case IndexExpr::Kind::FloorDiv: stack[sp - 1] = floorDiv(stack[sp - 1], in.arg); break;
    case IndexExpr::Kind::Mod: stack[sp - 1] = floorMod(stack[sp - 1], in.arg); break;
    }
  }
  return stack[0];
}

/// Evaluates a general map element by element.
bool programCopy(OpEval &e, const std::vector<IndexExpr> &map, const RefTensor &src,
                 RefTensor &out) {
  std::vector<std::vector<Instr>> code(map.size());
  size_t longest = 1;
  for (size_t i = 0; i < map.size(); ++i) {
    compile(map[i], code[i]);
    longest = std::max(longest, code[i].size());
  }
  std::vector<int64_t> stack(longest);
  const std::vector<int64_t> srcStrides = src.strides();
  const std::vector<int64_t> &shape = out.type.shape;
  const std::vector<int64_t> &srcShape = src.type.shape;
  std::vector<int64_t> idx(shape.size(), 0);
  const int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t from = 0;
    for (size_t i = 0; i < code.size(); ++i) {
      const int64_t v = run(code[i], idx.data(), stack.data());
      if (v < 0 || v >= srcShape[i])
        return e.fail("view index " + std::to_string(v) + " of source dim " + std::to_string(i) +
                      " out of bounds at element " + std::to_string(k));
      from += v * srcStrides[i];
    }
    if (out.isFloat())
      out.f[k] = src.f[from];
    else
      out.i[k] = src.i[from];
    out.defined[k] = src.defined[from];
    for (size_t d = shape.size(); d-- > 0;) { // row-major odometer
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return true;
}

} // namespace

bool evalView(OpEval &e) {
  const RefTensor &src = e.operand(0);
  RefTensor &out = e.result();
  if (src.type.dtype != out.type.dtype)
    return e.fail("view changes the element type");
  if (e.op.kind == OpKind::Reshape) {
    if (src.numElements() != out.numElements())
      return e.fail("reshape changes the element count");
    out.f = src.f;
    out.i = src.i;
    out.defined = src.defined;
    return true;
  }
  const std::vector<IndexExpr> map = viewIndexMap(e.c, e.op);
  const unsigned rank = out.type.rank();
  if (map.size() != src.type.rank())
    return e.fail("view map has the wrong number of source dims");
  for (const IndexExpr &m : map)
    if (m.numDims() > rank)
      return e.fail("view map uses a dim beyond the result rank");
  if (out.numElements() == 0)
    return true;
  std::vector<Affine> affine(map.size());
  for (size_t i = 0; i < map.size(); ++i)
    if (!toAffine(map[i], rank, affine[i]))
      return programCopy(e, map, src, out);
  // The extremes of an affine form lie at the corners of the result box.
  for (size_t i = 0; i < map.size(); ++i) {
    int64_t lo = affine[i].c, hi = affine[i].c;
    for (unsigned j = 0; j < rank; ++j) {
      const int64_t span = affine[i].coef[j] * (out.type.shape[j] - 1);
      (span < 0 ? lo : hi) += span;
    }
    if (lo < 0 || hi >= src.type.shape[i])
      return e.fail("view of source dim " + std::to_string(i) + " reaches [" + std::to_string(lo) +
                    ", " + std::to_string(hi) + "], out of bounds");
  }
  affineCopy(affine, src, out);
  return true;
}

} // namespace ref
} // namespace npufuzz
