//===- backend/mlir/TensorLowering.cpp - The tensor lowering style --------===//
//
// linalg.generic assembly, values, and the lowering of elementwise ops,
// views, sources and valid-shape ops. Reductions, argmax, topk, matmul and
// gather are in TensorStructured.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/TensorLowering.h"

#include "ir/Verifier.h"

#include <algorithm>

namespace npufuzz {

namespace {

/// Whether `e` may equal loop dim `d` everywhere in `extents`: MLIR folds
/// such an expression to the bare dim when it builds the map (e.g.
/// `(d0 * 2) floordiv 2` to `d0`). False only with a witness point.
bool mayFoldToDim(const IndexExpr &e, unsigned d, const std::vector<int64_t> &extents) {
  std::vector<std::vector<int64_t>> points = {std::vector<int64_t>(extents.size(), 0)};
  for (size_t k = 0; k < extents.size(); ++k) {
    std::vector<int64_t> one(extents.size(), 0), last(extents.size(), 0);
    one[k] = std::min<int64_t>(1, extents[k] - 1);
    last[k] = extents[k] - 1;
    points.push_back(one);
    points.push_back(last);
  }
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int n = 0; n < 32; ++n) {
    std::vector<int64_t> p;
    for (int64_t x : extents) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      p.push_back(static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(x)));
    }
    points.push_back(p);
  }
  for (const std::vector<int64_t> &p : points)
    if (e.eval(p) != p[d])
      return false;
  return true;
}
} // namespace

namespace {
/// The linalg named op of a binary elementwise op whose semantics it has in
/// every dtype (max/min: NaN-propagating maximumf/minimumf, signed on
/// integers); null for the others.
const char *namedLinalgOp(OpKind k) {
  switch (k) {
  case OpKind::Add: return "linalg.add";
  case OpKind::Sub: return "linalg.sub";
  case OpKind::Mul: return "linalg.mul";
  case OpKind::Max: return "linalg.max";
  case OpKind::Min: return "linalg.min";
  case OpKind::Div: // floor division guarded against 0 and overflow
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    return nullptr;
  }
  return nullptr;
}
} // namespace

// --- linalg.generic -------------------------------------------------------------

std::vector<std::string> TensorEmitter::openGeneric(const std::string &results,
                                                    const std::vector<GenericOperand> &ins,
                                                    const std::vector<GenericOperand> &outs,
                                                    const std::vector<std::string> &iterators) {
  const std::string domain = "(" + dims(static_cast<unsigned>(iterators.size())) + ")";
  std::vector<std::string> maps, its;
  for (const GenericOperand &o : ins)
    maps.push_back("affine_map<" + domain + " -> (" + o.results + ")>");
  for (const GenericOperand &o : outs)
    maps.push_back("affine_map<" + domain + " -> (" + o.results + ")>");
  for (const std::string &it : iterators)
    its.push_back("\"" + it + "\"");
  auto operands = [](const char *kw, const std::vector<GenericOperand> &ops) -> std::string {
    if (ops.empty())
      return "";
    std::vector<std::string> names, types;
    for (const GenericOperand &o : ops) {
      names.push_back(o.value);
      types.push_back(o.type);
    }
    return std::string(" ") + kw + "(" + joined(names) + " : " + joined(types) + ")";
  };
  line(results + " = linalg.generic {indexing_maps = [" + joined(maps) + "], iterator_types = [" +
       joined(its) + "]}" + operands("ins", ins) + operands("outs", outs) + " {");
  std::vector<std::string> args, decls;
  for (const auto *group : {&ins, &outs})
    for (const GenericOperand &o : *group) {
      args.push_back(fresh("a"));
      decls.push_back(args.back() + ": " + o.elem);
    }
  line("^bb0(" + joined(decls) + "):");
  indent_ += 2;
  return args;
}

void TensorEmitter::closeGeneric(const std::vector<std::string> &yields,
                                 const std::vector<GenericOperand> &outs) {
  std::vector<std::string> elems, types;
  for (const GenericOperand &o : outs) {
    elems.push_back(o.elem);
    types.push_back(o.type);
  }
  line("linalg.yield " + joined(yields) + " : " + joined(elems));
  indent_ -= 2;
  line(outs.size() == 1 ? "} -> " + types[0] : "} -> (" + joined(types) + ")");
}

std::string TensorEmitter::empty(const TensorType &t) {
  const std::string e = fresh("e");
  line(e + " = tensor.empty() : " + tensorType(t));
  return e;
}

std::string TensorEmitter::fill(const std::string &scalar, const TensorType &t) {
  const std::string e = empty(t), f = fresh("f"), ty = tensorType(t);
  line(f + " = linalg.fill ins(" + scalar + " : " + elemType(t.dtype) + ") outs(" + e + " : " + ty +
       ") -> " + ty);
  return f;
}

std::string TensorEmitter::loopIndex(unsigned d) {
  const std::string i = fresh("i");
  line(i + " = linalg.index " + std::to_string(d) + " : index");
  return i;
}

// --- Values ---------------------------------------------------------------------

void TensorEmitter::bind(ValueId v, const std::string &name) {
  TensorValue tv;
  tv.name = name;
  tv.type = tensorType(c_.typeOf(v));
  vals_[v] = tv;
}

GenericOperand TensorEmitter::operand(ValueId v, const std::string &results) const {
  return operand(val(v).name, c_.typeOf(v), results);
}

GenericOperand TensorEmitter::operand(const std::string &name, const TensorType &t,
                                      const std::string &results) {
  return {name, tensorType(t), elemType(t.dtype), results};
}

// --- Ops ------------------------------------------------------------------------

void TensorEmitter::emitElementwise(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const OpCategory cat = opCategory(op.kind);
  const bool expand = cat == OpCategory::RowExpand || cat == OpCategory::ColExpand;
  const std::string all = dims(rt.rank());
  std::vector<GenericOperand> ins;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    // The second operand of a row/col expand is broadcast along one dim.
    std::string results = all;
    if (i == 1 && cat == OpCategory::RowExpand)
      results = "d0, 0";
    else if (i == 1 && cat == OpCategory::ColExpand)
      results = "0, d1";
    ins.push_back(operand(op.operands[i], results));
  }
  const std::vector<GenericOperand> outs = {operand(empty(rt), rt, all)};
  const std::string r = fresh("ew");
  // Named ops take integer or float elements, not index.
  const bool namedForm = plan.linalg == LinalgForm::Named && rt.dtype != DType::Index;
  const OpKind base = expand ? expandBaseOp(op.kind) : op.kind;
  if (const char *named = namedForm ? namedLinalgOp(base) : nullptr) {
    // The named op computes in the element type: exact for these ops, whose
    // f16/bf16 results rounded once from f32 equal the f32 result rounded
    // (f32 has more than twice their precision, plus two bits). An expand's
    // second operand is collapsed to 1-D and broadcast first.
    std::string second = ins[1].value;
    if (expand) {
      const TensorType &bt = c_.typeOf(op.operands[1]);
      const int64_t n = bt.shape[cat == OpCategory::RowExpand ? 0 : 1];
      const std::string flatType = "tensor<" + std::to_string(n) + "x" + elemType(rt.dtype) + ">";
      const std::string flat = fresh("flat");
      line(flat + " = tensor.collapse_shape " + ins[1].value + " [[0, 1]] : " + ins[1].type +
           " into " + flatType);
      const std::string target = empty(rt);
      second = fresh("bc");
      line(second + " = linalg.broadcast ins(" + flat + " : " + flatType + ") outs(" + target +
           " : " + outs[0].type + ") dimensions = [" + (cat == OpCategory::RowExpand ? "1" : "0") +
           "]");
    }
    line(r + " = " + named + " ins(" + ins[0].value + ", " + second + " : " + ins[0].type + ", " +
         outs[0].type + ") outs(" + outs[0].value + " : " + outs[0].type + ") -> " + outs[0].type);
  } else {
    const std::vector<std::string> args =
        openGeneric(r, ins, outs, std::vector<std::string>(rt.rank(), "parallel"));
    const std::string y = elementwise(op, std::vector<std::string>(args.begin(), args.end() - 1));
    closeGeneric({y}, outs);
  }
  bind(res, r);
  if (rt.valid) {
    // The valid region of an elementwise result is the intersection of its
    // operands' (a row/col expand takes the first operand's).
    TensorValue &tv = vals_[res];
    for (size_t i = 0; i < (expand ? 1 : op.operands.size()); ++i) {
      const TensorValue &o = val(op.operands[i]);
      tv.rows = minBound(tv.rows, o.rows);
      tv.cols = minBound(tv.cols, o.cols);
    }
  }
}

void TensorEmitter::emitReshape(const Op &op) {
  // A reshape that only splits dims (unsqueeze among them) is an
  // expand_shape, a view of any buffer. Anything that merges dims reads
  // through its floordiv/mod index map: collapsing a strided slice's buffer
  // needs a copy, and memref.copy of a non-contiguous memref lowers to a
  // call to `memrefCopy`, which the JIT does not provide.
  const TensorType &st = c_.typeOf(op.operands[0]), &rt = c_.typeOf(op.results[0]);
  std::vector<std::string> groups, sizes;
  size_t r = 0;
  for (size_t j = 0; j < st.rank(); ++j) {
    std::vector<std::string> group;
    int64_t product = 1;
    while (r < rt.rank() && (group.empty() || product < st.shape[j])) {
      product *= rt.shape[r];
      group.push_back(std::to_string(r++));
    }
    // Trailing unit dims join the last group.
    while (j + 1 == st.rank() && r < rt.rank() && rt.shape[r] == 1)
      group.push_back(std::to_string(r++));
    if (group.empty() || product != st.shape[j])
      return emitIndexMapView(op);
    groups.push_back("[" + joined(group) + "]");
  }
  if (r != rt.rank())
    return emitIndexMapView(op);
  if (rt.rank() == st.rank()) // the same shape: expand_shape must add dims
    return bind(op.results[0], val(op.operands[0]).name);
  for (int64_t d : rt.shape)
    sizes.push_back(std::to_string(d));
  const std::string e = fresh("exp");
  line(e + " = tensor.expand_shape " + val(op.operands[0]).name + " [" + joined(groups) +
       "] output_shape [" + joined(sizes) + "] : " + val(op.operands[0]).type + " into " +
       tensorType(rt));
  bind(op.results[0], e);
}

void TensorEmitter::emitIndexMapView(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src), &rt = c_.typeOf(res);
  const std::vector<IndexExpr> map = viewIndexMap(c_, op);
  // linalg derives each loop's extent from the first operand dim indexed by
  // that bare loop dim, and inputs come first: an input indexed by a bare
  // dim (or an expression MLIR folds to one) of another extent would resize
  // the loops. Such views read through tensor.extract at the mapped position
  // instead.
  // Index forms other than affine maps read through tensor.extract at
  // positions computed in that form.
  bool direct = plan.index == IndexForm::AffineMap;
  std::vector<std::string> results;
  for (size_t j = 0; j < map.size(); ++j) {
    for (unsigned d = 0; d < rt.rank(); ++d)
      if (st.shape[j] != rt.shape[d] && mayFoldToDim(map[j], d, rt.shape))
        direct = false;
    results.push_back(map[j].str());
  }
  const std::string all = dims(rt.rank());
  const std::vector<GenericOperand> outs = {operand(empty(rt), rt, all)};
  const std::vector<std::string> parallel(rt.rank(), "parallel");
  const std::string r = fresh("view");
  if (direct) {
    const std::vector<std::string> args =
        openGeneric(r, {operand(src, joined(results))}, outs, parallel);
    closeGeneric({args[0]}, outs);
  } else {
    openGeneric(r, {}, outs, parallel);
    std::vector<std::string> ivs, at;
    for (unsigned d = 0; d < rt.rank(); ++d)
      ivs.push_back(loopIndex(d));
    for (const IndexExpr &e : map)
      at.push_back(indexOf(e, ivs));
    const std::string x = fresh();
    line(x + " = tensor.extract " + val(src).name + "[" + joined(at) + "] : " + val(src).type);
    closeGeneric({x}, outs);
  }
  bind(res, r);
}

void TensorEmitter::emitView(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src), &rt = c_.typeOf(res);
  const OpAttrs &a = op.attrs;
  switch (op.kind) {
  case OpKind::Slice:
  case OpKind::Chunk: {
    std::vector<std::string> offsets, sizes, strides;
    for (unsigned j = 0; j < st.rank(); ++j) {
      const bool chunked = op.kind == OpKind::Chunk && j == a.axis;
      offsets.push_back(std::to_string(op.kind == OpKind::Slice ? a.offsets[j]
                                       : chunked                ? a.index * rt.shape[j]
                                                                : 0));
      sizes.push_back(std::to_string(rt.shape[j]));
      strides.push_back(std::to_string(op.kind == OpKind::Slice ? a.strides[j] : 1));
    }
    const std::string r = fresh("slice");
    line(r + " = tensor.extract_slice " + val(src).name + "[" + joined(offsets) + "] [" +
         joined(sizes) + "] [" + joined(strides) + "] : " + val(src).type + " to " +
         tensorType(rt));
    return bind(res, r);
  }
  case OpKind::Transpose: {
    std::vector<std::string> perm;
    for (int64_t p : a.perm)
      perm.push_back(std::to_string(p));
    const std::string r = fresh("tr");
    line(r + " = linalg.transpose ins(" + val(src).name + " : " + val(src).type + ") outs(" +
         empty(rt) + " : " + tensorType(rt) + ") permutation = [" + joined(perm) + "]");
    return bind(res, r);
  }
  case OpKind::Reshape:
  case OpKind::Unsqueeze: return emitReshape(op);
  case OpKind::Broadcast:
  case OpKind::Squeeze:
  case OpKind::IndexMap: return emitIndexMapView(op);
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    unsupported = std::string(opName(op.kind)) + " is not a view";
    return;
  }
}

void TensorEmitter::emitSource(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &t = c_.typeOf(res);
  if (op.kind == OpKind::Const)
    return bind(res, fill(scalarConst(op.attrs.value, t.dtype), t));
  const std::vector<GenericOperand> outs = {operand(empty(t), t, dims(t.rank()))};
  const std::string r = fresh("iota");
  openGeneric(r, {}, outs, std::vector<std::string>(t.rank(), "parallel"));
  const std::string x = fromIndex(loopIndex(static_cast<unsigned>(op.attrs.axis)), t.dtype);
  closeGeneric({x}, outs);
  bind(res, r);
}

void TensorEmitter::emitFillPad(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &t = c_.typeOf(res);
  const TensorValue sv = val(src);
  if (sv.rows.empty()) {
    vals_[res] = sv; // all valid: nothing to pad
    return;
  }
  const std::string rows = indexValue(sv.rows);
  const std::string cols = indexValue(sv.cols);
  const std::string pad = padValue(op.attrs.pad, t.dtype);
  const std::string r = fresh("pad");
  const std::string zero = indexConst(0);
  switch (plan.pad) {
  case PadForm::Select: break;
  case PadForm::TensorPad: {
    // The valid region, padded back to the full shape: the high padding is
    // the shape minus the region's size.
    const std::string region = fresh("region"), high0 = fresh("hi"), high1 = fresh("hi");
    const std::string dyn = "tensor<?x?x" + elemType(t.dtype) + ">";
    line(region + " = tensor.extract_slice " + sv.name + "[" + zero + ", " + zero + "] [" + rows +
         ", " + cols + "] [1, 1] : " + sv.type + " to " + dyn);
    const std::string fullRows = indexConst(t.shape[0]);
    const std::string fullCols = indexConst(t.shape[1]);
    line(high0 + " = arith.subi " + fullRows + ", " + rows + " : index");
    line(high1 + " = arith.subi " + fullCols + ", " + cols + " : index");
    const std::string padded = fresh("padded");
    line(padded + " = tensor.pad " + region + " low[0, 0] high[" + high0 + ", " + high1 + "] {");
    const std::string p0 = fresh("p"), p1 = fresh("p");
    line("^bb0(" + p0 + ": index, " + p1 + ": index):");
    line("  tensor.yield " + pad + " : " + elemType(t.dtype));
    line("} : " + dyn + " to " + dyn);
    line(r + " = tensor.cast " + padded + " : " + dyn + " to " + sv.type);
    return bind(res, r);
  }
  case PadForm::InsertSlice: {
    // The valid region, inserted into a tensor filled with the pad value.
    const std::string region = fresh("region");
    const std::string dyn = "tensor<?x?x" + elemType(t.dtype) + ">";
    line(region + " = tensor.extract_slice " + sv.name + "[" + zero + ", " + zero + "] [" + rows +
         ", " + cols + "] [1, 1] : " + sv.type + " to " + dyn);
    const std::string filled = fill(pad, t);
    line(r + " = tensor.insert_slice " + region + " into " + filled + "[" + zero + ", " + zero +
         "] [" + rows + ", " + cols + "] [1, 1] : " + dyn + " into " + sv.type);
    return bind(res, r);
  }
  }
  const std::vector<GenericOperand> outs = {operand(empty(t), t, "d0, d1")};
  const std::vector<std::string> args =
      openGeneric(r, {operand(src, "d0, d1")}, outs, {"parallel", "parallel"});
  const std::string i = loopIndex(0), j = loopIndex(1);
  const std::string inRow = below(i, rows);
  const std::string inCol = below(j, cols);
  const std::string inside = fresh(), x = fresh();
  line(inside + " = arith.andi " + inRow + ", " + inCol + " : i1");
  line(x + " = arith.select " + inside + ", " + args[0] + ", " + pad + " : " + elemType(t.dtype));
  closeGeneric({x}, outs);
  bind(res, r);
}

void TensorEmitter::emitInsert(const Op &op) {
  const ValueId dest = op.operands[0], src = op.operands[1], res = op.results[0];
  const TensorType &st = c_.typeOf(src);
  const TensorValue dv = val(dest), sv = val(src);
  std::vector<std::string> offsets, sizes, ones;
  for (size_t d = 0; d < st.rank(); ++d) {
    offsets.push_back(std::to_string(op.attrs.offsets[d]));
    sizes.push_back(std::to_string(st.shape[d]));
    ones.push_back("1");
  }
  std::string region = sv.name, regionType = sv.type;
  if (!sv.rows.empty()) {
    // Only the valid region is written: slice it out with runtime sizes.
    const std::string zero = indexConst(0);
    sizes = {indexValue(sv.rows), indexValue(sv.cols)};
    region = fresh("region");
    regionType = "tensor<?x?x" + elemType(st.dtype) + ">";
    line(region + " = tensor.extract_slice " + sv.name + "[" + zero + ", " + zero + "] [" +
         joined(sizes) + "] [1, 1] : " + sv.type + " to " + regionType);
  }
  const std::string r = fresh("ins");
  line(r + " = tensor.insert_slice " + region + " into " + dv.name + "[" + joined(offsets) + "] [" +
       joined(sizes) + "] [" + joined(ones) + "] : " + regionType + " into " + dv.type);
  TensorValue tv = dv;
  tv.name = r;
  vals_[res] = tv;
}

void TensorEmitter::emitSetValidShape(const Op &op, const std::string &rows,
                                      const std::string &cols) {
  // No data moves: the result is its operand with a narrower region.
  TensorValue tv = val(op.operands[0]);
  tv.rows = rows;
  tv.cols = cols;
  vals_[op.results[0]] = tv;
}

namespace {
/// The element type a tensor of `d` crosses the tensor ABI as.
DType abiDType(DType d) {
  switch (d) {
  case DType::Index: return DType::I64;
  case DType::I1: return DType::I8;
  case DType::BF16: // as its bits (abiTensorType): nothing a compiler could fold away
  case DType::F32:
  case DType::F16:
  case DType::I8:
  case DType::I32:
  case DType::I64: return d;
  }
  return d;
}

/// The arith op converting between a tensor's element type and its ABI
/// type, in either direction (`toAbi`).
std::string abiConversion(DType d, bool toAbi) {
  switch (d) {
  case DType::Index: return "arith.index_cast";
  case DType::BF16: return "arith.bitcast";
  case DType::I1: return toAbi ? "arith.extui" : "arith.trunci";
  case DType::F32:
  case DType::F16:
  case DType::I8:
  case DType::I32:
  case DType::I64: return "";
  }
  return "";
}

std::string abiTensorType(const TensorType &t) {
  if (t.dtype == DType::BF16) { // i16 has no DType of its own
    std::string s = "tensor<";
    for (int64_t d : t.shape)
      s += std::to_string(d) + "x";
    return s + "i16>";
  }
  TensorType abi = t;
  abi.dtype = abiDType(t.dtype);
  return EmitterBase::tensorType(abi);
}
} // namespace

std::vector<std::string> TensorEmitter::tensorAbiParams() {
  // kernelParams names and records every argument; outputs become results.
  const std::vector<std::string> memrefParams = kernelParams(&tensorType, &tensorType);
  std::vector<KernelArg> args;
  for (const KernelArg &a : out_.args)
    if (a.kind != KernelArg::Kind::Output)
      args.push_back(a);
  out_.args = args;
  out_.returnsOutputs = true;

  std::vector<std::string> params;
  int ordinal = 0;
  for (const Op &op : c_.ops) {
    if (op.kind != OpKind::Input)
      continue;
    const TensorType &t = c_.typeOf(op.results[0]);
    const std::string name = inputArg(ordinal++);
    const std::string conv = abiConversion(t.dtype, false);
    params.push_back((conv.empty() ? name : name + "_abi") + ": " + abiTensorType(t));
    if (!conv.empty())
      line(name + " = " + conv + " " + name + "_abi : " + abiTensorType(t) + " to " +
           tensorType(t));
  }
  for (const std::string &p : memrefParams)
    if (p.rfind("%vdim", 0) == 0) {
      const std::string name = p.substr(0, p.find(':'));
      params.push_back(name + "_abi: i64");
      line(name + " = arith.index_cast " + name + "_abi : i64 to index");
    }
  return params;
}

EmitterBase::Crossing TensorEmitter::crossingOf(ValueId v) const {
  const TensorValue &tv = val(v);
  return {tv.name, tv.type, tv.rows, tv.cols};
}

void TensorEmitter::bindCrossing(ValueId v, const Crossing &c) {
  vals_[v] = TensorValue{c.value, c.type, c.rows, c.cols};
  if (!tensorAbi)
    inMemref_.insert(v);
}

std::optional<EmitterBase::Crossing> TensorEmitter::handBuffer(ValueId v) {
  if (tensorAbi)
    return std::nullopt;
  // Freed by the lowering's ownership-based deallocation, which takes no
  // dealloc of its own.
  Crossing c;
  c.type = memrefType(c_.typeOf(v));
  c.value = fresh("hand");
  line(c.value + " = memref.alloc() : " + c.type);
  return c;
}

std::optional<EmitterBase::Crossing> TensorEmitter::handOn(ValueId v,
                                                           const std::optional<Crossing> &into) {
  if (!into)
    return crossingOf(v);
  const TensorValue &tv = val(v);
  line("bufferization.materialize_in_destination " + tv.name + " in restrict writable " +
       into->value + " : (" + tv.type + ", " + into->type + ") -> ()");
  return std::nullopt;
}

void TensorEmitter::asTensor(ValueId v) {
  TensorValue &tv = vals_.at(v);
  const std::string t = fresh("arg");
  const std::string type = tensorType(c_.typeOf(v));
  line(t + " = bufferization.to_tensor " + tv.name + " restrict : " + tv.type + " to " + type);
  tv.name = t;
  tv.type = type;
}

void TensorEmitter::beginTask(const std::vector<ValueId> &reads) {
  for (ValueId v : reads)
    if (inMemref_.count(v)) {
      outsideTask_[v] = val(v);
      asTensor(v);
    }
}

void TensorEmitter::endTask() {
  for (const auto &[v, tv] : outsideTask_)
    vals_[v] = tv;
  outsideTask_.clear();
}

bool TensorEmitter::run() {
  const std::vector<std::string> params =
      tensorAbi ? tensorAbiParams() : kernelParams(&memrefType, &memrefType);
  int inputOrdinal = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    if (op.kind != OpKind::Input)
      continue;
    // Inputs are never written, so their tensors may alias the arguments.
    const ValueId v = op.results[0];
    const TensorType &t = c_.typeOf(v);
    if (tensorAbi) {
      bind(v, inputArg(inputOrdinal++));
    } else if (!c_.tasks.empty()) {
      // A chain's tasks see it as a tensor of their own.
      vals_[v] = TensorValue{inputArg(inputOrdinal++), memrefType(t), "", ""};
      inMemref_.insert(v);
    } else {
      const std::string x = fresh("arg");
      line(x + " = bufferization.to_tensor " + inputArg(inputOrdinal++) +
           " restrict : " + memrefType(t) + " to " + tensorType(t));
      bind(v, x);
    }
    if (t.valid)
      std::tie(vals_[v].rows, vals_[v].cols) = validBounds(i, *t.valid);
  }
  if (!emitCaseOps(*this))
    return false;
  if (!unsupported.empty())
    return false;
  if (tensorAbi && usesRuntime()) {
    // A compiler of functions on tensors links none of npufuzz's runtime.
    unsupported = "the tensor ABI: an op of the case calls npufuzz's runtime";
    return false;
  }
  if (tensorAbi) {
    // Whole tensors: what lies outside a valid region is undefined
    // (ir/Case.h), and with no output buffer nothing is kept there.
    std::vector<std::string> results, types;
    for (size_t k = 0; k < c_.outputs.size(); ++k) {
      const TensorValue &tv = val(c_.outputs[k]);
      const TensorType &t = c_.typeOf(c_.outputs[k]);
      std::string r = tv.name;
      if (tv.type != tensorType(t)) {
        r = fresh("res");
        line(r + " = tensor.cast " + tv.name + " : " + tv.type + " to " + tensorType(t));
      }
      if (const std::string conv = abiConversion(t.dtype, true); !conv.empty()) {
        const std::string w = fresh("res");
        line(w + " = " + conv + " " + r + " : " + tensorType(t) + " to " + abiTensorType(t));
        r = w;
      }
      results.push_back(r);
      types.push_back(abiTensorType(t));
    }
    assemble(params, joined(results), joined(types));
    return true;
  }
  for (ValueId v : c_.outputs) // each memref once (to_tensor ... restrict)
    if (inMemref_.erase(v))
      asTensor(v);
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    // The result's buffer may be any (strided) view once passes fold the
    // op that made it, and memref.copy of a non-contiguous memref lowers to
    // a `memrefCopy` call the JIT does not provide: copy with linalg.copy,
    // which becomes loops, from a fully dynamic layout.
    const TensorValue &tv = val(c_.outputs[k]);
    const TensorType &t = c_.typeOf(c_.outputs[k]);
    std::string strided = "memref<";
    for (int64_t d : t.shape)
      strided += std::to_string(d) + "x";
    strided += elemType(t.dtype) + ", strided<[" + joined(std::vector<std::string>(t.rank(), "?")) +
               "], offset: ?>>";
    const std::string m = fresh("res");
    line(m + " = bufferization.to_buffer " + tv.name + " read_only : " + tv.type + " to " +
         strided);
    if (!t.valid) {
      line("linalg.copy ins(" + m + " : " + strided + ") outs(" + outputArg(k) + " : " +
           memrefType(t) + ")");
      continue;
    }
    // The valid region only, between subviews of both: the rest of the
    // output keeps what it held (ir/Case.h).
    const std::string rows = indexValue(tv.rows.empty() ? std::to_string(t.shape[0]) : tv.rows);
    const std::string cols = indexValue(tv.cols.empty() ? std::to_string(t.shape[1]) : tv.cols);
    const std::string elem = elemType(t.dtype);
    const std::string from = fresh("region"), to = fresh("region");
    const std::string fromType = "memref<?x?x" + elem + ", strided<[?, ?], offset: ?>>";
    const std::string toType =
        "memref<?x?x" + elem + ", strided<[" + std::to_string(t.shape[1]) + ", 1]>>";
    line(from + " = memref.subview " + m + "[0, 0] [" + rows + ", " + cols +
         "] [1, 1] : " + strided + " to " + fromType);
    line(to + " = memref.subview " + outputArg(k) + "[0, 0] [" + rows + ", " + cols +
         "] [1, 1] : " + memrefType(t) + " to " + toType);
    line("linalg.copy ins(" + from + " : " + fromType + ") outs(" + to + " : " + toType + ")");
  }
  assemble(params);
  return true;
}

} // namespace npufuzz
