//===- backend/mlir/AffineStructured.cpp - Affine reductions, topk, matmul, gather ===//
//
// Ops whose elements depend on many operand elements. Reductions and matmul
// are affine loops with iter_args accumulators; topk is a k-pass selection
// carried in iter_args; gather loads through a data-dependent index.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/AffineLowering.h"

namespace npufuzz {

namespace {
/// The dims of `shape` other than `axis`, as loop bounds.
std::vector<std::string> boundsExcept(const std::vector<int64_t> &shape, int64_t axis) {
  std::vector<std::string> b;
  for (size_t i = 0; i < shape.size(); ++i)
    if (static_cast<int64_t>(i) != axis)
      b.push_back(std::to_string(shape[i]));
  return b;
}
/// Subscripts for a full-rank access: the outer IVs with `at` inserted at
/// position `axis`.
std::vector<std::string> withAxis(const std::vector<std::string> &outer, int64_t axis,
                                  const std::string &at) {
  std::vector<std::string> s = outer;
  s.insert(s.begin() + axis, at);
  return s;
}
} // namespace

void AffineEmitter::emitReduce(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis;
  alloc(res);
  const ReduceRule rule = reduceRule(op.kind, t);
  const std::string &accTy = rule.accType, &init = rule.init, &combine = rule.combine;
  const std::vector<std::string> outer = openLoops(boundsExcept(st.shape, axis));
  const std::string k = fresh("k"), acc = fresh("acc"), result = fresh("red");
  line(result + " = affine.for " + k + " = 0 to " + std::to_string(st.shape[axis]) + " iter_args(" +
       acc + " = " + init + ") -> (" + accTy + ") {");
  indent_ += 2;
  const std::string x = widen(load(src, withAxis(outer, axis, k)), t);
  const std::string next = fresh();
  line(next + " = " + combine + " " + acc + ", " + x + " : " + accTy);
  line("affine.yield " + next + " : " + accTy);
  indent_ -= 2;
  line("}");
  store(narrow(result, t), res, withAxis(outer, axis, "0"));
  closeLoops(outer.size());
}

void AffineEmitter::emitArgMax(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis;
  const std::string ty = elemType(t);
  alloc(res);
  const std::vector<std::string> outer = openLoops(boundsExcept(st.shape, axis));
  const std::string first = load(src, withAxis(outer, axis, "0"));
  const std::string k = fresh("k"), best = fresh("best"), bestIdx = fresh("bi"),
                    result = fresh("am");
  line(result + ":2 = affine.for " + k + " = 1 to " + std::to_string(st.shape[axis]) +
       " iter_args(" + best + " = " + first + ", " + bestIdx + " = " + indexConst(0) + ") -> (" +
       ty + ", index) {");
  indent_ += 2;
  const std::string x = load(src, withAxis(outer, axis, k));
  const std::string wins = greater(t, x, best);
  const std::string nb = fresh(), ni = fresh();
  line(nb + " = arith.select " + wins + ", " + x + ", " + best + " : " + ty);
  line(ni + " = arith.select " + wins + ", " + k + ", " + bestIdx + " : index");
  line("affine.yield " + nb + ", " + ni + " : " + ty + ", index");
  indent_ -= 2;
  line("}");
  const std::string idx = fresh();
  line(idx + " = arith.index_cast " + result + "#1 : index to i64");
  store(idx, res, withAxis(outer, axis, "0"));
  closeLoops(outer.size());
}

void AffineEmitter::emitTopK(const Op &op) {
  const ValueId src = op.operands[0], values = op.results[0], indices = op.results[1];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const std::string ty = elemType(t);
  const int64_t axis = op.attrs.axis, n = st.shape[axis];
  alloc(values);
  alloc(indices);
  const std::string yes = intConst(1, DType::I1), no = intConst(0, DType::I1);
  // Elements are totally ordered by (value descending, index ascending),
  // with NaN largest and ties where neither value is greater. Pass r picks
  // the first element that comes after pass r-1's pick: no scratch memory,
  // only loop-carried values, so every access stays affine.
  const std::vector<std::string> outer = openLoops(boundsExcept(st.shape, axis));
  const std::string r = fresh("r"), prevV = fresh("pv"), prevI = fresh("pi"),
                    havePrev = fresh("hp"), passes = fresh("sel");
  line(passes + ":3 = affine.for " + r + " = 0 to " + std::to_string(op.attrs.k) + " iter_args(" +
       prevV + " = " + zeroOf(t) + ", " + prevI + " = " + indexConst(0) + ", " + havePrev + " = " +
       no + ") -> (" + ty + ", index, i1) {");
  indent_ += 2;
  const std::string j = fresh("j"), bv = fresh("bv"), bi = fresh("bi"), has = fresh("has"),
                    pick = fresh("pick");
  line(pick + ":3 = affine.for " + j + " = 0 to " + std::to_string(n) + " iter_args(" + bv + " = " +
       zeroOf(t) + ", " + bi + " = " + indexConst(0) + ", " + has + " = " + no + ") -> (" + ty +
       ", index, i1) {");
  indent_ += 2;
  const std::string x = load(src, withAxis(outer, axis, j));
  const TopKBest next = topkStep(t, x, j, {prevV, prevI, havePrev}, {bv, bi, has});
  line("affine.yield " + next.value + ", " + next.index + ", " + next.has + " : " + ty +
       ", index, i1");
  indent_ -= 2;
  line("}");
  store(pick + "#0", values, withAxis(outer, axis, r));
  const std::string idx = fresh();
  line(idx + " = arith.index_cast " + pick + "#1 : index to i64");
  store(idx, indices, withAxis(outer, axis, r));
  line("affine.yield " + pick + "#0, " + pick + "#1, " + yes + " : " + ty + ", index, i1");
  indent_ -= 2;
  line("}");
  closeLoops(outer.size());
}

void AffineEmitter::emitMatmul(const Op &op) {
  const ValueId a = op.operands[0], b = op.operands[1], res = op.results[0];
  const TensorType &at = c_.typeOf(a), &rt = c_.typeOf(res);
  const DType in = at.dtype, acc = rt.dtype;
  const std::string accTy = elemType(acc);
  const unsigned rank = at.rank();
  const int64_t kDim = at.shape[rank - 1];
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  const std::string k = fresh("k"), sum = fresh("acc"), result = fresh("mm");
  line(result + " = affine.for " + k + " = 0 to " + std::to_string(kDim) + " iter_args(" + sum +
       " = " + zeroOf(acc) + ") -> (" + accTy + ") {");
  indent_ += 2;
  std::vector<std::string> aSub = ivs, bSub = ivs;
  aSub[rank - 1] = k; // a[.., i, k]
  bSub[rank - 2] = k; // b[.., k, j]
  std::string xa = load(a, aSub), xb = load(b, bSub);
  std::string prod = fresh(), next = fresh();
  if (isFloat(acc)) {
    xa = widen(xa, in);
    xb = widen(xb, in);
    line(prod + " = arith.mulf " + xa + ", " + xb + " : f32");
    line(next + " = arith.addf " + sum + ", " + prod + " : f32");
  } else {
    if (in != acc) {
      const std::string ea = fresh(), eb = fresh();
      line(ea + " = arith.extsi " + xa + " : " + elemType(in) + " to " + accTy);
      line(eb + " = arith.extsi " + xb + " : " + elemType(in) + " to " + accTy);
      xa = ea;
      xb = eb;
    }
    line(prod + " = arith.muli " + xa + ", " + xb + " : " + accTy);
    line(next + " = arith.addi " + sum + ", " + prod + " : " + accTy);
  }
  line("affine.yield " + next + " : " + accTy);
  indent_ -= 2;
  line("}");
  store(result, res, ivs);
  closeLoops(ivs.size());
}

void AffineEmitter::emitGather(const Op &op) {
  const ValueId src = op.operands[0], idx = op.operands[1], res = op.results[0];
  const DType idxTy = c_.typeOf(idx).dtype;
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  std::string i = load(idx, ivs);
  if (idxTy != DType::Index) {
    const std::string cast = fresh();
    line(cast + " = arith.index_cast " + i + " : " + elemType(idxTy) + " to index");
    i = cast;
  }
  std::vector<std::string> sub = ivs;
  sub[op.attrs.axis] = i;
  const Buffer &sb = buf(src);
  const std::string x = fresh();
  line(x + " = memref.load " + sb.memref + "[" + joined(sub) + "] : " + sb.type);
  store(x, res, ivs);
  closeLoops(ivs.size());
}

} // namespace npufuzz
