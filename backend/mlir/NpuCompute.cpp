//===- backend/mlir/NpuCompute.cpp - Lane-wise compute on scratchpad tiles ===//
//
// Elementwise ops, sources and fillpad. The innermost dim runs on vector
// lanes with a scalar remainder loop for the tail (n mod lanes elements);
// ops or dtypes without a lane-wise form here (index values, casts, integer
// division, the libm-only tanh/erf) run the scalar loop over the whole dim.
// Both loops emit the one typed semantics of ScalarLowering.cpp; the
// lane-wise loop opens a LaneScope, so its ops are the same on vectors.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

namespace npufuzz {

// --- Loops and element access -----------------------------------------------------

std::vector<std::string> NpuEmitter::openFor(const std::vector<std::string> &bounds) {
  std::vector<std::string> ivs;
  for (const std::string &b : bounds) {
    const std::string iv = fresh("i");
    line("scf.for " + iv + " = " + indexConst(0) + " to " + b + " step " + indexConst(1) + " {");
    indent_ += 2;
    ivs.push_back(iv);
  }
  return ivs;
}

void NpuEmitter::closeFor(size_t n) {
  for (size_t i = 0; i < n; ++i) {
    indent_ -= 2;
    line("}");
  }
}

std::string NpuEmitter::load(const SpadTile &t, const std::vector<std::string> &idx) {
  const std::string x = fresh();
  line(x + " = memref.load " + t.memref + "[" + joined(idx) + "] : " + t.type);
  if (t.dtype != DType::I1)
    return x;
  const std::string b = fresh();
  line(b + " = arith.trunci " + x + " : i8 to i1");
  return b;
}

void NpuEmitter::store(const std::string &x, const SpadTile &t,
                       const std::vector<std::string> &idx) {
  std::string v = x;
  if (t.dtype == DType::I1) {
    v = fresh();
    line(v + " = arith.extui " + x + " : i1 to i8");
  }
  line("memref.store " + v + ", " + t.memref + "[" + joined(idx) + "] : " + t.type);
}

std::string NpuEmitter::vecType(DType t) const {
  return "vector<" + std::to_string(opt_.lanes) + "x" + elemType(t) + ">";
}

std::string NpuEmitter::vload(const SpadTile &t, const std::vector<std::string> &idx) {
  const bool bit = t.dtype == DType::I1;
  const DType stored = bit ? DType::I8 : t.dtype;
  std::string pad;
  if (!tailMask_.empty())
    pad = zeroOf(stored);
  const std::string x = fresh("v");
  if (tailMask_.empty())
    line(x + " = vector.load " + t.memref + "[" + joined(idx) + "] : " + t.type + ", " +
         vecType(stored));
  else
    line(x + " = vector.transfer_read " + t.memref + "[" + joined(idx) + "], " + pad + ", " +
         tailMask_ + " {in_bounds = [false]} : " + t.type + ", " + vecType(stored));
  if (!bit)
    return x;
  const std::string b = fresh("v");
  line(b + " = arith.trunci " + x + " : " + vecType(DType::I8) + " to " + vecType(DType::I1));
  return b;
}

void NpuEmitter::vstore(const std::string &x, const SpadTile &t,
                        const std::vector<std::string> &idx) {
  std::string v = x;
  const bool bit = t.dtype == DType::I1;
  if (bit) {
    v = fresh("v");
    line(v + " = arith.extui " + x + " : " + vecType(DType::I1) + " to " + vecType(DType::I8));
  }
  if (tailMask_.empty())
    line("vector.store " + v + ", " + t.memref + "[" + joined(idx) + "] : " + t.type + ", " +
         vecType(bit ? DType::I8 : t.dtype));
  else
    line("vector.transfer_write " + v + ", " + t.memref + "[" + joined(idx) + "], " + tailMask_ +
         " {in_bounds = [false]} : " + vecType(bit ? DType::I8 : t.dtype) + ", " + t.type);
}

void NpuEmitter::laneLoops(const std::vector<std::string> &bounds, bool vectorize,
                           const std::function<void(const std::vector<std::string> &)> &vec,
                           const std::function<void(const std::vector<std::string> &)> &scalar) {
  std::vector<std::string> ivs =
      openFor(std::vector<std::string>(bounds.begin(), bounds.end() - 1));
  const std::string n = bounds.back();
  std::string tailStart = indexConst(0);
  if (vectorize) {
    // Full vectors cover n floordiv lanes * lanes; the rest is the tail.
    const int64_t lanes = opt_.lanes;
    tailStart = indexOf(IndexExpr::mul(IndexExpr::floorDiv(IndexExpr::dim(0), lanes), lanes), {n});
    const std::string zero = indexConst(0);
    const std::string step = indexConst(lanes);
    const std::string j = fresh("j");
    line("scf.for " + j + " = " + zero + " to " + tailStart + " step " + step + " {");
    indent_ += 2;
    ivs.push_back(j);
    vec(ivs);
    ivs.pop_back();
    closeFor(1);
    if (plan.tails == TailForm::Masked) {
      // The rest (fewer than `lanes` elements, maybe none) in one step
      // whose loads and stores are masked to it; the other lanes compute
      // on padding and are never stored.
      const std::string rest = fresh("rest");
      line(rest + " = arith.subi " + n + ", " + tailStart + " : index");
      tailMask_ = fresh("mask");
      line(tailMask_ + " = vector.create_mask " + rest + " : " + vecType(DType::I1));
      ivs.push_back(tailStart);
      vec(ivs);
      ivs.pop_back();
      tailMask_.clear();
      closeFor(ivs.size());
      return;
    }
  }
  const std::string j = fresh("j");
  line("scf.for " + j + " = " + tailStart + " to " + n + " step " + indexConst(1) + " {");
  indent_ += 2;
  ivs.push_back(j);
  scalar(ivs);
  closeFor(ivs.size());
}

std::string NpuEmitter::clip(const Block &b, size_t d, const std::string &valid) {
  if (valid.empty())
    return b.extent[d];
  // clamp(valid - origin, 0, extent): the part of the block inside the
  // valid region.
  const std::string rest = fresh("vb"), lo = fresh("vb"), r = fresh("vb");
  line(rest + " = arith.subi " + indexValue(valid) + ", " + b.origin[d] + " : index");
  line(lo + " = arith.maxsi " + rest + ", " + indexConst(0) + " : index");
  line(r + " = arith.minsi " + lo + ", " + b.extent[d] + " : index");
  return r;
}

// --- Lane-wise semantics ------------------------------------------------------------

bool NpuEmitter::vectorizable(const Op &op) const {
  std::vector<DType> types;
  for (ValueId v : op.operands)
    types.push_back(c_.typeOf(v).dtype);
  types.push_back(c_.typeOf(op.results[0]).dtype);
  for (DType t : types)
    if (t == DType::Index)
      return false;
  const DType t = types[0];
  switch (opCategory(op.kind)) {
  case OpCategory::Unary: return unaryHasLaneForm(op.kind);
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return isFloat(t) || expandBaseOp(op.kind) != OpKind::Div;
  case OpCategory::Compare: return true;
  case OpCategory::Source:
  case OpCategory::View:
  case OpCategory::Other: return op.kind == OpKind::Select || op.kind == OpKind::MaskedFill;
  }
  return false;
}

// --- Elementwise ops, sources, fillpad ----------------------------------------------

void NpuEmitter::emitElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const OpCategory cat = opCategory(op.kind);
  const bool expand = cat == OpCategory::RowExpand || cat == OpCategory::ColExpand;
  alloc(res);
  DramBuf &rb = bufs_[res];
  // min of two valid bounds (literal or SSA), folding literals.
  if (rt.valid) {
    // The valid region of an elementwise result is the intersection of its
    // operands'; the compute loops cover only that region.
    const size_t n = expand ? 1 : op.operands.size();
    for (size_t i = 0; i < n; ++i) {
      const DramBuf &ob = bufs_.at(op.operands[i]);
      rb.rows = minBound(rb.rows, ob.rows);
      rb.cols = minBound(rb.cols, ob.cols);
    }
  }
  const DramBuf bounds = rb;
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rt.rank(), true);
  for (size_t i = 0; i < op.operands.size(); ++i) {
    p.tiles.push_back(resultTile(c_.typeOf(op.operands[i]).dtype, rt.rank()));
    Access a = rowMajor(static_cast<int>(i), op.operands[i]);
    // The [R,1] / [1,C] operand of an expand is broadcast by the DMA engine
    // with a zero stride, so every tile is a full result block.
    if (expand && i == 1)
      a.stride[cat == OpCategory::RowExpand ? 1 : 0] = 0;
    a.originCoeff = a.stride;
    p.loads.push_back(a);
  }
  const int out = static_cast<int>(op.operands.size());
  p.tiles.push_back(resultTile(rt.dtype, rt.rank()));
  p.stores.push_back(rowMajor(out, res));
  const bool vec = vectorizable(op);
  p.compute = [this, &op, out, bounds, vec](const Block &b) {
    std::vector<std::string> loopBounds;
    for (size_t d = 0; d < b.extent.size(); ++d)
      loopBounds.push_back(clip(b, d, d == 0 ? bounds.rows : d == 1 ? bounds.cols : ""));
    // A masked tail of a row clipped to the valid columns ends inside the
    // tile's row.
    if (vec && plan.tails == TailForm::Masked && !bounds.cols.empty())
      out_.maskInsideBuffer = true;
    auto body = [&](bool lanes, const std::vector<std::string> &ivs) {
      std::vector<std::string> xs;
      for (int i = 0; i < out; ++i)
        xs.push_back(lanes ? vload(*b.tiles[i], ivs) : load(*b.tiles[i], ivs));
      if (!lanes)
        return store(elementwise(op, xs), *b.tiles[out], ivs);
      const LaneScope scope(*this, opt_.lanes);
      vstore(elementwise(op, xs), *b.tiles[out], ivs);
    };
    laneLoops(
        loopBounds, vec, [&](const std::vector<std::string> &ivs) { body(true, ivs); },
        [&](const std::vector<std::string> &ivs) { body(false, ivs); });
  };
  emitPlan(p);
}

void NpuEmitter::emitSource(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const DType t = rt.dtype;
  alloc(res);
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rt.rank(), true);
  p.tiles.push_back(resultTile(t, rt.rank()));
  p.stores.push_back(rowMajor(0, res));
  const bool isConst = op.kind == OpKind::Const;
  const int64_t axis = op.attrs.axis;
  // An iota along the innermost dim numbers the lanes: vector.step in
  // `index`, cast explicitly to the element type (seed 000).
  const bool laneIota = !isConst && axis + 1 == static_cast<int64_t>(rt.rank()) && t != DType::I1;
  const bool vec = t != DType::Index && (isConst || laneIota);
  p.compute = [this, &op, t, isConst, axis, vec](const Block &b) {
    auto global = [&](const std::vector<std::string> &ivs) {
      const std::string g = fresh("g");
      line(g + " = arith.addi " + b.origin[axis] + ", " + ivs[axis] + " : index");
      return g;
    };
    auto lanes = [&](const std::vector<std::string> &ivs) {
      const std::string step = fresh("v"), base = fresh("v"), ids = fresh("v");
      line(step + " = vector.step : " + vecType(DType::Index));
      line(base + " = vector.broadcast " + global(ivs) + " : index to " + vecType(DType::Index));
      line(ids + " = arith.addi " + base + ", " + step + " : " + vecType(DType::Index));
      const std::string r = fresh("v");
      if (isInteger(t)) {
        line(r + " = arith.index_cast " + ids + " : " + vecType(DType::Index) + " to " +
             vecType(t));
        return r;
      }
      line(r + " = arith.index_cast " + ids + " : " + vecType(DType::Index) + " to " +
           vecType(DType::I64));
      const std::string f = fresh("v");
      line(f + " = arith.sitofp " + r + " : " + vecType(DType::I64) + " to " +
           vecType(DType::F32)); // exact: dims < 2^24
      if (t == DType::F32)
        return f;
      const std::string n = fresh("v");
      line(n + " = arith.truncf " + f + " : " + vecType(DType::F32) + " to " + vecType(t));
      return n;
    };
    laneLoops(
        b.extent, vec,
        [&](const std::vector<std::string> &ivs) {
          if (!isConst)
            return vstore(lanes(ivs), *b.tiles[0], ivs);
          const LaneScope scope(*this, opt_.lanes);
          vstore(laneConst(scalarConst(op.attrs.value, t), t), *b.tiles[0], ivs);
        },
        [&](const std::vector<std::string> &ivs) {
          store(isConst ? scalarConst(op.attrs.value, t) : fromIndex(global(ivs), t), *b.tiles[0],
                ivs);
        });
  };
  emitPlan(p);
}

void NpuEmitter::emitFillPad(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const DType t = rt.dtype;
  alloc(res);
  const DramBuf sb = bufs_.at(src);
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rt.rank(), true);
  p.tiles.push_back(resultTile(t, rt.rank()));
  p.tiles.push_back(resultTile(t, rt.rank()));
  p.loads.push_back(rowMajor(0, src));
  p.stores.push_back(rowMajor(1, res));
  p.compute = [this, &op, t, sb](const Block &b) {
    const std::string pad = padValue(op.attrs.pad, t);
    laneLoops(b.extent, false, nullptr, [&](const std::vector<std::string> &ivs) {
      std::string x = load(*b.tiles[0], ivs);
      if (!sb.rows.empty()) {
        // Inside the source's valid region in global coordinates.
        const std::string gr = fresh("g"), gc = fresh("g");
        line(gr + " = arith.addi " + b.origin[0] + ", " + ivs[0] + " : index");
        line(gc + " = arith.addi " + b.origin[1] + ", " + ivs[1] + " : index");
        const std::string inRow = below(gr, sb.rows);
        const std::string inCol = below(gc, sb.cols);
        const std::string inside = fresh(), r = fresh();
        line(inside + " = arith.andi " + inRow + ", " + inCol + " : i1");
        line(r + " = arith.select " + inside + ", " + x + ", " + pad + " : " + elemType(t));
        x = r;
      }
      store(x, *b.tiles[1], ivs);
    });
  };
  emitPlan(p);
}

} // namespace npufuzz
