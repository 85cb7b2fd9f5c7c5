//===- backend/mlir/TensorStructured.cpp - Reductions, topk, matmul, gather ===//
//
// Ops whose elements depend on many operand elements, on tensors.
// Reductions and argmax are linalg.generic ops with a reduction iterator
// (linalg's loop order keeps float sums left to right); matmul is the named
// linalg.matmul/batch_matmul; topk is a k-pass selection in scf.for loops
// carrying the result tensors; gather extracts through a loaded index.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/TensorLowering.h"

namespace npufuzz {

namespace {
/// Indexing-map results of a reduction's output: the loop dims with the
/// reduced axis pinned to 0.
std::string reducedResults(unsigned rank, int64_t axis) {
  std::vector<std::string> r;
  for (unsigned i = 0; i < rank; ++i)
    r.push_back(static_cast<int64_t>(i) == axis ? "0" : "d" + std::to_string(i));
  return EmitterBase::joined(r);
}
std::vector<std::string> reductionIterators(unsigned rank, int64_t axis) {
  std::vector<std::string> it(rank, "parallel");
  it[axis] = "reduction";
  return it;
}
/// `t` with dim `axis` resized to `size` and element type `d`.
TensorType resized(const TensorType &t, int64_t axis, int64_t size, DType d) {
  TensorType r;
  r.dtype = d;
  r.shape = t.shape;
  r.shape[axis] = size;
  return r;
}
} // namespace

void TensorEmitter::emitReduce(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src), &rt = c_.typeOf(res);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis;
  const bool f = isFloat(t);
  const ReduceRule rule = reduceRule(op.kind, t);
  const std::string &accTy = rule.accType, &init = rule.init, &combine = rule.combine;
  // Floats accumulate in f32 and round once to the element type.
  const TensorType accT = resized(st, axis, 1, f ? DType::F32 : t);
  const std::vector<GenericOperand> outs = {
      operand(fill(init, accT), accT, reducedResults(st.rank(), axis))};
  const std::string acc = fresh("red");
  const std::vector<std::string> args =
      openGeneric(acc, {operand(src, dims(st.rank()))}, outs, reductionIterators(st.rank(), axis));
  const std::string next = fresh();
  line(next + " = " + combine + " " + args[1] + ", " + widen(args[0], t) + " : " + accTy);
  closeGeneric({next}, outs);
  if (accT.dtype == t)
    return bind(res, acc);
  const std::string all = dims(rt.rank());
  const std::vector<GenericOperand> narrowOuts = {operand(empty(rt), rt, all)};
  const std::string r = fresh("rnd");
  const std::vector<std::string> nargs = openGeneric(
      r, {operand(acc, accT, all)}, narrowOuts, std::vector<std::string>(rt.rank(), "parallel"));
  closeGeneric({narrow(nargs[0], t)}, narrowOuts);
  bind(res, r);
}

void TensorEmitter::emitArgMax(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis;
  // Starting from the lowest value at index 0 picks the same element as
  // starting from element 0: only a strictly greater element (or the first
  // NaN) moves the pick.
  const TensorType bestT = resized(st, axis, 1, t), idxT = resized(st, axis, 1, DType::I64);
  const std::string outResults = reducedResults(st.rank(), axis);
  const std::vector<GenericOperand> outs = {
      operand(fill(lowestOf(t), bestT), bestT, outResults),
      operand(fill(intConst(0, DType::I64), idxT), idxT, outResults)};
  const std::string r = fresh("am");
  const std::vector<std::string> args = openGeneric(r + ":2", {operand(src, dims(st.rank()))}, outs,
                                                    reductionIterators(st.rank(), axis));
  const std::string &x = args[0], &best = args[1], &bestIdx = args[2];
  const std::string k = fresh();
  line(k + " = arith.index_cast " + loopIndex(static_cast<unsigned>(axis)) + " : index to i64");
  const std::string wins = greater(t, x, best);
  const std::string nb = fresh(), ni = fresh();
  line(nb + " = arith.select " + wins + ", " + x + ", " + best + " : " + elemType(t));
  line(ni + " = arith.select " + wins + ", " + k + ", " + bestIdx + " : i64");
  closeGeneric({nb, ni}, outs);
  bind(res, r + "#1");
}

void TensorEmitter::emitTopK(const Op &op) {
  const ValueId src = op.operands[0];
  const TensorType &st = c_.typeOf(src);
  const TensorType &vt = c_.typeOf(op.results[0]), &it = c_.typeOf(op.results[1]);
  const DType t = st.dtype;
  const std::string ty = elemType(t), vty = tensorType(vt), ity = tensorType(it);
  const int64_t axis = op.attrs.axis, n = st.shape[axis];
  const std::string yes = intConst(1, DType::I1), no = intConst(0, DType::I1);
  const std::string c0 = indexConst(0), c1 = indexConst(1);
  // One scf.for per dim off the axis, carrying the value and index tensors.
  std::string curV = empty(vt), curI = empty(it);
  std::vector<std::string> outer, loops;
  for (size_t d = 0; d < st.shape.size(); ++d) {
    if (static_cast<int64_t>(d) == axis)
      continue;
    const std::string loop = fresh("tk"), iv = fresh("o"), v = fresh("v"), i = fresh("x");
    line(loop + ":2 = scf.for " + iv + " = " + c0 + " to " + indexConst(st.shape[d]) + " step " +
         c1 + " iter_args(" + v + " = " + curV + ", " + i + " = " + curI + ") -> (" + vty + ", " +
         ity + ") {");
    indent_ += 2;
    outer.push_back(iv);
    loops.push_back(loop);
    curV = v;
    curI = i;
  }
  auto at = [&](const std::string &a) {
    std::vector<std::string> s = outer;
    s.insert(s.begin() + axis, a);
    return joined(s);
  };
  // Elements are totally ordered by (value descending, index ascending),
  // with NaN largest and ties where neither value is greater. Pass r picks
  // the first element that comes after pass r-1's pick (the affine style's
  // stateless selection).
  const std::string r = fresh("r"), prevV = fresh("pv"), prevI = fresh("pi"),
                    havePrev = fresh("hp"), tv = fresh("tv"), ti = fresh("ti"),
                    passes = fresh("sel");
  line(passes + ":5 = scf.for " + r + " = " + c0 + " to " + indexConst(op.attrs.k) + " step " + c1 +
       " iter_args(" + prevV + " = " + zeroOf(t) + ", " + prevI + " = " + c0 + ", " + havePrev +
       " = " + no + ", " + tv + " = " + curV + ", " + ti + " = " + curI + ") -> (" + ty +
       ", index, i1, " + vty + ", " + ity + ") {");
  indent_ += 2;
  const std::string j = fresh("j"), bv = fresh("bv"), bi = fresh("bi"), has = fresh("has"),
                    pick = fresh("pick");
  line(pick + ":3 = scf.for " + j + " = " + c0 + " to " + indexConst(n) + " step " + c1 +
       " iter_args(" + bv + " = " + zeroOf(t) + ", " + bi + " = " + c0 + ", " + has + " = " + no +
       ") -> (" + ty + ", index, i1) {");
  indent_ += 2;
  const std::string x = fresh();
  line(x + " = tensor.extract " + val(src).name + "[" + at(j) + "] : " + val(src).type);
  const TopKBest next = topkStep(t, x, j, {prevV, prevI, havePrev}, {bv, bi, has});
  line("scf.yield " + next.value + ", " + next.index + ", " + next.has + " : " + ty +
       ", index, i1");
  indent_ -= 2;
  line("}");
  const std::string nextV = fresh(), idx = fresh(), nextI = fresh();
  line(nextV + " = tensor.insert " + pick + "#0 into " + tv + "[" + at(r) + "] : " + vty);
  line(idx + " = arith.index_cast " + pick + "#1 : index to i64");
  line(nextI + " = tensor.insert " + idx + " into " + ti + "[" + at(r) + "] : " + ity);
  line("scf.yield " + pick + "#0, " + pick + "#1, " + yes + ", " + nextV + ", " + nextI + " : " +
       ty + ", index, i1, " + vty + ", " + ity);
  indent_ -= 2;
  line("}");
  curV = passes + "#3";
  curI = passes + "#4";
  for (size_t l = loops.size(); l-- > 0;) {
    line("scf.yield " + curV + ", " + curI + " : " + vty + ", " + ity);
    indent_ -= 2;
    line("}");
    curV = loops[l] + "#0";
    curI = loops[l] + "#1";
  }
  bind(op.results[0], curV);
  bind(op.results[1], curI);
}

void TensorEmitter::emitMatmul(const Op &op) {
  const ValueId a = op.operands[0], b = op.operands[1], res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  // linalg.matmul extends (signed) or widens each operand to the acc type,
  // multiplies, and adds to the accumulator over k in order, from +0.
  const std::string init = fill(zeroOf(rt.dtype), rt), r = fresh("mm");
  line(r + " = linalg." + (rt.rank() == 3 ? "batch_matmul" : "matmul") + " ins(" + val(a).name +
       ", " + val(b).name + " : " + val(a).type + ", " + val(b).type + ") outs(" + init + " : " +
       tensorType(rt) + ") -> " + tensorType(rt));
  bind(res, r);
}

void TensorEmitter::emitGather(const Op &op) {
  const ValueId src = op.operands[0], idx = op.operands[1], res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const DType idxTy = c_.typeOf(idx).dtype;
  const std::string all = dims(rt.rank());
  const std::vector<GenericOperand> outs = {operand(empty(rt), rt, all)};
  const std::string r = fresh("gather");
  const std::vector<std::string> args =
      openGeneric(r, {operand(idx, all)}, outs, std::vector<std::string>(rt.rank(), "parallel"));
  std::string i = args[0];
  if (idxTy != DType::Index) {
    const std::string cast = fresh();
    line(cast + " = arith.index_cast " + i + " : " + elemType(idxTy) + " to index");
    i = cast;
  }
  std::vector<std::string> sub;
  for (unsigned d = 0; d < rt.rank(); ++d)
    sub.push_back(static_cast<int64_t>(d) == op.attrs.axis ? i : loopIndex(d));
  const std::string x = fresh();
  line(x + " = tensor.extract " + val(src).name + "[" + joined(sub) + "] : " + val(src).type);
  closeGeneric({x}, outs);
  bind(res, r);
}

} // namespace npufuzz
