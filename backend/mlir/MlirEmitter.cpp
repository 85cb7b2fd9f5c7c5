//===- backend/mlir/MlirEmitter.cpp - Lower a case to MLIR text -----------===//
//
// The module skeleton (signature, hoisted constants, buffers, output copies,
// deallocation) and the lowering of elementwise ops, views, sources and
// valid-shape ops. Reductions, topk, matmul and gather are in
// StructuredLowering.cpp; scalar semantics in ScalarLowering.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/EmitterCore.h"

#include "ir/Verifier.h"


namespace npufuzz {

std::string_view mlirStyleName(MlirStyle s) {
  switch (s) {
  case MlirStyle::Affine:
    return "affine";
  }
  return "?";
}

bool parseMlirStyle(std::string_view s, MlirStyle &out) {
  if (s == "affine") {
    out = MlirStyle::Affine;
    return true;
  }
  return false;
}

// --- Text ---------------------------------------------------------------------

void Emitter::line(const std::string &s) {
  body_ << std::string(indent_, ' ') << s << "\n";
}

std::string Emitter::fresh(const char *prefix) {
  return "%" + std::string(prefix) + std::to_string(counter_++);
}

std::string Emitter::elemType(DType t) { return std::string(dtypeName(t)); }

std::string Emitter::memrefType(const TensorType &t) {
  std::string s = "memref<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  return s + elemType(t.dtype) + ">";
}

// --- Constants ----------------------------------------------------------------

namespace {
std::string hex(uint32_t v, int digits) {
  static const char *d = "0123456789ABCDEF";
  std::string s = "0x";
  for (int i = digits - 1; i >= 0; --i)
    s += d[(v >> (4 * i)) & 15];
  return s;
}
} // namespace

std::string Emitter::indexConst(int64_t v) { return intConst(v, DType::Index); }

std::string Emitter::intConst(int64_t v, DType t) {
  const std::string text = t == DType::I1 ? (v ? "true" : "false")
                                          : std::to_string(v) + " : " + elemType(t);
  const std::string key = text + "/" + elemType(t);
  auto it = constants_.find(key);
  if (it != constants_.end())
    return it->second;
  const std::string name = fresh("c");
  hoisted_.push_back(name + " = arith.constant " + text);
  constants_[key] = name;
  return name;
}

std::string Emitter::floatConstBits(uint32_t bits, DType t) {
  const std::string text = hex(bits, t == DType::F32 ? 8 : 4) + " : " + elemType(t);
  auto it = constants_.find(text);
  if (it != constants_.end())
    return it->second;
  const std::string name = fresh("c");
  hoisted_.push_back(name + " = arith.constant " + text);
  constants_[text] = name;
  return name;
}

std::string Emitter::floatConst(float v, DType t) {
  switch (t) {
  case DType::BF16:
    return floatConstBits(floatToBF16Bits(v, RoundingMode::NearestEven), t);
  case DType::F16:
    return floatConstBits(floatToF16Bits(v, RoundingMode::NearestEven), t);
  default:
    return floatConstBits(floatBits(v), DType::F32);
  }
}

std::string Emitter::scalarConst(const Scalar &s, DType t) {
  return isFloat(t) ? floatConst(s.f, t) : intConst(wrapToWidth(s.i, t), t);
}

std::string Emitter::zeroOf(DType t) { return isFloat(t) ? floatConst(0.0f, t) : intConst(0, t); }

std::string Emitter::lowestOf(DType t) {
  return isFloat(t) ? floatConst(-__builtin_inff(), t) : intConst(minIntValue(t), t);
}

std::string Emitter::highestOf(DType t) {
  return isFloat(t) ? floatConst(__builtin_inff(), t) : intConst(maxIntValue(t), t);
}

// --- Loops and buffers ----------------------------------------------------------

std::vector<std::string> Emitter::openLoops(const std::vector<std::string> &bounds) {
  std::vector<std::string> ivs;
  for (const std::string &b : bounds) {
    const std::string iv = fresh("i");
    line("affine.for " + iv + " = 0 to " + b + " {");
    indent_ += 2;
    ivs.push_back(iv);
  }
  return ivs;
}

void Emitter::closeLoops(size_t n) {
  for (size_t i = 0; i < n; ++i) {
    indent_ -= 2;
    line("}");
  }
}

std::vector<std::string> Emitter::boundsOf(ValueId v, bool validOnly) {
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

const Buffer &Emitter::alloc(ValueId v) {
  Buffer b;
  b.type = memrefType(c_.typeOf(v));
  b.memref = fresh("buf");
  line(b.memref + " = memref.alloc() : " + b.type);
  allocs_.push_back(b.memref + " : " + b.type);
  return bufs_[v] = b;
}

std::string Emitter::load(ValueId v, const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  std::string s;
  for (size_t i = 0; i < subscripts.size(); ++i)
    s += (i ? ", " : "") + subscripts[i];
  const std::string x = fresh();
  line(x + " = affine.load " + b.memref + "[" + s + "] : " + b.type);
  return x;
}

void Emitter::store(const std::string &x, ValueId v, const std::vector<std::string> &subscripts) {
  const Buffer &b = buf(v);
  std::string s;
  for (size_t i = 0; i < subscripts.size(); ++i)
    s += (i ? ", " : "") + subscripts[i];
  line("affine.store " + x + ", " + b.memref + "[" + s + "] : " + b.type);
}

// --- Ops ------------------------------------------------------------------------

namespace {
/// min of two loop bounds, folding literals.
std::string minBound(Emitter &e, const std::string &a, const std::string &b) {
  if (a.empty())
    return b;
  if (b.empty())
    return a;
  const bool litA = a[0] != '%', litB = b[0] != '%';
  if (litA && litB)
    return std::stoll(a) <= std::stoll(b) ? a : b;
  const std::string x = e.fresh("vb");
  e.line(x + " = arith.minsi " + (litA ? e.indexConst(std::stoll(a)) : a) + ", " +
         (litB ? e.indexConst(std::stoll(b)) : b) + " : index");
  return x;
}
} // namespace

void Emitter::emitElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  alloc(res);
  if (rt.valid) {
    // The valid region of an elementwise result is the intersection of its
    // operands'; the loops cover only that region.
    Buffer &b = bufs_[res];
    const size_t n = opCategory(op.kind) == OpCategory::RowExpand ||
                             opCategory(op.kind) == OpCategory::ColExpand
                         ? 1
                         : op.operands.size();
    for (size_t i = 0; i < n; ++i) {
      const Buffer &ob = buf(op.operands[i]);
      b.rows = minBound(*this, b.rows, ob.rows);
      b.cols = minBound(*this, b.cols, ob.cols);
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
  const DType t = c_.typeOf(op.operands[0]).dtype;
  std::string r;
  switch (cat) {
  case OpCategory::Unary:
    r = unary(op.kind, t, xs[0]);
    break;
  case OpCategory::Binary:
    r = binary(op.kind, t, xs[0], xs[1]);
    break;
  case OpCategory::Compare:
    r = compare(op.kind, t, xs[0], xs[1]);
    break;
  case OpCategory::RowExpand:
  case OpCategory::ColExpand:
    r = binary(expandBaseOp(op.kind), t, xs[0], xs[1]);
    break;
  default:
    if (op.kind == OpKind::Select) {
      r = fresh();
      line(r + " = arith.select " + xs[0] + ", " + xs[1] + ", " + xs[2] + " : " +
           elemType(rt.dtype));
    } else if (op.kind == OpKind::MaskedFill) {
      r = fresh();
      line(r + " = arith.select " + xs[1] + ", " + scalarConst(op.attrs.value, rt.dtype) +
           ", " + xs[0] + " : " + elemType(rt.dtype));
    } else { // Cast
      r = cast(xs[0], t, rt.dtype, op.attrs.rounding);
    }
  }
  store(r, res, ivs);
  closeLoops(ivs.size());
}

void Emitter::emitView(const Op &op) {
  const ValueId res = op.results[0];
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  std::vector<std::string> sub;
  for (const IndexExpr &e : viewIndexMap(c_, op))
    sub.push_back(e.str(ivs));
  store(load(op.operands[0], sub), res, ivs);
  closeLoops(ivs.size());
}

void Emitter::emitSource(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &t = c_.typeOf(res);
  alloc(res);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  const std::string x = op.kind == OpKind::Const ? scalarConst(op.attrs.value, t.dtype)
                                                 : fromIndex(ivs[op.attrs.axis], t.dtype);
  store(x, res, ivs);
  closeLoops(ivs.size());
}

void Emitter::emitFillPad(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const DType t = c_.typeOf(res).dtype;
  alloc(res);
  const Buffer sb = buf(src);
  const std::vector<std::string> ivs = openLoops(boundsOf(res, false));
  std::string x = load(src, ivs);
  if (!sb.rows.empty()) {
    auto bound = [&](const std::string &b) { return b[0] == '%' ? b : indexConst(std::stoll(b)); };
    const std::string inRow = fresh(), inCol = fresh(), inside = fresh(), r = fresh();
    line(inRow + " = arith.cmpi slt, " + ivs[0] + ", " + bound(sb.rows) + " : index");
    line(inCol + " = arith.cmpi slt, " + ivs[1] + ", " + bound(sb.cols) + " : index");
    line(inside + " = arith.andi " + inRow + ", " + inCol + " : i1");
    const std::string pad = op.attrs.pad == PadKind::Zero  ? zeroOf(t)
                            : op.attrs.pad == PadKind::Min ? lowestOf(t)
                                                           : highestOf(t);
    line(r + " = arith.select " + inside + ", " + x + ", " + pad + " : " + elemType(t));
    x = r;
  }
  store(x, res, ivs);
  closeLoops(ivs.size());
}

void Emitter::emitOp(size_t opIndex) {
  const Op &op = c_.ops[opIndex];
  line("// " + std::string(opName(op.kind)));
  switch (op.kind) {
  case OpKind::Input:
    return; // bound to a kernel argument
  case OpKind::Const:
  case OpKind::Iota:
    return emitSource(op);
  case OpKind::SetValidShape: {
    // No data moves: the result aliases its operand with a narrower region.
    Buffer b = buf(op.operands[0]);
    const std::string prefix = "%vdim" + std::to_string(opIndex);
    b.rows = op.attrs.dynamic ? prefix + "_r" : std::to_string(op.attrs.rows);
    b.cols = op.attrs.dynamic ? prefix + "_c" : std::to_string(op.attrs.cols);
    bufs_[op.results[0]] = b;
    return;
  }
  case OpKind::FillPad:
    return emitFillPad(op);
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
    return emitReduce(op);
  case OpKind::ArgMax:
    return emitArgMax(op);
  case OpKind::TopK:
    return emitTopK(op);
  case OpKind::Matmul:
    return emitMatmul(op);
  case OpKind::Gather:
    return emitGather(op);
  default:
    if (isView(op.kind))
      return emitView(op);
    return emitElementwise(op);
  }
}

bool Emitter::run() {
  std::vector<std::string> params;
  int inputOrdinal = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    if (op.kind != OpKind::Input)
      continue;
    const ValueId v = op.results[0];
    Buffer b;
    b.memref = "%in" + std::to_string(inputOrdinal);
    b.type = memrefType(c_.typeOf(v));
    if (const auto &valid = c_.typeOf(v).valid) {
      const std::string prefix = "%vdim" + std::to_string(i);
      b.rows = valid->dynamic ? prefix + "_r" : std::to_string(valid->rows);
      b.cols = valid->dynamic ? prefix + "_c" : std::to_string(valid->cols);
    }
    bufs_[v] = b;
    params.push_back(b.memref + ": " + b.type);
    out_.args.push_back({KernelArg::Kind::Input, inputOrdinal++, 0, 0});
  }
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    params.push_back("%out" + std::to_string(k) + ": " + memrefType(c_.typeOf(c_.outputs[k])));
    out_.args.push_back({KernelArg::Kind::Output, static_cast<int>(k), 0, 0});
  }
  // Runtime valid-shape dimensions: inputs and set_validshape ops marked dyn.
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    std::optional<ValidShape> v;
    if (op.kind == OpKind::SetValidShape && op.attrs.dynamic)
      v = ValidShape{op.attrs.rows, op.attrs.cols, true};
    else if (op.kind == OpKind::Input && c_.typeOf(op.results[0]).valid &&
             c_.typeOf(op.results[0]).valid->dynamic)
      v = c_.typeOf(op.results[0]).valid;
    if (!v)
      continue;
    const std::string prefix = "%vdim" + std::to_string(i);
    params.push_back(prefix + "_r: index");
    params.push_back(prefix + "_c: index");
    out_.args.push_back({KernelArg::Kind::ValidDim, static_cast<int>(i), 0, v->rows});
    out_.args.push_back({KernelArg::Kind::ValidDim, static_cast<int>(i), 1, v->cols});
  }

  for (size_t i = 0; i < c_.ops.size(); ++i)
    emitOp(i);
  if (!unsupported.empty())
    return false;
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    const Buffer &b = buf(c_.outputs[k]);
    line("memref.copy " + b.memref + ", %out" + std::to_string(k) + " : " + b.type + " to " +
         b.type);
  }
  for (const std::string &a : allocs_)
    line("memref.dealloc " + a);

  std::ostringstream m;
  m << "module {\n";
  for (const std::string &d : runtimeDecls_)
    m << "  " << d << "\n";
  m << "  func.func @" << out_.entry << "(";
  for (size_t i = 0; i < params.size(); ++i)
    m << (i ? ", " : "") << params[i];
  m << ") attributes {llvm.emit_c_interface} {\n";
  for (const std::string &h : hoisted_)
    m << "    " << h << "\n";
  // The body was emitted at indent 2; nest it one level deeper.
  std::istringstream body(body_.str());
  for (std::string l; std::getline(body, l);)
    m << "  " << l << "\n";
  m << "    return\n  }\n}\n";
  out_.text = m.str();
  return true;
}

bool emitMlir(const Case &c, const MlirEmitOptions &options, MlirKernel &out,
              std::string &unsupported) {
  out = MlirKernel();
  Emitter e(c, out);
  const bool ok = e.run();
  unsupported = e.unsupported;
  return ok;
}

} // namespace npufuzz
