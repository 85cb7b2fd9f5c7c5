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

std::vector<std::string> AffineEmitter::openLoops(const std::vector<std::string> &bounds) {
  std::vector<std::string> ivs;
  for (const std::string &b : bounds) {
    const std::string iv = fresh("i");
    line("affine.for " + iv + " = 0 to " + b + " {");
    indent_ += 2;
    ivs.push_back(iv);
  }
  return ivs;
}

void AffineEmitter::closeLoops(size_t n) {
  for (size_t i = 0; i < n; ++i) {
    indent_ -= 2;
    line("}");
  }
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

std::string AffineEmitter::load(ValueId v, const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  std::string s;
  for (size_t i = 0; i < subscripts.size(); ++i)
    s += (i ? ", " : "") + subscripts[i];
  const std::string x = fresh();
  line(x + " = affine.load " + b.memref + "[" + s + "] : " + b.type);
  return x;
}

void AffineEmitter::store(const std::string &x, ValueId v,
                          const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  std::string s;
  for (size_t i = 0; i < subscripts.size(); ++i)
    s += (i ? ", " : "") + subscripts[i];
  line("affine.store " + x + ", " + b.memref + "[" + s + "] : " + b.type);
}

// --- Ops ------------------------------------------------------------------------

void AffineEmitter::emitElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  alloc(res);
  if (rt.valid) {
    // The valid region of an elementwise result is the intersection of its
    // operands'; the loops cover only that region.
    Buffer &b = bufs_[res];
    const size_t n =
        opCategory(op.kind) == OpCategory::RowExpand || opCategory(op.kind) == OpCategory::ColExpand
            ? 1
            : op.operands.size();
    for (size_t i = 0; i < n; ++i) {
      const Buffer &ob = buf(op.operands[i]);
      b.rows = minBound(b.rows, ob.rows);
      b.cols = minBound(b.cols, ob.cols);
    }
  }
  const std::vector<std::string> ivs = openLoops(boundsOf(res, true));
  std::vector<std::string> xs;
  const OpCategory cat = opCategory(op.kind);
  for (size_t i = 0; i < op.operands.size(); ++i) {
    std::vector<std::string> sub = ivs;
    if (i == 1 && cat == OpCategory::RowExpand)
      sub = {ivs[0], "0"};
    else if (i == 1 && cat == OpCategory::ColExpand)
      sub = {"0", ivs[1]};
    xs.push_back(load(op.operands[i], sub));
  }
  store(elementwise(op, xs), res, ivs);
  closeLoops(ivs.size());
}

void AffineEmitter::emitView(const Op &op) {
  const ValueId res = op.results[0];
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  std::vector<std::string> sub;
  for (const IndexExpr &e : viewIndexMap(c_, op))
    sub.push_back(e.str(ivs));
  store(load(op.operands[0], sub), res, ivs);
  closeLoops(ivs.size());
}

void AffineEmitter::emitSource(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &t = c_.typeOf(res);
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  const std::string x = op.kind == OpKind::Const ? scalarConst(op.attrs.value, t.dtype)
                                                 : fromIndex(ivs[op.attrs.axis], t.dtype);
  store(x, res, ivs);
  closeLoops(ivs.size());
}

void AffineEmitter::emitFillPad(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const DType t = c_.typeOf(res).dtype;
  alloc(res);
  const Buffer sb = buf(src);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  std::string x = load(src, ivs);
  if (!sb.rows.empty()) {
    const std::string inRow = fresh(), inCol = fresh(), inside = fresh(), r = fresh();
    line(inRow + " = arith.cmpi slt, " + ivs[0] + ", " + indexValue(sb.rows) + " : index");
    line(inCol + " = arith.cmpi slt, " + ivs[1] + ", " + indexValue(sb.cols) + " : index");
    line(inside + " = arith.andi " + inRow + ", " + inCol + " : i1");
    const std::string pad = padValue(op.attrs.pad, t);
    line(r + " = arith.select " + inside + ", " + x + ", " + pad + " : " + elemType(t));
    x = r;
  }
  store(x, res, ivs);
  closeLoops(ivs.size());
}

void AffineEmitter::emitSetValidShape(const Op &op, const std::string &rows,
                                      const std::string &cols) {
  // No data moves: the result aliases its operand with a narrower region.
  Buffer b = buf(op.operands[0]);
  b.rows = rows;
  b.cols = cols;
  bufs_[op.results[0]] = b;
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
  for (size_t i = 0; i < c_.ops.size(); ++i)
    emitOp(i);
  if (!unsupported.empty())
    return false;
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    const Buffer &b = buf(c_.outputs[k]);
    line("memref.copy " + b.memref + ", " + outputArg(k) + " : " + b.type + " to " + b.type);
  }
  for (const std::string &a : allocs_)
    line("memref.dealloc " + a);
  assemble(params);
  return true;
}

} // namespace npufuzz
