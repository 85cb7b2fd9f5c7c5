//===- reference/Executor.cpp - The exact reference executor --------------===//
//
// The dispatch loop, the source ops (input, const, iota) and the valid-shape
// ops (set_validshape, fillpad, insert). The op families live in Elementwise.cpp,
// Structured.cpp and Views.cpp.
//
//===----------------------------------------------------------------------===//

#include "reference/Executor.h"
#include "reference/InputData.h"
#include "reference/OpEval.h"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace npufuzz {
namespace ref {

int64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d)
    p *= shape[d];
  return p;
}

namespace {

void constant(OpEval &e) {
  RefTensor &out = e.result();
  const DType t = out.type.dtype;
  if (out.isFloat())
    std::fill(out.f.begin(), out.f.end(), roundRNE(e.op.attrs.value.f, t));
  else
    std::fill(out.i.begin(), out.i.end(), wrapToWidth(e.op.attrs.value.i, t));
  std::fill(out.defined.begin(), out.defined.end(), uint8_t(1));
}

/// iota: each element is its index along `axis` (exact or rne-rounded for
/// floats, wrapped for integers).
bool iota(OpEval &e) {
  RefTensor &out = e.result();
  const int64_t axis = e.op.attrs.axis;
  if (axis < 0 || axis >= int64_t(out.type.rank()))
    return e.fail("iota axis out of range");
  const int64_t size = out.type.shape[axis];
  const int64_t stride = product(out.type.shape, size_t(axis) + 1, out.type.shape.size());
  const DType t = out.type.dtype;
  const int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = (k / stride) % size;
    if (out.isFloat())
      out.f[k] = intToFloat(v, t, RoundingMode::NearestEven);
    else
      out.i[k] = wrapToWidth(v, t);
  }
  std::fill(out.defined.begin(), out.defined.end(), uint8_t(1));
  return true;
}

/// set_validshape: a copy whose result type carries the new valid shape; the
/// normalization after each op makes everything outside it undefined.
bool copySameShape(OpEval &e) {
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  if (x.numElements() != out.numElements() || x.type.dtype != out.type.dtype)
    return e.fail("result does not match the operand's shape and type");
  out.f = x.f;
  out.i = x.i;
  out.defined = x.defined;
  return true;
}

/// fillpad: inside the source's valid shape, the source element (value and
/// definedness); outside it, the pad value, defined. Pads are +-inf for
/// floats and the dtype's MIN/MAX for integers (0/1 for i1).
bool fillpad(OpEval &e) {
  if (!copySameShape(e))
    return false;
  const RefTensor &x = e.operand(0);
  RefTensor &out = e.result();
  const DType t = out.type.dtype;
  const PadKind pad = e.op.attrs.pad;
  const float fpad = pad == PadKind::Zero ? 0.0f : pad == PadKind::Min ? -INFINITY : INFINITY;
  const int64_t ipad = out.isFloat()          ? 0
                       : pad == PadKind::Zero ? 0
                       : pad == PadKind::Min  ? minIntValue(t)
                                              : maxIntValue(t);
  const int64_t n = out.numElements();
  for (int64_t k = 0; k < n; ++k) {
    if (x.insideValid(k))
      continue;
    if (out.isFloat())
      out.f[k] = fpad;
    else
      out.i[k] = ipad;
    out.defined[k] = 1;
  }
  return true;
}

/// insert: dest, with the valid region of src (all of it below rank 2)
/// written at the offsets, value and definedness.
bool insert(OpEval &e) {
  const RefTensor &dest = e.operand(0), &src = e.operand(1);
  RefTensor &out = e.result();
  out.f = dest.f;
  out.i = dest.i;
  out.defined = dest.defined;
  const std::vector<int64_t> &off = e.op.attrs.offsets;
  const std::vector<int64_t> srcStrides = src.strides(), outStrides = out.strides();
  const size_t rank = src.type.shape.size();
  const int64_t n = src.numElements();
  for (int64_t k = 0; k < n; ++k) {
    if (!src.insideValid(k))
      continue;
    int64_t at = 0;
    for (size_t d = 0; d < rank; ++d)
      at += (k / srcStrides[d] % src.type.shape[d] + off[d]) * outStrides[d];
    if (out.isFloat())
      out.f[at] = src.f[k];
    else
      out.i[at] = src.i[k];
    out.defined[at] = src.defined[k];
  }
  return true;
}

bool input(OpEval &e, const RefTensor &given) {
  RefTensor &out = e.result();
  if (given.type != out.type)
    return e.fail("input has type " + given.type.str() + ", expected " + out.type.str());
  const size_t n = size_t(out.numElements());
  if (given.defined.size() != n || (out.isFloat() ? given.f.size() : given.i.size()) != n)
    return e.fail("input buffers do not match its type " + out.type.str());
  out = given;
  return true;
}

bool evalSource(OpEval &e) {
  switch (e.op.kind) {
  case OpKind::Const: constant(e); return true;
  case OpKind::Iota: return iota(e);
  case OpKind::Input: // evaluateCase gives it the next input
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
    return e.fail(std::string(opName(e.op.kind)) + " is not a computed source");
  }
  return false; // unreachable: every OpKind is a case above
}

bool evalOther(OpEval &e) {
  switch (e.op.kind) {
  case OpKind::SetValidShape: return copySameShape(e);
  case OpKind::FillPad: return fillpad(e);
  case OpKind::Insert: return insert(e);
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast: return evalElementwise(e);
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather: return evalStructured(e);
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d: return evalWorkload(e);
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return e.fail(std::string(opName(e.op.kind)) + " is not in the other category");
  }
  return false; // unreachable: every OpKind is a case above
}

} // namespace
} // namespace ref

namespace {
bool flushSubnormals = false;

/// MXCSR's FTZ (bit 15) and DAZ (bit 6) set for a scope, as IREE's runtime
/// sets them around a dispatch.
class SubnormalFlushScope {
public:
  explicit SubnormalFlushScope(bool on) : on_(on) {
#if defined(__x86_64__)
    if (on_) {
      saved_ = _mm_getcsr();
      _mm_setcsr(saved_ | 0x8040u);
    }
#endif
  }
  ~SubnormalFlushScope() {
#if defined(__x86_64__)
    if (on_)
      _mm_setcsr(saved_);
#endif
  }
  SubnormalFlushScope(const SubnormalFlushScope &) = delete;
  SubnormalFlushScope &operator=(const SubnormalFlushScope &) = delete;

private:
  bool on_;
  unsigned saved_ = 0;
};
} // namespace

void setReferenceFlushesSubnormals(bool on) { flushSubnormals = on; }
bool referenceFlushesSubnormals() { return flushSubnormals; }

bool evaluateCase(const Case &c, const std::vector<RefTensor> &inputs,
                  std::vector<RefTensor> &values, std::string &error, SignedOverflow overflow) {
  const SubnormalFlushScope fpEnvironment(flushSubnormals);
  values.assign(c.values.size(), RefTensor());
  std::vector<uint8_t> ready(c.values.size(), 0);
  size_t nextInput = 0;
  std::vector<RefTensor> results;
  for (size_t oi = 0; oi < c.ops.size(); ++oi) {
    const Op &op = c.ops[oi];
    const std::string where =
        "op " + std::to_string(oi) + " (" + std::string(opName(op.kind)) + "): ";
    for (ValueId v : op.operands)
      if (v < 0 || size_t(v) >= values.size() || !ready[v]) {
        error = where + "operand %" + std::to_string(v) + " is not defined";
        return false;
      }
    results.clear();
    for (ValueId r : op.results) {
      if (r < 0 || size_t(r) >= values.size()) {
        error = where + "result id out of range";
        return false;
      }
      results.push_back(RefTensor::zeros(c.typeOf(r)));
    }
    if (results.empty()) {
      error = where + "op has no results";
      return false;
    }
    std::string message;
    ref::OpEval e{c, op, values, results, message, overflow};
    bool ok;
    if (op.kind == OpKind::Input) {
      if (nextInput >= inputs.size()) {
        error = where + "more input ops than inputs";
        return false;
      }
      ok = ref::input(e, inputs[nextInput++]);
    } else {
      switch (opCategory(op.kind)) {
      case OpCategory::Unary:
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::RowExpand:
      case OpCategory::ColExpand: ok = ref::evalElementwise(e); break;
      case OpCategory::View: ok = ref::evalView(e); break;
      case OpCategory::Source: ok = ref::evalSource(e); break;
      case OpCategory::Other: ok = ref::evalOther(e); break;
      }
    }
    if (!ok) {
      error = where + message;
      return false;
    }
    for (size_t k = 0; k < results.size(); ++k) {
      results[k].normalize();
      values[op.results[k]] = std::move(results[k]);
      ready[op.results[k]] = 1;
    }
  }
  if (nextInput != inputs.size()) {
    error = "case has " + std::to_string(nextInput) + " input ops but " +
            std::to_string(inputs.size()) + " inputs were given";
    return false;
  }
  return true;
}

namespace {

/// Evaluates `c` on `run.inputs`, filling the outputs or the error.
void evaluateRun(const Case &c, RefRun &run, SignedOverflow overflow = SignedOverflow::Wraps) {
  std::vector<RefTensor> values;
  if (!evaluateCase(c, run.inputs, values, run.error, overflow))
    return;
  for (ValueId v : c.outputs) {
    if (v < 0 || size_t(v) >= values.size()) {
      run.error = "output %" + std::to_string(v) + " does not exist";
      run.outputs.clear();
      return;
    }
    run.outputs.push_back(values[v]);
  }
}

} // namespace

RefRun runReference(const Case &c) {
  RefRun run;
  run.inputs = makeInputs(c);
  if (flushSubnormals)
    for (RefTensor &t : run.inputs)
      // Below the smallest normal of its own type: an f16 subnormal is
      // normal in f32, but a software f16->f32 conversion flushes it where
      // F16C keeps it, so it is no input either.
      for (float &x : t.f)
        if (x != 0 && std::fabs(x) < smallestNormal(t.type.dtype))
          x = std::copysign(0.0f, x);
  evaluateRun(c, run);
  return run;
}

RefRun runReference(const Case &c, const std::vector<RefTensor> &inputs, SignedOverflow overflow) {
  RefRun run;
  run.inputs = inputs;
  evaluateRun(c, run, overflow);
  return run;
}

} // namespace npufuzz
