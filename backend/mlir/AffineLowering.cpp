//===- backend/mlir/AffineLowering.cpp - The affine lowering style --------===//
//
// Buffers, loop nests, and the lowering of elementwise ops, views, sources
// and valid-shape ops. Reductions, topk, matmul and gather are in
// AffineStructured.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/AffineLowering.h"

#include "ir/Verifier.h"

namespace npufuzz {

// --- Loops and buffers ----------------------------------------------------------

void AffineEmitter::loopNest(const std::vector<std::string> &bounds, const Body &body) {
  std::vector<std::string> ivs;
  loopLevel(bounds, 0, ivs, body);
}

void AffineEmitter::loopLevel(const std::vector<std::string> &bounds, size_t level,
                              std::vector<std::string> &ivs, const Body &body) {
  if (level == bounds.size()) {
    body(ivs);
    return;
  }
  const std::string &b = bounds[level];
  auto inner = [&](const std::string &iv) {
    ivs.push_back(iv);
    loopLevel(bounds, level + 1, ivs, body);
    ivs.pop_back();
  };
  auto open = [&](const std::string &head) {
    line(head);
    indent_ += 2;
  };
  auto close = [&] {
    indent_ -= 2;
    line("}");
  };
  // Outer levels of the scf forms are plain scf.for: only the innermost
  // level varies, so unrolled and tiled bodies stay one level deep.
  const bool innermost = level + 1 == bounds.size();
  LoopForm form = plan.loops;
  if (!innermost && form != LoopForm::AffineFor)
    form = LoopForm::ScfFor;
  // Constants and bounds are named before the lines that use them: the
  // order of evaluation of operands is unspecified, the text must not be.
  std::string zero, one, bound;
  if (form != LoopForm::AffineFor) {
    zero = indexConst(0);
    one = indexConst(1);
    bound = indexValue(b);
  }
  switch (form) {
  case LoopForm::AffineFor: {
    const std::string iv = fresh("i");
    affineIvs_.insert(iv);
    open("affine.for " + iv + " = 0 to " + b + " {");
    inner(iv);
    close();
    return;
  }
  case LoopForm::ScfFor: {
    const std::string iv = fresh("i");
    open("scf.for " + iv + " = " + zero + " to " + bound + " step " + one + " {");
    inner(iv);
    close();
    return;
  }
  case LoopForm::ScfWhile: {
    const std::string w = fresh("w"), cur = fresh("i"), iv = fresh("i"), go = fresh("go"),
                      next = fresh("i");
    open(w + " = scf.while (" + cur + " = " + zero + ") : (index) -> index {");
    line(go + " = arith.cmpi slt, " + cur + ", " + bound + " : index");
    line("scf.condition(" + go + ") " + cur + " : index");
    indent_ -= 2;
    line("} do {");
    line("^bb0(" + iv + ": index):");
    indent_ += 2;
    inner(iv);
    line(next + " = arith.addi " + iv + ", " + one + " : index");
    line("scf.yield " + next + " : index");
    close();
    return;
  }
  case LoopForm::Unrolled: {
    // [0, n - n mod 2) by twos with the body twice, then [n - n mod 2, n).
    std::string even;
    if (b[0] != '%') {
      even = std::to_string(std::stoll(b) / 2 * 2);
    } else {
      even = fresh("ev");
      const std::string odd = fresh("od");
      line(odd + " = arith.remsi " + b + ", " + indexConst(2) + " : index");
      line(even + " = arith.subi " + b + ", " + odd + " : index");
    }
    const std::string evenValue = indexValue(even);
    const std::string two = indexConst(2);
    const std::string iv = fresh("i"), iv1 = fresh("i");
    open("scf.for " + iv + " = " + zero + " to " + evenValue + " step " + two + " {");
    inner(iv);
    line(iv1 + " = arith.addi " + iv + ", " + one + " : index");
    inner(iv1);
    close();
    if (b[0] == '%' || even != b) {
      const std::string t = fresh("i");
      open("scf.for " + t + " = " + evenValue + " to " + bound + " step " + one + " {");
      inner(t);
      close();
    }
    return;
  }
  case LoopForm::Tiled: {
    // Blocks of three; the last one is shorter when three does not divide n.
    const std::string three = indexConst(3);
    const std::string o = fresh("o"), rest = fresh("rs"), len = fresh("ln"), u = fresh("u"),
                      iv = fresh("i");
    open("scf.for " + o + " = " + zero + " to " + bound + " step " + three + " {");
    line(rest + " = arith.subi " + bound + ", " + o + " : index");
    line(len + " = arith.minsi " + rest + ", " + three + " : index");
    open("scf.for " + u + " = " + zero + " to " + len + " step " + one + " {");
    line(iv + " = arith.addi " + o + ", " + u + " : index");
    inner(iv);
    close();
    close();
    return;
  }
  }
}

std::string AffineEmitter::openCarried(const std::string &result, int64_t from, int64_t n,
                                       const std::vector<std::string> &carried,
                                       const std::vector<std::string> &inits,
                                       const std::vector<std::string> &types) {
  const std::string k = fresh("k");
  std::vector<std::string> args;
  for (size_t i = 0; i < carried.size(); ++i)
    args.push_back(carried[i] + " = " + inits[i]);
  const std::string lhs =
      result + (carried.size() > 1 ? ":" + std::to_string(carried.size()) : "") + " = ";
  const std::string tail = " iter_args(" + joined(args) + ") -> (" + joined(types) + ") {";
  if (plan.loops == LoopForm::AffineFor) {
    affineIvs_.insert(k);
    line(lhs + "affine.for " + k + " = " + std::to_string(from) + " to " + std::to_string(n) +
         tail);
  } else {
    const std::string lo = indexConst(from);
    const std::string hi = indexConst(n);
    const std::string one = indexConst(1);
    line(lhs + "scf.for " + k + " = " + lo + " to " + hi + " step " + one + tail);
  }
  indent_ += 2;
  return k;
}

void AffineEmitter::closeCarried(const std::vector<std::string> &yields,
                                 const std::vector<std::string> &types) {
  line(std::string(plan.loops == LoopForm::AffineFor ? "affine.yield " : "scf.yield ") +
       joined(yields) + " : " + joined(types));
  indent_ -= 2;
  line("}");
}

std::vector<std::string> AffineEmitter::boundsOf(ValueId v, bool validOnly) {
  std::vector<std::string> bounds;
  for (int64_t d : c_.typeOf(v).shape)
    bounds.push_back(std::to_string(d));
  const Buffer &b = buf(v);
  if (validOnly && !b.rows.empty()) {
    bounds[0] = b.rows;
    bounds[1] = b.cols;
  }
  return bounds;
}

const Buffer &AffineEmitter::alloc(ValueId v) {
  Buffer b;
  b.type = memrefType(c_.typeOf(v));
  b.memref = fresh("buf");
  line(b.memref + " = memref.alloc() : " + b.type);
  allocs_.push_back(b.memref + " : " + b.type);
  return bufs_[v] = b;
}

bool AffineEmitter::isAffineSubscript(const std::string &s) const {
  return s[0] != '%' || affineIvs_.count(s) || s.find(' ') != std::string::npos;
}

std::vector<std::string> AffineEmitter::ssaSubscripts(const std::vector<std::string> &subscripts) {
  std::vector<std::string> out;
  for (const std::string &s : subscripts)
    out.push_back(indexValue(s));
  return out;
}

std::string AffineEmitter::subscriptOf(const IndexExpr &e, const std::vector<std::string> &ivs) {
  bool affine = plan.index == IndexForm::AffineMap;
  for (const std::string &iv : ivs)
    affine = affine && affineIvs_.count(iv);
  // IndexExpr::str writes expressions with spaces (isAffineSubscript).
  return affine ? e.str(ivs) : indexOf(e, ivs);
}

std::string AffineEmitter::loadFrom(const std::string &memref, const std::string &type,
                                    const std::vector<std::string> &subscripts) {
  bool affine = true;
  for (const std::string &s : subscripts)
    affine = affine && isAffineSubscript(s);
  const std::string x = fresh();
  if (affine)
    line(x + " = affine.load " + memref + "[" + joined(subscripts) + "] : " + type);
  else
    line(x + " = memref.load " + memref + "[" + joined(ssaSubscripts(subscripts)) + "] : " + type);
  return x;
}

std::string AffineEmitter::load(ValueId v, const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  return loadFrom(b.memref, b.type, subscripts);
}

void AffineEmitter::store(const std::string &x, ValueId v,
                          const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  storeTo(x, b.memref, b.type, subscripts);
}

void AffineEmitter::storeTo(const std::string &x, const std::string &memref,
                            const std::string &type, const std::vector<std::string> &subscripts) {
  bool affine = true;
  for (const std::string &s : subscripts)
    affine = affine && isAffineSubscript(s);
  if (affine)
    line("affine.store " + x + ", " + memref + "[" + joined(subscripts) + "] : " + type);
  else
    line("memref.store " + x + ", " + memref + "[" + joined(ssaSubscripts(subscripts)) +
         "] : " + type);
}

bool AffineEmitter::maskedCopyOut(size_t k, ValueId v) {
  const TensorType &t = c_.typeOf(v);
  if (!maskedRowsApply(v))
    return false;
  line("// output " + std::to_string(k) + ": its valid region by masked rows");
  maskedRows(v, outputArg(k), memrefType(t), {0, 0}, t.shape[1]);
  return true;
}

bool AffineEmitter::maskedRowsApply(ValueId v) const {
  const TensorType &t = c_.typeOf(v);
  // Plain rows of numbers only: a strided source, and i1 or index lanes,
  // take the loop nest.
  return t.rank() == 2 && buf(v).type == memrefType(t) && t.dtype != DType::I1 &&
         t.dtype != DType::Index;
}

void AffineEmitter::maskedRows(ValueId v, const std::string &to, const std::string &toType,
                               const std::vector<int64_t> &at, int64_t toCols) {
  const TensorType &t = c_.typeOf(v);
  const Buffer &b = buf(v);
  constexpr int64_t kLanes = 8;
  const std::vector<std::string> bounds = boundsOf(v, true);
  const std::string vt = "vector<" + std::to_string(kLanes) + "x" + elemType(t.dtype) + ">";
  const std::string pad = zeroOf(t.dtype);
  const std::string r = fresh("r"), j = fresh("j"), rest = fresh("rest"), mask = fresh("mask"),
                    x = fresh("v");
  line("scf.for " + r + " = " + indexConst(0) + " to " + indexValue(bounds[0]) + " step " +
       indexConst(1) + " {");
  indent_ += 2;
  line("scf.for " + j + " = " + indexConst(0) + " to " + indexValue(bounds[1]) + " step " +
       indexConst(kLanes) + " {");
  indent_ += 2;
  // The mask ends at the valid columns, inside the row when the region is
  // narrower than the tile or lands inside a wider destination.
  line(rest + " = arith.subi " + indexValue(bounds[1]) + ", " + j + " : index");
  line(mask + " = vector.create_mask " + rest + " : vector<" + std::to_string(kLanes) + "xi1>");
  line(x + " = vector.transfer_read " + b.memref + "[" + r + ", " + j + "], " + pad + ", " + mask +
       " {in_bounds = [false]} : " + b.type + ", " + vt);
  std::string tr = r, tj = j;
  if (at[0] != 0) {
    tr = fresh("r");
    line(tr + " = arith.addi " + r + ", " + indexConst(at[0]) + " : index");
  }
  if (at[1] != 0) {
    tj = fresh("j");
    line(tj + " = arith.addi " + j + ", " + indexConst(at[1]) + " : index");
  }
  line("vector.transfer_write " + x + ", " + to + "[" + tr + ", " + tj + "], " + mask +
       " {in_bounds = [false]} : " + vt + ", " + toType);
  indent_ -= 2;
  line("}");
  indent_ -= 2;
  line("}");
  if ((t.valid && (t.valid->dynamic || t.valid->cols < t.shape[1])) || at[1] + t.shape[1] < toCols)
    out_.maskInsideBuffer = true;
}

// --- Ops ------------------------------------------------------------------------

void AffineEmitter::emitElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  alloc(res);
  const OpCategory cat = opCategory(op.kind);
  if (rt.valid) {
    // The valid region of an elementwise result is the intersection of its
    // operands'; the loops cover only that region.
    Buffer &b = bufs_[res];
    const size_t n =
        cat == OpCategory::RowExpand || cat == OpCategory::ColExpand ? 1 : op.operands.size();
    for (size_t i = 0; i < n; ++i) {
      const Buffer &ob = buf(op.operands[i]);
      b.rows = minBound(b.rows, ob.rows);
      b.cols = minBound(b.cols, ob.cols);
    }
  }
  if (plan.flatten == FlattenForm::Collapsed && flatElementwise(op))
    return;
  loopNest(boundsOf(res, true), [&](const std::vector<std::string> &ivs) {
    std::vector<std::string> xs;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      std::vector<std::string> sub = ivs;
      if (i == 1 && cat == OpCategory::RowExpand)
        sub = {ivs[0], "0"};
      else if (i == 1 && cat == OpCategory::ColExpand)
        sub = {"0", ivs[1]};
      xs.push_back(load(op.operands[i], sub));
    }
    store(elementwise(op, xs), res, ivs);
  });
}

bool AffineEmitter::flatElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  // Every element of every buffer, in the same row-major order: a valid
  // region, an expanded operand or a strided view keeps the nest.
  if (rt.rank() < 2 || rt.valid || !buf(res).rows.empty())
    return false;
  for (ValueId v : op.operands)
    if (c_.typeOf(v).shape != rt.shape || buf(v).type != memrefType(c_.typeOf(v)))
      return false;
  std::vector<std::string> all;
  for (unsigned j = 0; j < rt.rank(); ++j)
    all.push_back(std::to_string(j));
  const std::string n = std::to_string(rt.numElements());
  auto collapsed = [&](ValueId v, std::string &type) {
    const TensorType &t = c_.typeOf(v);
    type = "memref<" + n + "x" + elemType(t.dtype) + ">";
    const std::string flat = fresh("flat");
    line(flat + " = memref.collapse_shape " + buf(v).memref + " [[" + joined(all) +
         "]] : " + buf(v).type + " into " + type);
    return flat;
  };
  line("// flat: every buffer collapsed to one dim");
  std::vector<std::string> flats, types(op.operands.size());
  for (size_t i = 0; i < op.operands.size(); ++i)
    flats.push_back(collapsed(op.operands[i], types[i]));
  std::string resType;
  const std::string resFlat = collapsed(res, resType);
  loopNest({n}, [&](const std::vector<std::string> &ivs) {
    std::vector<std::string> xs;
    for (size_t i = 0; i < flats.size(); ++i)
      xs.push_back(loadFrom(flats[i], types[i], ivs));
    storeTo(elementwise(op, xs), resFlat, resType, ivs);
  });
  return true;
}

namespace {
/// Whether `e` has no floordiv or mod: an affine-linear function of the dims.
bool isLinear(const IndexExpr &e) { return e.countFloorDivMod() == 0; }

/// `memref<4x8xf32, strided<[16, 2], offset: 3>>`.
std::string stridedType(const TensorType &t, const std::vector<int64_t> &strides, int64_t offset) {
  std::string s = "memref<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  std::vector<std::string> st;
  for (int64_t x : strides)
    st.push_back(std::to_string(x));
  return s + EmitterBase::elemType(t.dtype) + ", strided<[" + EmitterBase::joined(st) +
         "], offset: " + std::to_string(offset) + ">>";
}

std::string ints(const std::vector<int64_t> &v) {
  std::vector<std::string> s;
  for (int64_t x : v)
    s.push_back(std::to_string(x));
  return EmitterBase::joined(s);
}
} // namespace

bool AffineEmitter::stridedView(const Op &op, std::string &memref, std::string &type) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src), &rt = c_.typeOf(res);
  const Buffer &sb = buf(src); // an identity layout: an alloc or an argument
  const std::vector<IndexExpr> map = viewIndexMap(c_, op);
  // The element at result position p is at sum_j ss[j] * map[j](p) of the
  // source's storage: for linear maps an offset plus a stride per dim.
  const std::vector<int64_t> ss = rowMajorStrides(st.shape);
  std::vector<int64_t> origin(rt.rank(), 0), strides(rt.rank(), 0);
  int64_t offset = 0;
  for (size_t j = 0; j < map.size(); ++j) {
    if (!isLinear(map[j]))
      return false;
    offset += ss[j] * map[j].eval(origin);
  }
  for (unsigned d = 0; d < rt.rank(); ++d) {
    std::vector<int64_t> unit(rt.rank(), 0);
    unit[d] = 1;
    for (size_t j = 0; j < map.size(); ++j)
      strides[d] += ss[j] * (map[j].eval(unit) - map[j].eval(origin));
    if (strides[d] < 0)
      return false;
  }
  if (offset < 0)
    return false;
  memref = fresh("view");
  type = stridedType(rt, strides, offset);
  switch (op.kind) {
  case OpKind::Slice:
  case OpKind::Chunk: {
    std::vector<int64_t> offs, steps;
    for (unsigned j = 0; j < st.rank(); ++j) {
      const bool chunked = op.kind == OpKind::Chunk && j == op.attrs.axis;
      offs.push_back(op.kind == OpKind::Slice ? op.attrs.offsets[j]
                     : chunked                ? op.attrs.index * rt.shape[j]
                                              : 0);
      steps.push_back(op.kind == OpKind::Slice ? op.attrs.strides[j] : 1);
    }
    line(memref + " = memref.subview " + sb.memref + "[" + ints(offs) + "] [" + ints(rt.shape) +
         "] [" + ints(steps) + "] : " + sb.type + " to " + type);
    return true;
  }
  case OpKind::Transpose: {
    std::vector<std::string> perm;
    for (int64_t p : op.attrs.perm)
      perm.push_back("d" + std::to_string(p));
    line(memref + " = memref.transpose " + sb.memref + " (" + dims(st.rank()) + ") -> (" +
         joined(perm) + ") : " + sb.type + " to " + type);
    return true;
  }
  case OpKind::Reshape:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze: {
    // Through one dimension: collapse every source dim, expand to the result.
    // Both keep an identity layout on a contiguous buffer.
    const int64_t n = rt.numElements();
    const std::string flat = "memref<" + std::to_string(n) + "x" + elemType(st.dtype) + ">";
    std::string cur = sb.memref;
    if (st.rank() > 1) {
      std::vector<std::string> all;
      for (unsigned j = 0; j < st.rank(); ++j)
        all.push_back(std::to_string(j));
      cur = fresh("flat");
      line(cur + " = memref.collapse_shape " + sb.memref + " [[" + joined(all) + "]] : " + sb.type +
           " into " + flat);
    }
    type = memrefType(rt);
    if (rt.rank() == 1) {
      memref = cur;
      return true;
    }
    std::vector<std::string> all;
    for (unsigned j = 0; j < rt.rank(); ++j)
      all.push_back(std::to_string(j));
    line(memref + " = memref.expand_shape " + cur + " [[" + joined(all) + "]] output_shape [" +
         ints(rt.shape) + "] : " + flat + " into " + type);
    return true;
  }
  case OpKind::Broadcast:
  case OpKind::IndexMap:
    line(memref + " = memref.reinterpret_cast " + sb.memref + " to offset: [" +
         std::to_string(offset) + "], sizes: [" + ints(rt.shape) + "], strides: [" + ints(strides) +
         "] : " + sb.type + " to " + type);
    return true;
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false;
}

void AffineEmitter::emitView(const Op &op) {
  const ValueId res = op.results[0];
  std::string view, viewType;
  const bool strided = plan.views == ViewForm::Strided && stridedView(op, view, viewType);
  alloc(res);
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    if (strided)
      return store(loadFrom(view, viewType, ivs), res, ivs);
    std::vector<std::string> sub;
    for (const IndexExpr &e : viewIndexMap(c_, op))
      sub.push_back(subscriptOf(e, ivs));
    store(load(op.operands[0], sub), res, ivs);
  });
}

void AffineEmitter::emitSource(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &t = c_.typeOf(res);
  alloc(res);
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    const std::string x = op.kind == OpKind::Const ? scalarConst(op.attrs.value, t.dtype)
                                                   : fromIndex(ivs[op.attrs.axis], t.dtype);
    store(x, res, ivs);
  });
}

void AffineEmitter::emitFillPad(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const DType t = c_.typeOf(res).dtype;
  alloc(res);
  const Buffer sb = buf(src);
  loopNest(boundsOf(res, false), [&](const std::vector<std::string> &ivs) {
    std::string x = load(src, ivs);
    if (!sb.rows.empty()) {
      const std::string inRow = below(ivs[0], sb.rows);
      const std::string inCol = below(ivs[1], sb.cols);
      const std::string inside = fresh(), r = fresh();
      line(inside + " = arith.andi " + inRow + ", " + inCol + " : i1");
      const std::string pad = padValue(op.attrs.pad, t);
      line(r + " = arith.select " + inside + ", " + x + ", " + pad + " : " + elemType(t));
      x = r;
    }
    store(x, res, ivs);
  });
}

bool AffineEmitter::insertBySubview(ValueId src, ValueId res, const std::vector<int64_t> &at) {
  const TensorType &st = c_.typeOf(src);
  const Buffer &sb = buf(src), &rb = buf(res);
  if (sb.type != memrefType(st))
    return false;
  // Both regions as strided subviews with the region's (runtime) sizes.
  const std::vector<std::string> bounds = boundsOf(src, true);
  const std::vector<int64_t> toStrides = rowMajorStrides(c_.typeOf(res).shape);
  std::vector<std::string> sizes, zeros, ones, offsets;
  int64_t offset = 0;
  for (size_t d = 0; d < bounds.size(); ++d) {
    sizes.push_back(indexValue(bounds[d]));
    zeros.push_back("0");
    ones.push_back("1");
    offsets.push_back(std::to_string(at[d]));
    offset += at[d] * toStrides[d];
  }
  auto strided = [&](const std::vector<int64_t> &strides, int64_t off) {
    std::string ty = "memref<";
    for (size_t d = 0; d < bounds.size(); ++d)
      ty += "?x";
    return ty + elemType(st.dtype) + ", strided<[" + ints(strides) +
           "], offset: " + std::to_string(off) + ">>";
  };
  line("// insert: the region by subview and copy");
  const std::string from = fresh("region"), to = fresh("region");
  const std::string fromType = strided(rowMajorStrides(st.shape), 0),
                    toType = strided(toStrides, offset);
  line(from + " = memref.subview " + sb.memref + "[" + joined(zeros) + "] [" + joined(sizes) +
       "] [" + joined(ones) + "] : " + sb.type + " to " + fromType);
  line(to + " = memref.subview " + rb.memref + "[" + joined(offsets) + "] [" + joined(sizes) +
       "] [" + joined(ones) + "] : " + rb.type + " to " + toType);
  line("memref.copy " + from + ", " + to + " : " + fromType + " to " + toType);
  return true;
}

void AffineEmitter::emitInsert(const Op &op) {
  const ValueId dest = op.operands[0], src = op.operands[1], res = op.results[0];
  const TensorType &dt = c_.typeOf(dest);
  const std::vector<int64_t> &at = op.attrs.offsets;
  const Buffer db = buf(dest);
  alloc(res);
  // The result is the destination's copy, with the destination's region.
  bufs_[res].rows = db.rows;
  bufs_[res].cols = db.cols;
  const Buffer rb = buf(res);
  if (db.type == rb.type) {
    line("memref.copy " + db.memref + ", " + rb.memref + " : " + db.type + " to " + rb.type);
  } else {
    loopNest(boundsOf(res, false),
             [&](const std::vector<std::string> &ivs) { store(load(dest, ivs), res, ivs); });
  }
  const std::vector<std::string> bounds = boundsOf(src, true);
  switch (plan.inserts) {
  case InsertForm::Loops: break;
  case InsertForm::SubviewCopy:
    if (insertBySubview(src, res, at))
      return;
    break;
  case InsertForm::MaskedVectors:
    if (!maskedRowsApply(src))
      break;
    line("// insert: the region by masked rows");
    maskedRows(src, rb.memref, rb.type, at, dt.shape[1]);
    return;
  }
  line("// insert: the region by loops");
  loopNest(bounds, [&](const std::vector<std::string> &ivs) {
    std::vector<std::string> to;
    for (size_t d = 0; d < ivs.size(); ++d)
      to.push_back(at[d] == 0 ? ivs[d]
                              : subscriptOf(IndexExpr::add(IndexExpr::dim(static_cast<unsigned>(d)),
                                                           IndexExpr::constant(at[d])),
                                            ivs));
    store(load(src, ivs), res, to);
  });
}

void AffineEmitter::emitSetValidShape(const Op &op, const std::string &rows,
                                      const std::string &cols) {
  // No data moves: the result aliases its operand with a narrower region.
  Buffer b = buf(op.operands[0]);
  b.rows = rows;
  b.cols = cols;
  bufs_[op.results[0]] = b;
}

EmitterBase::Crossing AffineEmitter::crossingOf(ValueId v) const {
  const Buffer &b = buf(v);
  return {b.memref, b.type, b.rows, b.cols};
}

void AffineEmitter::bindCrossing(ValueId v, const Crossing &c) {
  bufs_[v] = Buffer{c.value, c.type, c.rows, c.cols};
}

std::optional<EmitterBase::Crossing> AffineEmitter::handBuffer(ValueId v) {
  Crossing c;
  c.type = memrefType(c_.typeOf(v));
  c.value = fresh("hand");
  line(c.value + " = memref.alloc() : " + c.type);
  allocs_.push_back(c.value + " : " + c.type);
  return c;
}

std::optional<EmitterBase::Crossing> AffineEmitter::handOn(ValueId v,
                                                           const std::optional<Crossing> &into) {
  // Every element, not only the valid region: what lies outside it is
  // undefined, and a later task's op may still copy it along (insert).
  line("// hand on %" + std::to_string(v));
  loopNest(boundsOf(v, false), [&](const std::vector<std::string> &ivs) {
    storeTo(load(v, ivs), into->value, into->type, ivs);
  });
  return std::nullopt;
}

void AffineEmitter::beginTask(const std::vector<ValueId> &) { entryAllocs_.swap(allocs_); }

void AffineEmitter::endTask() {
  for (const std::string &a : allocs_)
    line("memref.dealloc " + a);
  allocs_.clear();
  entryAllocs_.swap(allocs_);
}

bool AffineEmitter::run() {
  const std::vector<std::string> params = kernelParams(&memrefType, &memrefType);
  int inputOrdinal = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    if (op.kind != OpKind::Input)
      continue;
    const ValueId v = op.results[0];
    Buffer b;
    b.memref = inputArg(inputOrdinal++);
    b.type = memrefType(c_.typeOf(v));
    if (const auto &valid = c_.typeOf(v).valid)
      std::tie(b.rows, b.cols) = validBounds(i, *valid);
    bufs_[v] = b;
  }
  if (!emitCaseOps(*this))
    return false;
  if (!unsupported.empty())
    return false;
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    const ValueId v = c_.outputs[k];
    const Buffer &b = buf(v);
    if (!c_.typeOf(v).valid) {
      line("memref.copy " + b.memref + ", " + outputArg(k) + " : " + b.type + " to " + b.type);
      continue;
    }
    // The valid region only: the rest of the output keeps what it held
    // (ir/Case.h).
    const std::string outType = memrefType(c_.typeOf(v));
    if (plan.outputs == OutputForm::MaskedVectors && maskedCopyOut(k, v))
      continue;
    line("// output " + std::to_string(k) + ": its valid region by loops");
    loopNest(boundsOf(v, true), [&](const std::vector<std::string> &ivs) {
      storeTo(load(v, ivs), outputArg(k), outType, ivs);
    });
  }
  for (const std::string &a : allocs_)
    line("memref.dealloc " + a);
  assemble(params);
  return true;
}

} // namespace npufuzz
