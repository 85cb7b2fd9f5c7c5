//===- backend/mlir/NpuStructured.cpp - Reductions, topk, matmul, gather --===//
//
// Ops whose elements depend on a whole axis of an operand. The result is
// blocked as usual, but the operand tiles span the whole axis (reductions,
// topk, gather's source) or the whole contraction dim (matmul), so each
// block's compute has everything it reads in the scratchpad. The compute is
// the scalar form of the affine style's, on tiles.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

namespace npufuzz {

namespace {
std::vector<std::string> withAxis(const std::vector<std::string> &outer, int64_t axis,
                                  const std::string &at) {
  std::vector<std::string> s = outer;
  s.insert(s.begin() + axis, at);
  return s;
}
std::vector<std::string> except(const std::vector<std::string> &v, int64_t axis) {
  std::vector<std::string> s = v;
  s.erase(s.begin() + axis);
  return s;
}
} // namespace

/// A plan over `res`'s shape whose first tile is `src` with dim `axis`
/// whole and every other dim following the result's.
static Plan axisPlan(const Case &c, ValueId src, ValueId res, int64_t axis) {
  const TensorType &st = c.typeOf(src), &rt = c.typeOf(res);
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rt.rank(), true);
  TileSpec s;
  s.dtype = st.dtype;
  for (size_t d = 0; d < st.rank(); ++d) {
    s.follows.push_back(static_cast<int64_t>(d) == axis ? -1 : static_cast<int>(d));
    s.whole.push_back(st.shape[d]);
  }
  p.tiles.push_back(s);
  return p;
}

void NpuEmitter::emitReduce(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const DType t = c_.typeOf(src).dtype;
  const int64_t axis = op.attrs.axis, n = c_.typeOf(src).shape[axis];
  alloc(res);
  Plan p = axisPlan(c_, src, res, axis);
  p.splittable[axis] = false;
  p.loads.push_back(rowMajor(0, src));
  p.loads.back().originCoeff[axis] = 0;
  p.tiles.push_back(resultTile(t, c_.typeOf(res).rank()));
  p.stores.push_back(rowMajor(1, res));
  p.compute = [this, &op, t, axis, n](const Block &b) {
    const ReduceRule rule = reduceRule(op.kind, t);
    const std::string &accTy = rule.accType, &init = rule.init, &combine = rule.combine;
    const std::vector<std::string> outer = openFor(except(b.extent, axis));
    const std::string k = fresh("k"), acc = fresh("acc"), result = fresh("red");
    line(result + " = scf.for " + k + " = " + indexConst(0) + " to " + indexConst(n) + " step " +
         indexConst(1) + " iter_args(" + acc + " = " + init + ") -> (" + accTy + ") {");
    indent_ += 2;
    const std::string x = widen(load(*b.tiles[0], withAxis(outer, axis, k)), t);
    const std::string next = fresh();
    line(next + " = " + combine + " " + acc + ", " + x + " : " + accTy);
    line("scf.yield " + next + " : " + accTy);
    closeFor(1);
    store(narrow(result, t), *b.tiles[1], withAxis(outer, axis, indexConst(0)));
    closeFor(outer.size());
  };
  emitPlan(p);
}

void NpuEmitter::emitArgMax(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const DType t = c_.typeOf(src).dtype;
  const int64_t axis = op.attrs.axis, n = c_.typeOf(src).shape[axis];
  alloc(res);
  Plan p = axisPlan(c_, src, res, axis);
  p.splittable[axis] = false;
  p.loads.push_back(rowMajor(0, src));
  p.loads.back().originCoeff[axis] = 0;
  p.tiles.push_back(resultTile(DType::I64, c_.typeOf(res).rank()));
  p.stores.push_back(rowMajor(1, res));
  p.compute = [this, t, axis, n](const Block &b) {
    const std::string ty = elemType(t);
    const std::vector<std::string> outer = openFor(except(b.extent, axis));
    const std::string first = load(*b.tiles[0], withAxis(outer, axis, indexConst(0)));
    const std::string k = fresh("k"), best = fresh("best"), bestIdx = fresh("bi"),
                      result = fresh("am");
    line(result + ":2 = scf.for " + k + " = " + indexConst(1) + " to " + indexConst(n) + " step " +
         indexConst(1) + " iter_args(" + best + " = " + first + ", " + bestIdx + " = " +
         indexConst(0) + ") -> (" + ty + ", index) {");
    indent_ += 2;
    const std::string x = load(*b.tiles[0], withAxis(outer, axis, k));
    const std::string wins = greater(t, x, best);
    const std::string nb = fresh(), ni = fresh();
    line(nb + " = arith.select " + wins + ", " + x + ", " + best + " : " + ty);
    line(ni + " = arith.select " + wins + ", " + k + ", " + bestIdx + " : index");
    line("scf.yield " + nb + ", " + ni + " : " + ty + ", index");
    closeFor(1);
    const std::string idx = fresh();
    line(idx + " = arith.index_cast " + result + "#1 : index to i64");
    store(idx, *b.tiles[1], withAxis(outer, axis, indexConst(0)));
    closeFor(outer.size());
  };
  emitPlan(p);
}

void NpuEmitter::emitTopK(const Op &op) {
  const ValueId src = op.operands[0], values = op.results[0], indices = op.results[1];
  const DType t = c_.typeOf(src).dtype;
  const int64_t axis = op.attrs.axis, n = c_.typeOf(src).shape[axis], kk = op.attrs.k;
  alloc(values);
  alloc(indices);
  Plan p = axisPlan(c_, src, values, axis);
  p.splittable[axis] = false;
  p.loads.push_back(rowMajor(0, src));
  p.loads.back().originCoeff[axis] = 0;
  p.tiles.push_back(resultTile(t, c_.typeOf(values).rank()));
  p.tiles.push_back(resultTile(DType::I64, c_.typeOf(values).rank()));
  p.stores.push_back(rowMajor(1, values));
  p.stores.push_back(rowMajor(2, indices));
  p.compute = [this, t, axis, n, kk](const Block &b) {
    const std::string ty = elemType(t);
    const std::string yes = intConst(1, DType::I1), no = intConst(0, DType::I1);
    // As the affine style: pass r picks the first element, in the order
    // (value descending, index ascending, NaN largest), that comes after
    // pass r-1's pick.
    const std::vector<std::string> outer = openFor(except(b.extent, axis));
    const std::string r = fresh("r"), prevV = fresh("pv"), prevI = fresh("pi"),
                      havePrev = fresh("hp"), passes = fresh("sel");
    line(passes + ":3 = scf.for " + r + " = " + indexConst(0) + " to " + indexConst(kk) + " step " +
         indexConst(1) + " iter_args(" + prevV + " = " + zeroOf(t) + ", " + prevI + " = " +
         indexConst(0) + ", " + havePrev + " = " + no + ") -> (" + ty + ", index, i1) {");
    indent_ += 2;
    const std::string j = fresh("j"), bv = fresh("bv"), bi = fresh("bi"), has = fresh("has"),
                      pick = fresh("pick");
    line(pick + ":3 = scf.for " + j + " = " + indexConst(0) + " to " + indexConst(n) + " step " +
         indexConst(1) + " iter_args(" + bv + " = " + zeroOf(t) + ", " + bi + " = " +
         indexConst(0) + ", " + has + " = " + no + ") -> (" + ty + ", index, i1) {");
    indent_ += 2;
    const std::string x = load(*b.tiles[0], withAxis(outer, axis, j));
    const TopKBest next = topkStep(t, x, j, {prevV, prevI, havePrev}, {bv, bi, has});
    line("scf.yield " + next.value + ", " + next.index + ", " + next.has + " : " + ty +
         ", index, i1");
    closeFor(1);
    store(pick + "#0", *b.tiles[1], withAxis(outer, axis, r));
    const std::string idx = fresh();
    line(idx + " = arith.index_cast " + pick + "#1 : index to i64");
    store(idx, *b.tiles[2], withAxis(outer, axis, r));
    line("scf.yield " + pick + "#0, " + pick + "#1, " + yes + " : " + ty + ", index, i1");
    closeFor(1);
    closeFor(outer.size());
  };
  emitPlan(p);
}

void NpuEmitter::emitMatmul(const Op &op) {
  const ValueId a = op.operands[0], bv = op.operands[1], res = op.results[0];
  const TensorType &at = c_.typeOf(a), &bt = c_.typeOf(bv), &rt = c_.typeOf(res);
  const DType in = at.dtype, acc = rt.dtype;
  const size_t rank = at.rank();
  const int64_t kDim = at.shape[rank - 1];
  alloc(res);
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rank, true);
  // a's tile is [.., m-block, K], b's is [.., K, n-block].
  TileSpec sa, sb;
  sa.dtype = sb.dtype = in;
  for (size_t d = 0; d < rank; ++d) {
    sa.follows.push_back(d == rank - 1 ? -1 : static_cast<int>(d));
    sb.follows.push_back(d == rank - 2 ? -1 : static_cast<int>(d));
    sa.whole.push_back(at.shape[d]);
    sb.whole.push_back(bt.shape[d]);
  }
  p.tiles = {sa, sb, resultTile(acc, rank)};
  Access la = rowMajor(0, a), lb = rowMajor(1, bv);
  la.originCoeff[rank - 1] = 0; // the n block does not move a
  lb.originCoeff[rank - 2] = 0; // the m block does not move b
  p.loads = {la, lb};
  p.stores.push_back(rowMajor(2, res));
  p.compute = [this, in, acc, rank, kDim](const Block &b) {
    const std::string accTy = elemType(acc);
    const std::vector<std::string> ivs = openFor(b.extent);
    const std::string k = fresh("k"), sum = fresh("acc"), result = fresh("mm");
    line(result + " = scf.for " + k + " = " + indexConst(0) + " to " + indexConst(kDim) + " step " +
         indexConst(1) + " iter_args(" + sum + " = " + zeroOf(acc) + ") -> (" + accTy + ") {");
    indent_ += 2;
    std::vector<std::string> aSub = ivs, bSub = ivs;
    aSub[rank - 1] = k;
    bSub[rank - 2] = k;
    const std::string xa = load(*b.tiles[0], aSub);
    const std::string xb = load(*b.tiles[1], bSub);
    const std::string next = multiplyAccumulate(sum, xa, xb, in, acc);
    line("scf.yield " + next + " : " + accTy);
    closeFor(1);
    store(result, *b.tiles[2], ivs);
    closeFor(ivs.size());
  };
  emitPlan(p);
}

void NpuEmitter::emitGather(const Op &op) {
  const ValueId src = op.operands[0], idx = op.operands[1], res = op.results[0];
  const DType idxTy = c_.typeOf(idx).dtype;
  const int64_t axis = op.attrs.axis;
  alloc(res);
  Plan p = axisPlan(c_, src, res, axis);
  p.loads.push_back(rowMajor(0, src));
  p.loads.back().originCoeff[axis] = 0;
  p.tiles.push_back(resultTile(idxTy, c_.typeOf(res).rank()));
  p.loads.push_back(rowMajor(1, idx));
  p.tiles.push_back(resultTile(c_.typeOf(res).dtype, c_.typeOf(res).rank()));
  p.stores.push_back(rowMajor(2, res));
  p.compute = [this, idxTy, axis](const Block &b) {
    const std::vector<std::string> ivs = openFor(b.extent);
    std::string i = load(*b.tiles[1], ivs);
    if (idxTy != DType::Index) {
      const std::string cast = fresh();
      line(cast + " = arith.index_cast " + i + " : " + elemType(idxTy) + " to index");
      i = cast;
    }
    // The source tile spans the whole axis, so the index is tile-local.
    std::vector<std::string> sub = ivs;
    sub[axis] = i;
    store(load(*b.tiles[0], sub), *b.tiles[2], ivs);
    closeFor(ivs.size());
  };
  emitPlan(p);
}

} // namespace npufuzz
