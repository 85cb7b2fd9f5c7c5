//===- backend/mlir/EmitterBase.cpp - What every MLIR lowering shares -----===//
#include "backend/mlir/EmitterBase.h"

namespace npufuzz {

// --- Text ---------------------------------------------------------------------

void EmitterBase::line(const std::string &s) {
  if (hoisting)
    hoisted_.push_back(s);
  else
    body_ << std::string(indent_, ' ') << s << "\n";
}

std::string EmitterBase::fresh(const char *prefix) {
  return "%" + std::string(prefix) + std::to_string(counter_++);
}

std::string EmitterBase::elemType(DType t) { return std::string(dtypeName(t)); }

std::string EmitterBase::joined(const std::vector<std::string> &v, const char *sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + v[i];
  return s;
}

namespace {
std::string shapedType(const char *kind, const TensorType &t) {
  std::string s = std::string(kind) + "<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  return s + EmitterBase::elemType(t.dtype) + ">";
}
} // namespace

std::string EmitterBase::memrefType(const TensorType &t) { return shapedType("memref", t); }
std::string EmitterBase::tensorType(const TensorType &t) { return shapedType("tensor", t); }

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

std::string EmitterBase::indexConst(int64_t v) { return intConst(v, DType::Index); }

std::string EmitterBase::intConst(int64_t v, DType t) {
  const std::string text =
      t == DType::I1 ? (v ? "true" : "false") : std::to_string(v) + " : " + elemType(t);
  const std::string key = text + "/" + elemType(t);
  auto it = constants_.find(key);
  if (it != constants_.end())
    return it->second;
  const std::string name = fresh("c");
  hoisted_.push_back(name + " = arith.constant " + text);
  constants_[key] = name;
  return name;
}

std::string EmitterBase::floatConstBits(uint32_t bits, DType t) {
  const std::string text = hex(bits, t == DType::F32 ? 8 : 4) + " : " + elemType(t);
  auto it = constants_.find(text);
  if (it != constants_.end())
    return it->second;
  const std::string name = fresh("c");
  hoisted_.push_back(name + " = arith.constant " + text);
  constants_[text] = name;
  return name;
}

std::string EmitterBase::floatConst(float v, DType t) {
  switch (t) {
  case DType::BF16: return floatConstBits(floatToBF16Bits(v, RoundingMode::NearestEven), t);
  case DType::F16: return floatConstBits(floatToF16Bits(v, RoundingMode::NearestEven), t);
  case DType::F32:
  case DType::I8: // not float: callers pass float types only
  case DType::I32:
  case DType::I64:
  case DType::Index:
  case DType::I1: break;
  }
  return floatConstBits(floatBits(v), DType::F32);
}

std::string EmitterBase::scalarConst(const Scalar &s, DType t) {
  return isFloat(t) ? floatConst(s.f, t) : intConst(wrapToWidth(s.i, t), t);
}

std::string EmitterBase::zeroOf(DType t) {
  return isFloat(t) ? floatConst(0.0f, t) : intConst(0, t);
}

std::string EmitterBase::lowestOf(DType t) {
  return isFloat(t) ? floatConst(-__builtin_inff(), t) : intConst(minIntValue(t), t);
}

std::string EmitterBase::highestOf(DType t) {
  return isFloat(t) ? floatConst(__builtin_inff(), t) : intConst(maxIntValue(t), t);
}

std::string EmitterBase::padValue(PadKind p, DType t) {
  switch (p) {
  case PadKind::Zero: return zeroOf(t);
  case PadKind::Min: return lowestOf(t);
  case PadKind::Max: return highestOf(t);
  }
  return zeroOf(t); // unreachable: every PadKind is a case above
}

std::string EmitterBase::indexValue(const std::string &v) {
  return v[0] == '%' ? v : indexConst(std::stoll(v));
}

std::string EmitterBase::minBound(const std::string &a, const std::string &b) {
  if (a.empty() || b.empty())
    return a.empty() ? b : a;
  if (a[0] != '%' && b[0] != '%')
    return std::stoll(a) <= std::stoll(b) ? a : b;
  const std::string x = fresh("vb");
  line(x + " = arith.minsi " + indexValue(a) + ", " + indexValue(b) + " : index");
  return x;
}

// --- The op dispatch ----------------------------------------------------------------

void EmitterBase::emitOp(size_t opIndex) {
  const Op &op = c_.ops[opIndex];
  line("// " + std::string(opName(op.kind)));
  switch (opCategory(op.kind)) {
  case OpCategory::Source:
    if (op.kind != OpKind::Input) // inputs are kernel arguments
      emitSource(op);
    return;
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return emitElementwise(op);
  case OpCategory::View: return emitView(op);
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast: return emitElementwise(op);
  case OpKind::SetValidShape: {
    const auto [rows, cols] =
        validBounds(opIndex, ValidShape{op.attrs.rows, op.attrs.cols, op.attrs.dynamic});
    return emitSetValidShape(op, rows, cols);
  }
  case OpKind::FillPad: return emitFillPad(op);
  case OpKind::Insert: return emitInsert(op);
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: return emitReduce(op);
  case OpKind::ArgMax: return emitArgMax(op);
  case OpKind::TopK: return emitTopK(op);
  case OpKind::Matmul: return emitMatmul(op);
  case OpKind::Gather: return emitGather(op);
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d: return emitWorkload(op);
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return; // dispatched by category above
  }
}

void EmitterBase::emitWorkload(const Op &op) {
  unsupported = std::string(opName(op.kind)) + " is not lowered in this style";
}

std::pair<std::string, std::string> EmitterBase::validBounds(size_t opIndex, const ValidShape &v) {
  if (v.dynamic)
    return {validDimArg(opIndex, 0), validDimArg(opIndex, 1)};
  return {std::to_string(v.rows), std::to_string(v.cols)};
}

// --- Kernel ABI -------------------------------------------------------------------

std::vector<std::string> EmitterBase::kernelParams(std::string (*inputType)(const TensorType &),
                                                   std::string (*outputType)(const TensorType &)) {
  std::vector<std::string> params;
  int inputOrdinal = 0;
  for (const Op &op : c_.ops) {
    if (op.kind != OpKind::Input)
      continue;
    params.push_back(inputArg(inputOrdinal) + ": " + inputType(c_.typeOf(op.results[0])));
    out_.args.push_back({KernelArg::Kind::Input, inputOrdinal++, 0, 0});
  }
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    params.push_back(outputArg(k) + ": " + outputType(c_.typeOf(c_.outputs[k])));
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
    params.push_back(validDimArg(i, 0) + ": index");
    params.push_back(validDimArg(i, 1) + ": index");
    out_.args.push_back({KernelArg::Kind::ValidDim, static_cast<int>(i), 0, v->rows});
    out_.args.push_back({KernelArg::Kind::ValidDim, static_cast<int>(i), 1, v->cols});
  }
  return params;
}

std::string EmitterBase::functionBody(const std::string &results,
                                      const std::string &resultTypes) const {
  std::ostringstream f;
  for (const std::string &h : hoisted_)
    f << "    " << h << "\n";
  std::istringstream body(body_.str());
  for (std::string l; std::getline(body, l);)
    f << "  " << l << "\n";
  f << "    return" << (results.empty() ? "" : " " + results + " : " + resultTypes) << "\n  }\n";
  return f.str();
}

void EmitterBase::beginFunction() {
  entryHoisted_.swap(hoisted_);
  entryConstants_.swap(constants_);
  entryBody_.swap(body_);
  entryIndent_ = indent_;
  indent_ = 2;
}

void EmitterBase::endFunction(const std::string &name, const std::vector<std::string> &params,
                              const std::vector<std::string> &results,
                              const std::vector<std::string> &resultTypes) {
  std::ostringstream f;
  f << "  func.func private @" << name << "(" << joined(params) << ")";
  if (!resultTypes.empty())
    f << " -> (" << joined(resultTypes) << ")";
  f << " {\n" << functionBody(joined(results), joined(resultTypes));
  functions_.push_back(f.str());
  hoisted_.clear();
  constants_.clear();
  body_.str("");
  entryHoisted_.swap(hoisted_);
  entryConstants_.swap(constants_);
  entryBody_.swap(body_);
  indent_ = entryIndent_;
}

void EmitterBase::assemble(const std::vector<std::string> &params, const std::string &results,
                           const std::string &resultTypes) {
  std::ostringstream m;
  m << "module {\n";
  for (const std::string &d : runtimeDecls_)
    m << "  " << d << "\n";
  for (const std::string &f : functions_)
    m << f;
  m << "  func.func @" << out_.entry << "(";
  for (size_t i = 0; i < params.size(); ++i)
    m << (i ? ", " : "") << params[i];
  m << ")";
  if (!resultTypes.empty())
    m << " -> (" << resultTypes << ")";
  m << " attributes {llvm.emit_c_interface} {\n" << functionBody(results, resultTypes) << "}\n";
  out_.text = m.str();
}

} // namespace npufuzz
