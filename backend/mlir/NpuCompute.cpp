//===- backend/mlir/NpuCompute.cpp - Lane-wise compute on scratchpad tiles ===//
//
// Elementwise ops, sources and fillpad. The innermost dim runs on vector
// lanes with a scalar remainder loop for the tail (n mod lanes elements);
// ops or dtypes without a lane-wise form here (index values, casts, integer
// division, the libm-only tanh/erf) run the scalar loop over the whole dim.
// The scalar loop always uses the shared scalar semantics (ScalarLowering),
// and the lane-wise forms below are the same arith/math ops on vectors.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

namespace npufuzz {

namespace {
bool isHalf(DType t) { return t == DType::F16 || t == DType::BF16; }
} // namespace

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

namespace {
std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + v[i];
  return s;
}
} // namespace

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
  const std::string x = fresh("v");
  line(x + " = vector.load " + t.memref + "[" + joined(idx) + "] : " + t.type + ", " +
       vecType(bit ? DType::I8 : t.dtype));
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
  line("vector.store " + v + ", " + t.memref + "[" + joined(idx) + "] : " + t.type + ", " +
       vecType(bit ? DType::I8 : t.dtype));
}

std::string NpuEmitter::splat(const std::string &scalar, DType t) {
  const std::string v = fresh("v");
  line(v + " = vector.broadcast " + scalar + " : " + elemType(t) + " to " + vecType(t));
  return v;
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
    tailStart = fresh("nv");
    line(tailStart + " = affine.apply affine_map<(d0) -> ((d0 floordiv " +
         std::to_string(opt_.lanes) + ") * " + std::to_string(opt_.lanes) + ")>(" + n + ")");
    const std::string j = fresh("j");
    line("scf.for " + j + " = " + indexConst(0) + " to " + tailStart + " step " +
         indexConst(opt_.lanes) + " {");
    indent_ += 2;
    ivs.push_back(j);
    vec(ivs);
    ivs.pop_back();
    closeFor(1);
  }
  const std::string j = fresh("j");
  line("scf.for " + j + " = " + tailStart + " to " + n + " step " + indexConst(1) + " {");
  indent_ += 2;
  ivs.push_back(j);
  scalar(ivs);
  closeFor(ivs.size());
}

std::string NpuEmitter::indexValue(const std::string &v) {
  return v[0] == '%' ? v : indexConst(std::stoll(v));
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
  case OpCategory::Unary:
    switch (op.kind) {
    case OpKind::Tanh:
    case OpKind::Erf:
      return false; // libm calls, which the lowering tail only scalarises
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Sigmoid:
    case OpKind::Silu:
    case OpKind::Relu:
    case OpKind::Not:
      return true;
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
      return false;
    }
    return false;
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand:
    return isFloat(t) || expandBaseOp(op.kind) != OpKind::Div;
  case OpCategory::Compare:
    return true;
  case OpCategory::Source:
  case OpCategory::View:
  case OpCategory::Other:
    return op.kind == OpKind::Select || op.kind == OpKind::MaskedFill;
  }
  return false;
}

std::string NpuEmitter::vecUnary(OpKind k, DType t, const std::string &x) {
  auto op1 = [&](const std::string &name, const std::string &a, DType ty) {
    const std::string r = fresh("v");
    line(r + " = " + name + " " + a + " : " + vecType(ty));
    return r;
  };
  auto op2 = [&](const std::string &name, const std::string &a, const std::string &b, DType ty) {
    const std::string r = fresh("v");
    line(r + " = " + name + " " + a + ", " + b + " : " + vecType(ty));
    return r;
  };
  if (isFloat(t)) {
    std::string w = x;
    if (isHalf(t)) {
      w = fresh("v");
      line(w + " = arith.extf " + x + " : " + vecType(t) + " to " + vecType(DType::F32));
    }
    const std::string one = splat(floatConst(1.0f, DType::F32), DType::F32);
    const std::string zero = splat(floatConst(0.0f, DType::F32), DType::F32);
    auto sigmoid = [&](const std::string &v) {
      const std::string e = op1("math.exp", op1("arith.negf", v, DType::F32), DType::F32);
      return op2("arith.divf", one, op2("arith.addf", one, e, DType::F32), DType::F32);
    };
    std::string r;
    switch (k) {
    case OpKind::Neg: r = op1("arith.negf", w, DType::F32); break;
    case OpKind::Abs: r = op1("math.absf", w, DType::F32); break;
    case OpKind::Exp: r = op1("math.exp", w, DType::F32); break;
    case OpKind::Log: r = op1("math.log", w, DType::F32); break;
    case OpKind::Sqrt: r = op1("math.sqrt", w, DType::F32); break;
    case OpKind::Rsqrt: r = op1("math.rsqrt", w, DType::F32); break;
    case OpKind::Sigmoid: r = sigmoid(w); break;
    case OpKind::Silu: r = op2("arith.mulf", w, sigmoid(w), DType::F32); break;
    case OpKind::Relu: { // ugt keeps NaN and maps -0 to +0, as the scalar form
      const std::string pos = fresh("v");
      line(pos + " = arith.cmpf ugt, " + w + ", " + zero + " : " + vecType(DType::F32));
      r = fresh("v");
      line(r + " = arith.select " + pos + ", " + w + ", " + zero + " : " + vecType(DType::I1) +
           ", " + vecType(DType::F32));
      break;
    }
    // Not vectorized (vectorizable() keeps them scalar), or not on floats.
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Not:
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
      unsupported = "npu: no vector form of " + std::string(opName(k)) + " on floats";
      return x;
    }
    if (!isHalf(t))
      return r;
    const std::string n = fresh("v");
    line(n + " = arith.truncf " + r + " : " + vecType(DType::F32) + " to " + vecType(t));
    return n;
  }
  const std::string zero = splat(intConst(0, t), t);
  switch (k) {
  case OpKind::Neg: return op2("arith.subi", zero, x, t);
  case OpKind::Abs: {
    const std::string neg = op2("arith.subi", zero, x, t), isNeg = fresh("v"), r = fresh("v");
    line(isNeg + " = arith.cmpi slt, " + x + ", " + zero + " : " + vecType(t));
    line(r + " = arith.select " + isNeg + ", " + neg + ", " + x + " : " + vecType(DType::I1) +
         ", " + vecType(t));
    return r;
  }
  case OpKind::Relu: return op2("arith.maxsi", x, zero, t);
  case OpKind::Not:
    return op2("arith.xori", x, splat(intConst(t == DType::I1 ? 1 : -1, t), t), t);
  // Float-only, or not an unary op.
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::Sigmoid:
  case OpKind::Silu:
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    unsupported = "npu: no vector form of " + std::string(opName(k)) + " on integers";
    return x;
  }
  return x; // unreachable: every OpKind is a case above
}

std::string NpuEmitter::vecBinary(OpKind k, DType t, const std::string &a, const std::string &b) {
  auto op2 = [&](const char *name, const std::string &x, const std::string &y, DType ty) {
    const std::string r = fresh("v");
    line(r + " = " + name + " " + x + ", " + y + " : " + vecType(ty));
    return r;
  };
  if (isFloat(t)) {
    auto widen = [&](const std::string &x) {
      if (!isHalf(t))
        return x;
      const std::string w = fresh("v");
      line(w + " = arith.extf " + x + " : " + vecType(t) + " to " + vecType(DType::F32));
      return w;
    };
    const char *name = k == OpKind::Add   ? "arith.addf"
                       : k == OpKind::Sub ? "arith.subf"
                       : k == OpKind::Mul ? "arith.mulf"
                       : k == OpKind::Div ? "arith.divf"
                       : k == OpKind::Max ? "arith.maximumf"
                                          : "arith.minimumf";
    const std::string r = op2(name, widen(a), widen(b), DType::F32);
    if (!isHalf(t))
      return r;
    const std::string n = fresh("v");
    line(n + " = arith.truncf " + r + " : " + vecType(DType::F32) + " to " + vecType(t));
    return n;
  }
  const char *name = k == OpKind::Add   ? "arith.addi"
                     : k == OpKind::Sub ? "arith.subi"
                     : k == OpKind::Mul ? "arith.muli"
                     : k == OpKind::Max ? "arith.maxsi"
                     : k == OpKind::Min ? "arith.minsi"
                     : k == OpKind::And ? "arith.andi"
                     : k == OpKind::Or  ? "arith.ori"
                                        : "arith.xori";
  return op2(name, a, b, t);
}

std::string NpuEmitter::vecCompare(OpKind k, DType t, const std::string &a, const std::string &b) {
  const bool f = isFloat(t);
  const char *pred = k == OpKind::CmpEq   ? (f ? "oeq" : "eq")
                     : k == OpKind::CmpNe ? (f ? "une" : "ne")
                     : k == OpKind::CmpLt ? (f ? "olt" : "slt")
                     : k == OpKind::CmpLe ? (f ? "ole" : "sle")
                     : k == OpKind::CmpGt ? (f ? "ogt" : "sgt")
                                          : (f ? "oge" : "sge");
  const std::string r = fresh("v");
  if (!f) {
    line(r + " = arith.cmpi " + pred + ", " + a + ", " + b + " : " + vecType(t));
    return r;
  }
  std::string wa = a, wb = b;
  if (isHalf(t)) {
    wa = fresh("v");
    wb = fresh("v");
    line(wa + " = arith.extf " + a + " : " + vecType(t) + " to " + vecType(DType::F32));
    line(wb + " = arith.extf " + b + " : " + vecType(t) + " to " + vecType(DType::F32));
  }
  line(r + " = arith.cmpf " + pred + ", " + wa + ", " + wb + " : " + vecType(DType::F32));
  return r;
}

std::string NpuEmitter::vecElementwise(const Op &op, const std::vector<std::string> &xs) {
  const DType t = c_.typeOf(op.operands[0]).dtype;
  const DType rt = c_.typeOf(op.results[0]).dtype;
  switch (opCategory(op.kind)) {
  case OpCategory::Unary: return vecUnary(op.kind, t, xs[0]);
  case OpCategory::Binary: return vecBinary(op.kind, t, xs[0], xs[1]);
  case OpCategory::Compare: return vecCompare(op.kind, t, xs[0], xs[1]);
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return vecBinary(expandBaseOp(op.kind), t, xs[0], xs[1]);
  default: {
    const std::string r = fresh("v");
    if (op.kind == OpKind::Select)
      line(r + " = arith.select " + xs[0] + ", " + xs[1] + ", " + xs[2] + " : " +
           vecType(DType::I1) + ", " + vecType(rt));
    else // MaskedFill
      line(r + " = arith.select " + xs[1] + ", " + splat(scalarConst(op.attrs.value, rt), rt) +
           ", " + xs[0] + " : " + vecType(DType::I1) + ", " + vecType(rt));
    return r;
  }
  }
}

// --- Elementwise ops, sources, fillpad ----------------------------------------------

void NpuEmitter::planElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const OpCategory cat = opCategory(op.kind);
  const bool expand = cat == OpCategory::RowExpand || cat == OpCategory::ColExpand;
  alloc(res);
  DramBuf &rb = bufs_[res];
  // min of two valid bounds (literal or SSA), folding literals.
  auto minBound = [this](const std::string &a, const std::string &b) {
    if (a.empty() || b.empty())
      return a.empty() ? b : a;
    if (a[0] != '%' && b[0] != '%')
      return std::stoll(a) <= std::stoll(b) ? a : b;
    const std::string x = fresh("vb");
    line(x + " = arith.minsi " + indexValue(a) + ", " + indexValue(b) + " : index");
    return x;
  };
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
    auto body = [&](bool lanes, const std::vector<std::string> &ivs) {
      std::vector<std::string> xs;
      for (int i = 0; i < out; ++i)
        xs.push_back(lanes ? vload(*b.tiles[i], ivs) : load(*b.tiles[i], ivs));
      if (lanes)
        vstore(vecElementwise(op, xs), *b.tiles[out], ivs);
      else
        store(elementwise(op, xs), *b.tiles[out], ivs);
    };
    laneLoops(
        loopBounds, vec, [&](const std::vector<std::string> &ivs) { body(true, ivs); },
        [&](const std::vector<std::string> &ivs) { body(false, ivs); });
  };
  emitPlan(p);
}

void NpuEmitter::planSource(const Op &op) {
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
          vstore(isConst ? splat(scalarConst(op.attrs.value, t), t) : lanes(ivs), *b.tiles[0], ivs);
        },
        [&](const std::vector<std::string> &ivs) {
          store(isConst ? scalarConst(op.attrs.value, t) : fromIndex(global(ivs), t), *b.tiles[0],
                ivs);
        });
  };
  emitPlan(p);
}

void NpuEmitter::planFillPad(const Op &op) {
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
    const std::string pad = op.attrs.pad == PadKind::Zero  ? zeroOf(t)
                            : op.attrs.pad == PadKind::Min ? lowestOf(t)
                                                           : highestOf(t);
    laneLoops(b.extent, false, nullptr, [&](const std::vector<std::string> &ivs) {
      std::string x = load(*b.tiles[0], ivs);
      if (!sb.rows.empty()) {
        // Inside the source's valid region in global coordinates.
        const std::string gr = fresh("g"), gc = fresh("g"), inRow = fresh(), inCol = fresh(),
                          inside = fresh(), r = fresh();
        line(gr + " = arith.addi " + b.origin[0] + ", " + ivs[0] + " : index");
        line(gc + " = arith.addi " + b.origin[1] + ", " + ivs[1] + " : index");
        line(inRow + " = arith.cmpi slt, " + gr + ", " + indexValue(sb.rows) + " : index");
        line(inCol + " = arith.cmpi slt, " + gc + ", " + indexValue(sb.cols) + " : index");
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
