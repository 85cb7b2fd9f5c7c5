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
  if (emitVectorReduce(op))
    return;
  const ReduceRule rule = reduceRule(op.kind, t);
  loopNest(boundsExcept(st.shape, axis), [&](const std::vector<std::string> &outer) {
    const std::string acc = fresh("acc"), result = fresh("red");
    const std::string k =
        openCarried(result, 0, st.shape[axis], {acc}, {rule.init}, {rule.accType});
    const std::string x = widen(load(src, withAxis(outer, axis, k)), t);
    const std::string next = fresh();
    line(next + " = " + rule.combine + " " + acc + ", " + x + " : " + rule.accType);
    closeCarried({next}, {rule.accType});
    store(narrow(result, t), res, withAxis(outer, axis, "0"));
  });
}

namespace {
/// The vector.reduction / multi_reduction kind of a reduce rule's combiner.
std::string vectorKind(const std::string &combine) {
  return combine == "arith.addf" || combine == "arith.addi" ? "add"
                                                            : combine.substr(6); // arith.maxsi
}
} // namespace

bool AffineEmitter::emitVectorReduce(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis, n = st.shape[axis];
  const unsigned rank = st.rank();
  const ReduceRule rule = reduceRule(op.kind, t);
  const std::string elem = elemType(t), kind = vectorKind(rule.combine);
  switch (plan.reduce) {
  case ReduceForm::Scalar: return false;
  case ReduceForm::Multi: {
    // The reduced dim and the innermost kept dim in tiles of up to 16x16
    // (the other dims are loops): per tile of kept positions, a loop over
    // the reduced dim's tiles carries a vector accumulator, and
    // vector.multi_reduction folds each tile into it in order from the
    // accumulator, so float sums stay exact. Lanes past the end read the
    // combiner's identity; their results are never written (the transfers
    // are not in bounds there).
    if (rank < 2)
      break;
    const int64_t kd = axis == rank - 1 ? rank - 2 : rank - 1;
    const int64_t lo = std::min(axis, kd), hi = std::max(axis, kd);
    const int64_t tileLo = std::min<int64_t>(st.shape[lo], 16),
                  tileHi = std::min<int64_t>(st.shape[hi], 16);
    const int64_t tileKept = kd == lo ? tileLo : tileHi, tileN = axis == lo ? tileLo : tileHi;
    const int64_t keptN = st.shape[kd];
    const std::string tile = std::to_string(tileLo) + "x" + std::to_string(tileHi);
    const std::string vt = "vector<" + tile + "x" + elem + ">";
    const std::string wideType = "vector<" + tile + "x" + rule.accType + ">";
    const std::string accVec = "vector<" + std::to_string(tileKept) + "x" + rule.accType + ">";
    const std::string outVec = "vector<" + std::to_string(tileKept) + "x" + elem + ">";
    const auto inBounds = [](int64_t size, int64_t lanes) {
      return size % lanes == 0 ? "true" : "false";
    };
    const std::string both = projection(rank, {lo, hi});
    std::vector<std::string> outerBounds;
    for (unsigned d = 0; d < rank; ++d)
      if (d != axis && d != kd)
        outerBounds.push_back(std::to_string(st.shape[d]));
    loopNest(outerBounds, [&](const std::vector<std::string> &outer) {
      const std::string identity = reduceIdentity(op.kind, t);
      const std::string zero = indexConst(0);
      const std::string keptEnd = indexConst(keptN), redEnd = indexConst(n);
      const std::string keptStep = indexConst(tileKept), redStep = indexConst(tileN);
      // Full-rank subscripts: the outer IVs, with `r` at the reduced dim
      // and `k` at the kept one.
      auto at = [&](const std::string &r, const std::string &k) {
        std::vector<std::string> sub;
        size_t o = 0;
        for (unsigned d = 0; d < rank; ++d)
          sub.push_back(d == axis ? r : d == kd ? k : outer[o++]);
        return joined(ssaSubscripts(sub));
      };
      const std::string kc = fresh("kc");
      line("scf.for " + kc + " = " + zero + " to " + keptEnd + " step " + keptStep + " {");
      indent_ += 2;
      const std::string acc0 = fresh("acc");
      line(acc0 + " = vector.broadcast " + rule.init + " : " + rule.accType + " to " + accVec);
      const std::string rc = fresh("rc"), acc = fresh("acc"), result = fresh("red");
      line(result + " = scf.for " + rc + " = " + zero + " to " + redEnd + " step " + redStep +
           " iter_args(" + acc + " = " + acc0 + ") -> (" + accVec + ") {");
      indent_ += 2;
      const std::string from = at(rc, kc);
      const std::string v = fresh("v");
      line(v + " = vector.transfer_read " + buf(src).memref + "[" + from + "], " + identity +
           " {in_bounds = [" + inBounds(st.shape[lo], tileLo) + ", " +
           inBounds(st.shape[hi], tileHi) + "], permutation_map = " + both +
           "} : " + buf(src).type + ", " + vt);
      // Widening is lane-wise on a flat vector: through shape_cast and back.
      std::string in = v;
      if (rule.accType != elem) {
        const int64_t flatN = tileLo * tileHi;
        const std::string flatType = "vector<" + std::to_string(flatN) + "x" + elem + ">";
        const std::string flat = fresh("v");
        line(flat + " = vector.shape_cast " + v + " : " + vt + " to " + flatType);
        std::string wide;
        {
          const LaneScope lanes(*this, flatN);
          wide = widen(flat, t);
        }
        in = fresh("v");
        line(in + " = vector.shape_cast " + wide + " : vector<" + std::to_string(flatN) + "x" +
             rule.accType + "> to " + wideType);
      }
      const std::string next = fresh("red");
      line(next + " = vector.multi_reduction <" + kind + ">, " + in + ", " + acc + " [" +
           (axis == lo ? "0" : "1") + "] : " + wideType + " to " + accVec);
      line("scf.yield " + next + " : " + accVec);
      indent_ -= 2;
      line("}");
      std::string out;
      {
        const LaneScope lanes(*this, tileKept);
        out = narrow(result, t);
      }
      const std::string to = at(zero, kc);
      line("vector.transfer_write " + out + ", " + buf(res).memref + "[" + to + "] {in_bounds = [" +
           inBounds(keptN, tileKept) + "], permutation_map = " + projection(rank, {kd}) +
           "} : " + outVec + ", " + buf(res).type);
      indent_ -= 2;
      line("}");
    });
    return true;
  }
  case ReduceForm::Vector:
  case ReduceForm::Masked: break;
  }
  // Per outer position, the reduced dim in chunks of up to 16 lanes, each
  // reduced by vector.reduction from the previous chunk's result: with an
  // accumulator it lowers to LLVM's ordered reduction, so float sums stay
  // exact. Lanes past the end hold the combiner's identity (the transfer's
  // padding, or what the mask leaves out).
  const bool masked = plan.reduce == ReduceForm::Masked;
  const int64_t lanes = std::min<int64_t>(n, 16);
  const std::string vt = "vector<" + std::to_string(lanes) + "x" + elem + ">";
  const std::string wideType = "vector<" + std::to_string(lanes) + "x" + rule.accType + ">";
  const bool exact = n % lanes == 0; // every chunk in bounds
  loopNest(boundsExcept(st.shape, axis), [&](const std::vector<std::string> &outer) {
    const std::string identity = reduceIdentity(op.kind, t);
    const std::string end = indexConst(n);
    std::string acc = rule.init, result, offset = indexConst(0);
    const bool chunked = lanes < n;
    if (chunked) {
      const std::string step = indexConst(lanes);
      const std::string from = indexConst(0);
      const std::string carried = fresh("acc");
      result = fresh("red");
      offset = fresh("off");
      line(result + " = scf.for " + offset + " = " + from + " to " + end + " step " + step +
           " iter_args(" + carried + " = " + rule.init + ") -> (" + rule.accType + ") {");
      indent_ += 2;
      acc = carried;
    }
    const std::vector<std::string> at = ssaSubscripts(withAxis(outer, axis, offset));
    std::string mask;
    if (masked) {
      const std::string rest = fresh("rest");
      line(rest + " = arith.subi " + end + ", " + offset + " : index");
      mask = fresh("mask");
      line(mask + " = vector.create_mask " + rest + " : vector<" + std::to_string(lanes) + "xi1>");
    }
    const std::string v = fresh("v");
    line(v + " = vector.transfer_read " + buf(src).memref + "[" + joined(at) + "], " + identity +
         (masked ? ", " + mask : std::string()) + " {in_bounds = [" + (exact ? "true" : "false") +
         "], permutation_map = " + projection(rank, {axis}) + "} : " + buf(src).type + ", " + vt);
    std::string wide;
    {
      const LaneScope scope(*this, lanes);
      wide = widen(v, t);
    }
    const std::string r = fresh("red");
    line(r + " = vector.reduction <" + kind + ">, " + wide + ", " + acc + " : " + wideType +
         " into " + rule.accType);
    if (chunked) {
      line("scf.yield " + r + " : " + rule.accType);
      indent_ -= 2;
      line("}");
    } else {
      result = r;
    }
    store(narrow(result, t), res, withAxis(outer, axis, "0"));
  });
  return true;
}

void AffineEmitter::emitArgMax(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const DType t = st.dtype;
  const int64_t axis = op.attrs.axis;
  const std::string ty = elemType(t);
  alloc(res);
  loopNest(boundsExcept(st.shape, axis), [&](const std::vector<std::string> &outer) {
    const std::string first = load(src, withAxis(outer, axis, "0"));
    const std::string zero = indexConst(0);
    const std::string best = fresh("best"), bestIdx = fresh("bi"), result = fresh("am");
    const std::string k =
        openCarried(result, 1, st.shape[axis], {best, bestIdx}, {first, zero}, {ty, "index"});
    const std::string x = load(src, withAxis(outer, axis, k));
    const std::string wins = greater(t, x, best);
    const std::string nb = fresh(), ni = fresh();
    line(nb + " = arith.select " + wins + ", " + x + ", " + best + " : " + ty);
    line(ni + " = arith.select " + wins + ", " + k + ", " + bestIdx + " : index");
    closeCarried({nb, ni}, {ty, "index"});
    const std::string idx = fresh();
    line(idx + " = arith.index_cast " + result + "#1 : index to i64");
    store(idx, res, withAxis(outer, axis, "0"));
  });
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
  const std::vector<std::string> carriedTypes = {ty, "index", "i1"};
  // Elements are totally ordered by (value descending, index ascending),
  // with NaN largest and ties where neither value is greater. Pass r picks
  // the first element that comes after pass r-1's pick: no scratch memory,
  // only loop-carried values, so every access stays affine.
  loopNest(boundsExcept(st.shape, axis), [&](const std::vector<std::string> &outer) {
    const std::string zeroValue = zeroOf(t);
    const std::string zero = indexConst(0);
    const std::string prevV = fresh("pv"), prevI = fresh("pi"), havePrev = fresh("hp"),
                      passes = fresh("sel");
    const std::string r = openCarried(passes, 0, op.attrs.k, {prevV, prevI, havePrev},
                                      {zeroValue, zero, no}, carriedTypes);
    const std::string bv = fresh("bv"), bi = fresh("bi"), has = fresh("has"), pick = fresh("pick");
    const std::string j =
        openCarried(pick, 0, n, {bv, bi, has}, {zeroValue, zero, no}, carriedTypes);
    const std::string x = load(src, withAxis(outer, axis, j));
    const TopKBest next = topkStep(t, x, j, {prevV, prevI, havePrev}, {bv, bi, has});
    closeCarried({next.value, next.index, next.has}, carriedTypes);
    store(pick + "#0", values, withAxis(outer, axis, r));
    const std::string idx = fresh();
    line(idx + " = arith.index_cast " + pick + "#1 : index to i64");
    store(idx, indices, withAxis(outer, axis, r));
    closeCarried({pick + "#0", pick + "#1", yes}, carriedTypes);
  });
}

void AffineEmitter::emitMatmul(const Op &op) {
  const ValueId a = op.operands[0], b = op.operands[1], res = op.results[0];
  const TensorType &at = c_.typeOf(a);
  const DType in = at.dtype, acc = c_.typeOf(res).dtype;
  const std::string accTy = elemType(acc);
  const unsigned rank = at.rank();
  const int64_t kDim = at.shape[rank - 1];
  alloc(res);
  if (plan.matmul == MatmulForm::Contract)
    return emitContractMatmul(op);
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    const std::string init = zeroOf(acc);
    const std::string sum = fresh("acc"), result = fresh("mm");
    const std::string k = openCarried(result, 0, kDim, {sum}, {init}, {accTy});
    std::vector<std::string> aSub = ivs, bSub = ivs;
    aSub[rank - 1] = k; // a[.., i, k]
    bSub[rank - 2] = k; // b[.., k, j]
    const std::string xa = load(a, aSub);
    const std::string xb = load(b, bSub);
    const std::string next = multiplyAccumulate(sum, xa, xb, in, acc);
    closeCarried({next}, {accTy});
    store(result, res, ivs);
  });
}

void AffineEmitter::emitContractMatmul(const Op &op) {
  const ValueId a = op.operands[0], b = op.operands[1], res = op.results[0];
  const TensorType &at = c_.typeOf(a);
  const DType in = at.dtype, acc = c_.typeOf(res).dtype;
  const std::string accTy = elemType(acc), inTy = elemType(in);
  const unsigned rank = at.rank();
  const int64_t kDim = at.shape[rank - 1], lanes = std::min<int64_t>(kDim, 16);
  const std::string vin = "vector<" + std::to_string(lanes) + "x" + inTy + ">";
  const std::string wideTy = isFloat(acc) ? "f32" : accTy;
  const std::string vwide = "vector<" + std::to_string(lanes) + "x" + wideTy + ">";
  const std::string inBounds = kDim % lanes == 0 ? "true" : "false";
  // Products of lanes past k are 0 * 0 (the padding); a sum that starts at
  // +0 is never -0, so adding +0 leaves it as it is.
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    const std::string init = zeroOf(acc), pad = zeroOf(in);
    const std::string zero = indexConst(0), end = indexConst(kDim), step = indexConst(lanes);
    const std::string k = fresh("k"), sum = fresh("acc"), result = fresh("mm");
    line(result + " = scf.for " + k + " = " + zero + " to " + end + " step " + step +
         " iter_args(" + sum + " = " + init + ") -> (" + accTy + ") {");
    indent_ += 2;
    std::vector<std::string> aSub = ivs, bSub = ivs;
    aSub[rank - 1] = k; // a[.., i, k..]
    bSub[rank - 2] = k; // b[.., k.., j]
    const std::vector<std::string> aAt = ssaSubscripts(aSub), bAt = ssaSubscripts(bSub);
    std::string va = fresh("va"), vb = fresh("vb");
    line(va + " = vector.transfer_read " + buf(a).memref + "[" + joined(aAt) + "], " + pad +
         " {in_bounds = [" + inBounds + "], permutation_map = " + projection(rank, {rank - 1}) +
         "} : " + buf(a).type + ", " + vin);
    line(vb + " = vector.transfer_read " + buf(b).memref + "[" + joined(bAt) + "], " + pad +
         " {in_bounds = [" + inBounds + "], permutation_map = " + projection(rank, {rank - 2}) +
         "} : " + buf(b).type + ", " + vin);
    if (isFloat(acc)) {
      const LaneScope scope(*this, lanes);
      va = widen(va, in);
      vb = widen(vb, in);
    } else if (in != acc) {
      const std::string ea = fresh("va"), eb = fresh("vb");
      line(ea + " = arith.extsi " + va + " : " + vin + " to " + vwide);
      line(eb + " = arith.extsi " + vb + " : " + vin + " to " + vwide);
      va = ea;
      vb = eb;
    }
    const std::string r = fresh("mm");
    line(r +
         " = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> "
         "(d0)>, affine_map<(d0) -> ()>], iterator_types = [\"reduction\"], kind = "
         "#vector.kind<add>} " +
         va + ", " + vb + ", " + sum + " : " + vwide + ", " + vwide + " into " + wideTy);
    line("scf.yield " + r + " : " + accTy);
    indent_ -= 2;
    line("}");
    store(result, res, ivs);
  });
}

void AffineEmitter::emitGather(const Op &op) {
  const ValueId src = op.operands[0], idx = op.operands[1], res = op.results[0];
  const DType idxTy = c_.typeOf(idx).dtype;
  alloc(res);
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    std::string i = load(idx, ivs);
    if (idxTy != DType::Index)
      i = indexCast(i, idxTy, DType::Index);
    std::vector<std::string> sub = ivs;
    sub[op.attrs.axis] = i;
    const Buffer &sb = buf(src);
    const std::vector<std::string> at = ssaSubscripts(sub);
    const std::string x = fresh();
    line(x + " = memref.load " + sb.memref + "[" + joined(at) + "] : " + sb.type);
    store(x, res, ivs);
  });
}

} // namespace npufuzz
