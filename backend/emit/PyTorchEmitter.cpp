//===- backend/emit/PyTorchEmitter.cpp - A case as a PyTorch program ------===//
#include "backend/emit/PyTorchEmitter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace npufuzz {

namespace {

/// Helpers every program carries; they state the semantics torch ops lack.
const char *kPrelude = R"PY(import os
import sys

import numpy as np
import torch


def _load(d, name, dtype):
    # bf16 travels as float32 (numpy has no bfloat16); the values are exact.
    return torch.from_numpy(np.load(os.path.join(d, name))).to(dtype)


def _save(d, name, t):
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    np.save(os.path.join(d, name), t.contiguous().numpy())


def _round_half_away(x):
    # x - trunc(x) is exact, so ties are seen as ties; the sign of zero and
    # infinities survive.
    t = torch.trunc(x)
    return torch.where(torch.abs(x - t) >= 0.5, t + torch.sign(x), t)


def _fmax(x, y):
    # NaN propagates and -0 < +0 (torch.maximum leaves the zero's sign open).
    # Of two equal values only a zero's sign tells them apart: 1 / -0 < 0
    # (torch.signbit would say it too, but not every compiler's frontend
    # takes it: TVM's does not).
    r = torch.where(x > y, x, torch.where(y > x, y, torch.where(1 / x < 0, y, x)))
    return torch.where(torch.isnan(x) | torch.isnan(y), x + y, r)  # x + y: NaN


def _fmin(x, y):
    r = torch.where(x < y, x, torch.where(y < x, y, torch.where(1 / x < 0, x, y)))
    return torch.where(torch.isnan(x) | torch.isnan(y), x + y, r)  # x + y: NaN


def _idiv(x, y):
    # Floor division; x div 0 == 0 and MIN div -1 == MIN, without trapping.
    safe = torch.where((y == 0) | (y == -1), torch.ones_like(y), y)
    q = torch.div(x, safe, rounding_mode="floor")
    return torch.where(y == 0, torch.zeros_like(q), torch.where(y == -1, -x, q))


def _f2i(x, mode, lo, hi, dtype):
    # Rounds under `mode` in f64 (exact for f32 inputs), saturates, NaN -> 0.
    d = torch.nan_to_num(x.to(torch.float64), nan=0.0)
    if mode == "rne":
        r = torch.round(d)
    elif mode == "rna":
        r = torch.sign(d) * torch.floor(torch.abs(d) + 0.5)
    elif mode == "rtz":
        r = torch.trunc(d)
    elif mode == "rdn":
        r = torch.floor(d)
    else:
        r = torch.ceil(d)
    i = r.clamp(-9223372036854775808.0, 9223372036854774784.0).to(torch.int64)
    i = torch.where(r >= hi, torch.full_like(i, hi), torch.where(r <= lo, torch.full_like(i, lo), i))
    return i.to(dtype)


def _grids(shape):
    return [torch.arange(n).reshape([n if j == i else 1 for j in range(len(shape))])
            for i, n in enumerate(shape)]


def _fold(x, axis, step, acc_dtype):
    # Left to right from the first element, as the reference folds.
    acc = x.select(axis, 0).to(acc_dtype)
    for i in range(1, x.shape[axis]):
        acc = step(acc, x.select(axis, i).to(acc_dtype))
    return acc.unsqueeze(axis)


def _wide(x):
    # f16 and bf16 as f32, exactly: TVM cannot build isnan of a bf16 tensor
    # (a bug of its own), which would stop every bf16 max, min and argmax.
    if x.dtype in (torch.float16, torch.bfloat16):
        return x.float()
    return x


def _rmax(x, axis, fmax):
    # The maximum along `axis` (fmax: a float's, NaN propagating and
    # -0 < +0, as _fmax folds it). Max is associative, so no order is kept,
    # and the graph stays a few ops long whatever the axis' length: one
    # _fmax an element grows it, and Inductor's compile time with it.
    # (max.dim, not amax: TVM's frontend takes only the former.)
    w = _wide(x)
    r = w.max(axis, keepdim=True).values
    if fmax:
        a = torch.abs(r)  # a zero's two signs: +0 if a +0 is there, else -0
        r = torch.where(r == 0, torch.where(((w == 0) & (1 / w > 0)).any(axis, keepdim=True), a, -a), r)
        # A sum along an axis that holds a NaN is NaN.
        r = torch.where(torch.isnan(w).any(axis, keepdim=True), w.sum(axis, keepdim=True), r)
    return r.to(x.dtype)


def _rmin(x, axis, fmin):
    # The minimum as the maximum of the order reversed: -x for a float
    # (exact), ~x for an integer (-x would wrap at its minimum) or a bool.
    w = _wide(x)
    if not fmin:
        return (~(~w).max(axis, keepdim=True).values).to(x.dtype)
    r = -(-w).max(axis, keepdim=True).values
    a = torch.abs(r)  # -0 if a -0 is there, else +0
    r = torch.where(r == 0, torch.where(((w == 0) & (1 / w < 0)).any(axis, keepdim=True), -a, a), r)
    r = torch.where(torch.isnan(w).any(axis, keepdim=True), w.sum(axis, keepdim=True), r)
    return r.to(x.dtype)


def _argmax(x, axis):
    # The first maximum; NaN counts as the maximum; -0 == +0. Of the
    # elements that win, the first is the one with the most after it.
    w = _wide(x)
    n = w.shape[axis]
    nan = torch.isnan(w)
    top = torch.where(nan.any(axis, keepdim=True), nan, w == w.max(axis, keepdim=True).values)
    after = n - _along(n, axis, w.dim())
    return n - (top * after).max(axis, keepdim=True).values


def _matmul(a, b, acc_dtype):
    # Products in the accumulator type, summed over k from 0, left to right.
    a, b = a.to(acc_dtype), b.to(acc_dtype)
    acc = torch.zeros(a.shape[:-1] + b.shape[-1:], dtype=acc_dtype)
    for k in range(a.shape[-1]):
        acc = acc + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return acc


def _fillpad(x, rows, cols, pad):
    y = x.clone()
    y[rows:, :] = pad
    y[:, cols:] = pad
    return y


def _along(n, axis, rank):
    # arange(n) laid along dimension `axis` of `rank` dimensions.
    return torch.arange(n).reshape([n if d == axis else 1 for d in range(rank)])


def _topk(x, k, axis):
    # The k largest, descending; ties keep the lower index first and NaN
    # ranks highest (ir/Case.h). torch.topk leaves the order of ties open,
    # and a stable sort is not in every compiler's frontend (TVM's), so each
    # element's place is counted: how many elements rank before it. Keys
    # compare in f32, exact for f16 and bf16.
    key = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    n, rank = x.shape[axis], x.dim() + 1
    a, b = key.unsqueeze(axis + 1), key.unsqueeze(axis)  # element i, element j
    i, j = _along(n, axis, rank), _along(n, axis + 1, rank)
    na, nb = torch.isnan(a), torch.isnan(b)
    tie = (b == a) | (na & nb)
    before = (nb & ~na) | (b > a) | (tie & (j < i))  # j ranks before i
    place = before.sum(axis + 1).unsqueeze(axis)  # i's place, i along axis + 1
    idx = ((place == _along(k, axis, rank)) * j).sum(axis + 1)
    return torch.gather(x, axis, idx), idx

)PY";

/// The model form's helpers: the torch a model writes, in the element type,
/// on the device the adapter puts in `_DEV` (None: torch's default).
const char *kModelPrelude = R"PY(import os
import sys

import numpy as np
import torch

_DEV = None


def _load(d, name, dtype):
    return torch.from_numpy(np.load(os.path.join(d, name))).to(dtype)


def _save(d, name, t):
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    np.save(os.path.join(d, name), t.cpu().contiguous().numpy())


_fmax = torch.maximum
_fmin = torch.minimum


def _round_half_away(x):
    # Ties away from zero, exactly in x's type: x - trunc(x) is exact (and
    # no abs or sign, which PyTorchSim's device lacks).
    # t itself where no step is taken, which keeps the sign of a zero.
    t = torch.trunc(x)
    d = x - t
    return torch.where(d >= 0.5, t + 1, torch.where(d <= -0.5, t - 1, t))


def _idiv(x, y):
    # Integer division by zero raises in torch (and a compiler that folds
    # it may raise while compiling): a model guards its divisor, and gives
    # the case's x div 0 == 0.
    q = torch.div(x, torch.where(y == 0, torch.ones_like(y), y), rounding_mode="floor")
    return torch.where(y == 0, torch.zeros_like(q), q)


def _matmul(a, b, acc_dtype):
    return torch.matmul(a.to(acc_dtype), b.to(acc_dtype))


def _fillpad(x, rows, cols, pad):
    # The valid region, padded back to the tile: a tail's padding.
    return torch.nn.functional.pad(x[:rows, :cols], (0, x.shape[1] - cols, 0, x.shape[0] - rows),
                                   value=pad)

)PY";

const char *torchType(DType t) {
  switch (t) {
  case DType::F32: return "torch.float32";
  case DType::F16: return "torch.float16";
  case DType::BF16: return "torch.bfloat16";
  case DType::I8: return "torch.int8";
  case DType::I32: return "torch.int32";
  case DType::I64:
  case DType::Index: return "torch.int64";
  case DType::I1: return "torch.bool";
  }
  return "?";
}

/// Significand bits of a float type, i.e. the widest integer it holds exactly.
unsigned precision(DType t) { return t == DType::F32 ? 24 : t == DType::F16 ? 11 : 8; }

/// `[1, 2]`.
std::string pyList(const std::vector<int64_t> &xs) {
  std::string s = "[";
  for (size_t k = 0; k < xs.size(); ++k)
    s += (k ? ", " : "") + std::to_string(xs[k]);
  return s + "]";
}

std::string pyFloat(float v) {
  if (std::isnan(v))
    return "float(\"nan\")";
  if (std::isinf(v))
    return v > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  // 17 significant digits give back the double exactly, and every float
  // is one. A literal, not float.fromhex: torch.compile's tracer cannot
  // call that.
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string pyInts(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// An index expression over the grids `d[i]`; `//` and `%` on tensors are
/// floor division and floor modulo, as in IndexExpr.
std::string pyIndex(const IndexExpr &e) {
  switch (e.kind()) {
  case IndexExpr::Kind::Dim: return "d[" + std::to_string(e.value()) + "]";
  case IndexExpr::Kind::Const: return std::to_string(e.value());
  case IndexExpr::Kind::Add: {
    // "((a + b) + c)": every left-deep partial sum parenthesised, built in
    // one pass (nesting the strings would copy a long sum once per term).
    const std::vector<const IndexExpr *> terms = sumTerms(e);
    std::string sum(terms.size() - 1, '(');
    sum += pyIndex(*terms[0]);
    for (size_t i = 1; i < terms.size(); ++i)
      sum += " + " + pyIndex(*terms[i]) + ")";
    return sum;
  }
  case IndexExpr::Kind::Mul:
    return "(" + pyIndex(e.lhs()) + " * " + std::to_string(e.value()) + ")";
  case IndexExpr::Kind::FloorDiv:
    return "(" + pyIndex(e.lhs()) + " // " + std::to_string(e.value()) + ")";
  case IndexExpr::Kind::Mod:
    return "(" + pyIndex(e.lhs()) + " % " + std::to_string(e.value()) + ")";
  }
  return "0";
}

class Emitter {
public:
  Emitter(const Case &c, PyTorchForm form) : c_(c), model_(form == PyTorchForm::Model) {}
  bool run(std::string &out, std::string &unsupported);

private:
  /// The Python of `op`; an input becomes a parameter of kernel() and the
  /// load that gives it.
  bool emitOp(const Op &op, std::string &unsupported);
  /// One function per task of a chain (ir/Case.h), in `functions_`, each
  /// called in order by kernel() with the values it reads and returning
  /// those it hands on.
  bool emitChain(std::string &unsupported);
  std::string v(ValueId id) const { return "v" + std::to_string(id); }
  std::string operand(const Op &op, unsigned i) const { return v(op.operands[i]); }
  const TensorType &type(const Op &op, unsigned i = 0) const { return c_.typeOf(op.results[i]); }
  void line(const std::string &s) { body_ += "    " + s + "\n"; }
  void assign(const Op &op, const std::string &expr) { line(v(op.results[0]) + " = " + expr); }
  bool elementwise(const Op &op, OpKind kind, std::string &unsupported);
  bool view(const Op &op, std::string &unsupported);
  /// Model form: whether `v` may stay as small as its source and be
  /// broadcast by torch where it is used, as models write `ids ==
  /// torch.arange(E)`: every use is elementwise beside an operand of the
  /// full shape, or a cast or broadcast whose result may stay small too.
  /// (An arange broadcast explicitly is a constant subgraph, which Inductor
  /// folds on the device at compile time.)
  bool broadcastLater(ValueId v) const;
  /// Whether `v` is an iota, or a cast or broadcast of one: the constants
  /// broadcastLater may leave small.
  bool fromIota(ValueId v) const;
  bool other(const Op &op, std::string &unsupported);
  void cast(const Op &op);

  const Case &c_;
  /// PyTorchForm::Model: each op as the one torch call a model writes.
  const bool model_;
  std::string body_;
  std::string params_, loads_, functions_;
  int inputs_ = 0;
};

std::string arithmetic(OpKind kind, DType t, const std::string &x, const std::string &y) {
  switch (kind) {
  case OpKind::Add: return x + " + " + y;
  case OpKind::Sub: return x + " - " + y;
  case OpKind::Mul: return x + " * " + y;
  case OpKind::Div: return isFloat(t) ? x + " / " + y : "_idiv(" + x + ", " + y + ")";
  case OpKind::Max:
    return isFloat(t) ? "_fmax(" + x + ", " + y + ")" : "torch.maximum(" + x + ", " + y + ")";
  case OpKind::Min:
    return isFloat(t) ? "_fmin(" + x + ", " + y + ")" : "torch.minimum(" + x + ", " + y + ")";
  case OpKind::And: return x + " & " + y;
  case OpKind::Or: return x + " | " + y;
  case OpKind::Xor: return x + " ^ " + y;
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    return "";
  }
  return ""; // unreachable: every OpKind is a case above
}

std::string comparison(OpKind kind, const std::string &x, const std::string &y) {
  switch (kind) {
  case OpKind::CmpEq: return x + " == " + y;
  case OpKind::CmpNe: return x + " != " + y;
  case OpKind::CmpLt: return x + " < " + y;
  case OpKind::CmpLe: return x + " <= " + y;
  case OpKind::CmpGt: return x + " > " + y;
  case OpKind::CmpGe: return x + " >= " + y;
#define NPF_HANDLED_CATEGORY Compare
#include "ir/OpCasesOutside.def"
    return "";
  }
  return ""; // unreachable: every OpKind is a case above
}

/// The Python expression of a two-operand elementwise op (an expand op's
/// base op), empty when there is none.
std::string binary(OpKind kind, DType t, const std::string &x, const std::string &y) {
  switch (opCategory(kind)) {
  case OpCategory::Binary: return arithmetic(kind, t, x, y);
  case OpCategory::Compare: return comparison(kind, x, y);
  case OpCategory::Source:
  case OpCategory::Unary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand:
  case OpCategory::View:
  case OpCategory::Other: return "";
  }
  return ""; // unreachable: every OpCategory is a case above
}

bool Emitter::elementwise(const Op &op, OpKind kind, std::string &unsupported) {
  const DType t = c_.typeOf(op.operands[0]).dtype;
  const bool narrow = !model_ && (t == DType::F16 || t == DType::BF16);
  const bool compare = opCategory(kind) == OpCategory::Compare;
  // f16/bf16 compute in f32 and round once; compares are exact as they are.
  auto in = [&](unsigned i) {
    return narrow && !compare ? operand(op, i) + ".float()" : operand(op, i);
  };
  auto round = [&](const std::string &expr) {
    return narrow && !compare ? "(" + expr + ").to(" + torchType(t) + ")" : expr;
  };
  // Transcendentals: in f64, rounded once to f32 (then to the element type).
  auto viaDouble = [&](const std::string &fn) {
    return model_ ? fn : round("(" + fn + ").float()");
  };
  const std::string x = operand(op, 0);
  const std::string xd = model_ ? x : x + ".double()";
  if (op.operands.size() == 2) {
    const std::string e = binary(kind, t, in(0), in(1));
    if (e.empty())
      return unsupported = "pytorch: no form for " + std::string(opName(kind)), false;
    assign(op, round(e));
    return true;
  }
  switch (kind) {
  case OpKind::Neg: assign(op, round("-" + in(0))); return true;
  case OpKind::Abs: assign(op, round("torch.abs(" + in(0) + ")")); return true;
  case OpKind::Not: assign(op, "~" + x); return true;
  case OpKind::Relu:
    if (model_) {
      assign(op, "torch.relu(" + x + ")");
      return true;
    }
    // relu(-0) == +0 and NaN stays NaN.
    assign(op, isFloat(t) ? round("torch.where(torch.isnan(" + in(0) + ") | (" + in(0) + " > 0), " +
                                  in(0) + ", torch.zeros_like(" + in(0) + "))")
                          : "torch.where(" + x + " > 0, " + x + ", torch.zeros_like(" + x + "))");
    return true;
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::Sigmoid:
    assign(op, viaDouble("torch." + std::string(opName(kind)) + "(" + xd + ")"));
    return true;
  case OpKind::Silu: assign(op, viaDouble(xd + " * torch.sigmoid(" + xd + ")")); return true;
  case OpKind::Round: {
    // torch.round is half-even; rna is _round_half_away (the prelude).
    const char *fn = "torch.round";
    switch (op.attrs.rounding) {
    case RoundingMode::NearestEven: break;
    case RoundingMode::NearestAway: fn = "_round_half_away"; break;
    case RoundingMode::TowardZero: fn = "torch.trunc"; break;
    case RoundingMode::Down: fn = "torch.floor"; break;
    case RoundingMode::Up: fn = "torch.ceil"; break;
    }
    assign(op, round(std::string(fn) + "(" + in(0) + ")"));
    return true;
  }
  case OpKind::Clamp: {
    if (model_) {
      auto bound = [&](const Scalar &s) { return isFloat(t) ? pyFloat(s.f) : std::to_string(s.i); };
      assign(op, "torch.clamp(" + x + ", " + bound(op.attrs.lo) + ", " + bound(op.attrs.hi) + ")");
      return true;
    }
    // The bounds as tensors of x's type (rounded to it, as the case model
    // has them), then the same max and min as the binary ops.
    auto bound = [&](const Scalar &s) {
      const std::string b =
          "torch.full_like(" + x + ", " + (isFloat(t) ? pyFloat(s.f) : std::to_string(s.i)) + ")";
      return narrow ? b + ".float()" : b;
    };
    const std::string lo = bound(op.attrs.lo), hi = bound(op.attrs.hi);
    assign(op, round(binary(OpKind::Min, t, binary(OpKind::Max, t, in(0), lo), hi)));
    return true;
  }
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    return unsupported = "pytorch: no form for " + std::string(opName(kind)), false;
  }
  return false; // unreachable: every OpKind is a case above
}

void Emitter::cast(const Op &op) {
  const DType from = c_.typeOf(op.operands[0]).dtype, to = type(op).dtype;
  const RoundingMode m = op.attrs.rounding;
  const std::string x = operand(op, 0), tt = torchType(to);
  const std::string mode(roundingName(m));
  if (model_ && isFloat(from) && !isFloat(to) && to != DType::I1) {
    // A model's conversion truncates; the case's rounds as its mode says
    // (its values are compared on PyTorchSim's NPU model).
    const char *fn = "";
    switch (m) {
    case RoundingMode::NearestEven: fn = "torch.round"; break;
    case RoundingMode::NearestAway: fn = "_round_half_away"; break;
    case RoundingMode::TowardZero: break;
    case RoundingMode::Down: fn = "torch.floor"; break;
    case RoundingMode::Up: fn = "torch.ceil"; break;
    }
    assign(op, std::string(fn) + (*fn ? "(" + x + ")" : x) + ".to(" + tt + ")");
  } else if (model_ && !isFloat(to)) {
    assign(op, to == DType::I1 ? x + " != 0" : x + ".to(" + tt + ")");
  } else if (to == DType::I1) {
    assign(op, x + " != 0");
  } else if (isFloat(from) && !isFloat(to)) {
    assign(op, "_f2i(" + x + ", \"" + mode + "\", " + std::to_string(minIntValue(to)) + ", " +
                   std::to_string(maxIntValue(to)) + ", " + tt + ")");
  } else if (isFloat(to)) {
    // Exact casts round the same in every mode; rne is torch's own.
    const bool exact =
        isFloat(from) ? (from == to || to == DType::F32) : bitWidth(from) <= precision(to);
    if (m != RoundingMode::NearestEven && !exact)
      line("raise NotImplementedError(\"cast " + std::string(dtypeName(from)) + " -> " +
           std::string(dtypeName(to)) + " rounding " + mode + ": torch rounds to nearest even\")");
    // f16 <-> bf16 goes through f32, which is exact, so it rounds once.
    const bool viaF32 = !model_ && (from == DType::F16 || from == DType::BF16);
    assign(op, x + (viaF32 ? ".float()" : "") + ".to(" + tt + ")");
  } else {
    assign(op, x + ".to(" + tt + ")"); // int -> int wraps; i1 -> 0/1
  }
}

bool Emitter::view(const Op &op, std::string &unsupported) {
  const std::string x = operand(op, 0), shape = pyInts(type(op).shape);
  const OpAttrs &a = op.attrs;
  switch (op.kind) {
  case OpKind::Slice: {
    std::string idx;
    for (size_t i = 0; i < a.offsets.size(); ++i)
      idx += (i ? ", " : "") + std::to_string(a.offsets[i]) + ":" +
             std::to_string(a.offsets[i] + (a.sizes[i] - 1) * a.strides[i] + 1) + ":" +
             std::to_string(a.strides[i]);
    assign(op, x + "[" + idx + "]");
    break;
  }
  case OpKind::Chunk:
    assign(op, "torch.chunk(" + x + ", " + std::to_string(a.count) +
                   ", dim=" + std::to_string(a.axis) + ")[" + std::to_string(a.index) + "]");
    break;
  case OpKind::Transpose: assign(op, x + ".permute(" + pyInts(a.perm) + ")"); break;
  case OpKind::Reshape: assign(op, x + ".reshape(" + shape + ")"); break;
  case OpKind::Broadcast:
    assign(op, model_ && broadcastLater(op.results[0]) ? x : x + ".expand(" + shape + ")");
    break;
  case OpKind::Squeeze: assign(op, x + ".squeeze(" + std::to_string(a.axis) + ")"); break;
  case OpKind::Unsqueeze: assign(op, x + ".unsqueeze(" + std::to_string(a.axis) + ")"); break;
  case OpKind::IndexMap: {
    // A model indexes through views, never through gathers on index grids.
    if (model_)
      return unsupported = "pytorch model form: no form for index_map", false;
    // Index tensors: one broadcasting grid per result dim.
    line("d = _grids(" + shape + ")");
    std::string idx;
    for (size_t i = 0; i < a.map.size(); ++i)
      idx += (i ? ", " : "") + std::string("torch.as_tensor(") + pyIndex(a.map[i]) + ")";
    assign(op, x + "[" + idx + (a.map.size() == 1 ? "," : "") + "].expand(" + shape + ")");
    break;
  }
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
    return unsupported = "pytorch: no form for " + std::string(opName(op.kind)), false;
  }
  return true;
}

bool Emitter::other(const Op &op, std::string &unsupported) {
  const TensorType &t = type(op);
  const std::string x = operand(op, 0), tt = torchType(t.dtype);
  const OpAttrs &a = op.attrs;
  switch (op.kind) {
  case OpKind::Select:
    assign(op, "torch.where(" + x + ", " + operand(op, 1) + ", " + operand(op, 2) + ")");
    break;
  case OpKind::MaskedFill:
    assign(op, x + ".masked_fill(" + operand(op, 1) + ", " +
                   (isFloat(t.dtype) ? pyFloat(a.value.f) : std::to_string(a.value.i)) + ")");
    break;
  case OpKind::Cast: cast(op); break;
  case OpKind::ReduceSum:
    if (model_) {
      assign(op, x + ".sum(" + std::to_string(a.axis) + ", keepdim=True).to(" + tt + ")");
      break;
    }
    // An integer sum wraps at its type's width in any order: torch's own
    // sum in that type. A float sum keeps its order, f32 left to right.
    if (!isFloat(t.dtype) && t.dtype != DType::I1 && t.dtype != DType::Index) {
      assign(op, x + ".sum(" + std::to_string(a.axis) + ", keepdim=True, dtype=" + tt + ")");
      break;
    }
    assign(op, "_fold(" + x + ", " + std::to_string(a.axis) + ", lambda s, e: s + e, " +
                   (isFloat(t.dtype) ? "torch.float32" : tt) + ").to(" + tt + ")");
    break;
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: {
    const bool max = op.kind == OpKind::ReduceMax;
    if (model_) {
      assign(op, x + (max ? ".amax(" : ".amin(") + std::to_string(a.axis) + ", keepdim=True)");
      break;
    }
    assign(op, std::string(max ? "_rmax(" : "_rmin(") + x + ", " + std::to_string(a.axis) + ", " +
                   (isFloat(t.dtype) ? "True" : "False") + ")");
    break;
  }
  case OpKind::ArgMax:
    if (model_) {
      assign(op, "torch.argmax(" + x + ", " + std::to_string(a.axis) + ", keepdim=True)");
      break;
    }
    assign(op, "_argmax(" + x + ", " + std::to_string(a.axis) + ")");
    break;
  case OpKind::TopK:
    line(v(op.results[0]) + ", " + v(op.results[1]) + " = " + (model_ ? "torch.topk(" : "_topk(") +
         x + ", " + std::to_string(a.k) + ", " + std::to_string(a.axis) + ")");
    break;
  case OpKind::Matmul: assign(op, "_matmul(" + x + ", " + operand(op, 1) + ", " + tt + ")"); break;
  case OpKind::Gather: {
    // Out-of-range indices give undefined elements: clamp so torch accepts them.
    const int64_t n = c_.typeOf(op.operands[0]).shape[a.axis];
    assign(op, "torch.gather(" + x + ", " + std::to_string(a.axis) + ", " + operand(op, 1) +
                   ".to(torch.int64).clamp(0, " + std::to_string(n - 1) + "))");
    break;
  }
  case OpKind::SetValidShape:
    // Only metadata changes; the harness compares inside the valid shape.
    assign(op, x);
    break;
  case OpKind::FillPad: {
    const TensorType &src = c_.typeOf(op.operands[0]);
    const ValidShape vs = src.valid.value_or(ValidShape{src.shape[0], src.shape[1], false});
    std::string pad = "0";
    if (op.attrs.pad != PadKind::Zero) {
      const bool max = op.attrs.pad == PadKind::Max;
      // The model form pads with F.pad, whose value is a double: a 64-bit
      // integer's extremes are i32's there (its values are not compared).
      const DType range = model_ && bitWidth(t.dtype) > 32 ? DType::I32 : t.dtype;
      pad = isFloat(t.dtype)       ? (max ? "float(\"inf\")" : "float(\"-inf\")")
            : t.dtype == DType::I1 ? (max ? "True" : "False")
                                   : std::to_string(max ? maxIntValue(range) : minIntValue(range));
    }
    assign(op, "_fillpad(" + x + ", " + std::to_string(vs.rows) + ", " + std::to_string(vs.cols) +
                   ", " + pad + ")");
    break;
  }
  case OpKind::Insert: {
    // `out[r:, c:] = tile` on a copy of the destination, the source's
    // valid region only.
    const TensorType &src = c_.typeOf(op.operands[1]);
    std::vector<int64_t> sizes = src.shape;
    if (src.valid)
      sizes = {src.valid->rows, src.valid->cols};
    std::string to, from;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const int64_t at = a.offsets[d];
      to += (d ? ", " : "") + std::to_string(at) + ":" + std::to_string(at + sizes[d]);
      from += (d ? ", " : "") + std::string(":") + std::to_string(sizes[d]);
    }
    assign(op, x + ".clone()");
    line(v(op.results[0]) + "[" + to + "] = " + operand(op, 1) + "[" + from + "]");
    break;
  }
  case OpKind::Concat: {
    std::string list;
    for (size_t k = 0; k < op.operands.size(); ++k)
      list += (k ? ", " : "") + operand(op, k);
    assign(op, "torch.cat([" + list + "], " + std::to_string(a.axis) + ")");
    break;
  }
  case OpKind::Pad: {
    // constant_pad_nd's Scalar keeps a 64-bit value exact (F.pad's is a
    // double); its widths run from the last dim.
    std::string widths;
    for (size_t d = a.low.size(); d-- > 0;)
      widths += std::to_string(a.low[d]) + ", " + std::to_string(a.high[d]) + (d ? ", " : "");
    assign(op, "torch.constant_pad_nd(" + x + ", [" + widths + "], " +
                   (isFloat(t.dtype) ? pyFloat(a.value.f) : std::to_string(a.value.i)) + ")");
    break;
  }
  case OpKind::ReduceMean:
    assign(op, x + ".mean(" + std::to_string(a.axis) + ", keepdim=True)");
    break;
  case OpKind::AvgPool2d:
    assign(op, "torch.nn.functional.avg_pool2d(" + x + ", " + pyList(a.kernel) + ", " +
                   pyList(a.strides) + ", " + pyList(a.padding) + ")");
    break;
  case OpKind::MaxPool2d:
    line(v(op.results[0]) + ", " + v(op.results[1]) + " = torch.nn.functional.max_pool2d(" + x +
         ", " + pyList(a.kernel) + ", " + pyList(a.strides) + ", " + pyList(a.padding) + ", " +
         pyList(a.dilation) + ", return_indices=True)");
    break;
  case OpKind::Addmm: {
    // In f32, as a matmul's products and sums. A weight [N, K] transposed
    // with a bias per column is a linear layer: F.linear, as models call it.
    const Op &bDef = c_.ops[c_.values[op.operands[2]].defOp];
    const std::vector<int64_t> &bias = c_.typeOf(op.operands[0]).shape;
    const std::string a1 = operand(op, 1) + ".float()";
    if (t.rank() == 2 && bDef.kind == OpKind::Transpose && bias[0] == 1) {
      // b's own source may belong to another task: b transposed back.
      assign(op, "torch.nn.functional.linear(" + a1 + ", " + operand(op, 2) + ".t().float(), " + x +
                     ".float().reshape(" + std::to_string(bias[1]) + "))");
      break;
    }
    // A constant bias is added to a matmul, as a model's graph holds it
    // before Inductor's patterns fold the two.
    if (c_.ops[c_.values[op.operands[0]].defOp].kind == OpKind::Const) {
      assign(op, "torch.matmul(" + a1 + ", " + operand(op, 2) + ".float()) + " + x + ".float()");
      break;
    }
    assign(op, std::string(t.rank() == 3 ? "torch.baddbmm(" : "torch.addmm(") + x + ".float(), " +
                   a1 + ", " + operand(op, 2) + ".float())");
    break;
  }
  case OpKind::Conv2d: {
    // Products and sums of floats in f32 (the result type), as a matmul's;
    // integers wrap in their own type.
    const bool integer = !isFloat(t.dtype);
    if (integer && t.dtype != DType::I64 && (a.dilation[0] > 1 || a.dilation[1] > 1))
      return unsupported = "pytorch: a dilated convolution of " + std::string(dtypeName(t.dtype)) +
                           " (torch's slow_conv_dilated takes no 8- or 32-bit integers)",
             false;
    const std::string widen = integer ? "" : ".float()";
    assign(op, "torch.nn.functional.conv2d(" + x + widen + ", " + operand(op, 1) + widen +
                   ", None, " + pyList(a.strides) + ", " + pyList(a.padding) + ", " +
                   pyList(a.dilation) + ", " + std::to_string(a.groups) + ")");
    break;
  }
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return unsupported = "pytorch: no form for " + std::string(opName(op.kind)), false;
  }
  return true;
}

bool Emitter::fromIota(ValueId v) const {
  const Op &def = c_.ops[c_.values[v].defOp];
  if (def.kind == OpKind::Iota)
    return true;
  const bool passesShapeOn = def.kind == OpKind::Broadcast || def.kind == OpKind::Cast ||
                             opCategory(def.kind) == OpCategory::Unary;
  return passesShapeOn && fromIota(def.operands[0]);
}

bool Emitter::broadcastLater(ValueId v) const {
  if (!fromIota(v) || std::find(c_.outputs.begin(), c_.outputs.end(), v) != c_.outputs.end())
    return false;
  const std::vector<int64_t> &full = c_.typeOf(v).shape;
  bool used = false;
  for (const Op &op : c_.ops) {
    const auto at = std::find(op.operands.begin(), op.operands.end(), v);
    if (at == op.operands.end())
      continue;
    used = true;
    // Another operand of the full shape that is not itself left small.
    const bool besideFull = std::any_of(op.operands.begin(), op.operands.end(), [&](ValueId o) {
      return o != v && c_.typeOf(o).shape == full && !fromIota(o);
    });
    switch (opCategory(op.kind)) {
    case OpCategory::Unary:
      if (!broadcastLater(op.results[0]))
        return false;
      break;
    case OpCategory::Binary:
    case OpCategory::Compare:
      if (!besideFull)
        return false;
      break;
    case OpCategory::View:
      if (op.kind != OpKind::Broadcast || !broadcastLater(op.results[0]))
        return false;
      break;
    case OpCategory::Other:
      // masked_fill broadcasts its mask to its input, where its select.
      if ((op.kind == OpKind::Cast && broadcastLater(op.results[0])) ||
          (op.kind == OpKind::MaskedFill && at - op.operands.begin() == 1 && besideFull) ||
          (op.kind == OpKind::Select && besideFull))
        break;
      return false;
    case OpCategory::Source:
    case OpCategory::RowExpand:
    case OpCategory::ColExpand: return false;
    }
  }
  return used;
}

bool Emitter::emitOp(const Op &op, std::string &unsupported) {
  const TensorType &t = type(op);
  const std::string tt = torchType(t.dtype), shape = pyInts(t.shape);
  if (!c_.values[op.results[0]].name.empty())
    line("# %" + c_.values[op.results[0]].name + ": " + t.str());
  switch (opCategory(op.kind)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare:
    if (!elementwise(op, op.kind, unsupported))
      return false;
    return true;
  case OpCategory::RowExpand:
  case OpCategory::ColExpand:
    // The [R,1] / [1,C] operand broadcasts like pto trowexpand*/tcolexpand*.
    if (!elementwise(op, expandBaseOp(op.kind), unsupported))
      return false;
    return true;
  case OpCategory::View:
    if (!view(op, unsupported))
      return false;
    return true;
  case OpCategory::Other:
    if (!other(op, unsupported))
      return false;
    return true;
  case OpCategory::Source: // below: an input is a parameter of the kernel
    break;
  }
  const OpAttrs &a = op.attrs;
  switch (op.kind) {
  case OpKind::Input:
    params_ += (inputs_ ? ", " : "") + v(op.results[0]);
    loads_ += std::string(inputs_ ? ", " : "") + "_load(d, \"in" + std::to_string(inputs_) +
              ".npy\", " + tt + ")";
    ++inputs_;
    break;
  case OpKind::Const:
    // A model's constants of other types are f32 or i32 ones cast: what
    // devices fill (PyTorchSim's fill_ takes f32, i32 and i64).
    if (model_ && t.dtype != DType::F32 && t.dtype != DType::I32 && t.dtype != DType::I64 &&
        t.dtype != DType::Index) {
      const bool asFloat = isFloat(t.dtype);
      assign(op, "torch.full(" + shape + ", " +
                     (asFloat ? pyFloat(a.value.f) : std::to_string(a.value.i)) +
                     ", dtype=" + (asFloat ? "torch.float32" : "torch.int32") + ", device=_DEV)" +
                     (t.dtype == DType::I1 ? " != 0" : ".to(" + tt + ")"));
      break;
    }
    assign(op, "torch.full(" + shape + ", " +
                   (isFloat(t.dtype)       ? pyFloat(a.value.f)
                    : t.dtype == DType::I1 ? std::string(a.value.i ? "True" : "False")
                                           : std::to_string(a.value.i)) +
                   ", dtype=" + tt + (model_ ? ", device=_DEV" : "") + ")");
    break;
  case OpKind::Iota:
    if (model_) {
      // torch.arange along the axis, broadcast as a model writes it.
      std::string trailing;
      for (size_t d = a.axis + 1; d < t.shape.size(); ++d)
        trailing += ".unsqueeze(-1)";
      if (!broadcastLater(op.results[0]))
        trailing += ".expand(" + shape + ")";
      assign(op, "torch.arange(" + std::to_string(t.shape[a.axis]) + ", device=_DEV)" + trailing +
                     (t.dtype == DType::I1    ? " % 2 == 1"
                      : t.dtype == DType::I64 ? std::string()
                                              : ".to(" + tt + ")"));
      break;
    }
    assign(op, "_grids(" + shape + ")[" + std::to_string(a.axis) + "].expand(" + shape + ")" +
                   (t.dtype == DType::I1 ? " % 2 == 1" : ".to(" + tt + ")"));
    break;
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
    return unsupported = "pytorch: no form for " + std::string(opName(op.kind)), false;
  }
  return true;
}

namespace {
/// `a, b, c`.
std::string joined(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}
} // namespace

bool Emitter::emitChain(std::string &unsupported) {
  const std::vector<int32_t> taskOf = opTasks(c_);
  const std::vector<TaskOps> tasks = taskOps(c_);
  for (size_t k = 0; k < tasks.size(); ++k) {
    std::set<ValueId> defined;
    for (size_t i : tasks[k].ops)
      defined.insert(c_.ops[i].results.begin(), c_.ops[i].results.end());
    // What it reads of the inputs and earlier tasks, in order of first use;
    // what a later task or the host reads of it.
    std::vector<std::string> reads, hands;
    std::set<ValueId> read;
    for (size_t i : tasks[k].ops)
      for (ValueId o : c_.ops[i].operands)
        if (!defined.count(o) && read.insert(o).second)
          reads.push_back(v(o));
    for (size_t i : tasks[k].ops)
      for (ValueId r : c_.ops[i].results) {
        bool later = std::find(c_.outputs.begin(), c_.outputs.end(), r) != c_.outputs.end();
        for (size_t j = 0; j < c_.ops.size() && !later; ++j)
          later = taskOf[j] != tasks[k].task &&
                  std::find(c_.ops[j].operands.begin(), c_.ops[j].operands.end(), r) !=
                      c_.ops[j].operands.end();
        if (later)
          hands.push_back(v(r));
      }
    std::string name = "task" + std::to_string(k) + "_";
    for (char ch : c_.tasks[tasks[k].task].name)
      name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    std::string kernelBody = std::move(body_);
    body_.clear();
    for (size_t i : tasks[k].ops)
      if (!emitOp(c_.ops[i], unsupported))
        return false;
    functions_ += "def " + name + "(" + joined(reads) + "):\n" + body_ + "    return (" +
                  joined(hands) + (hands.empty() ? "" : ",") + ")\n\n\n";
    body_ = std::move(kernelBody);
    line((hands.empty() ? "" : "(" + joined(hands) + ",) = ") + name + "(" + joined(reads) + ")");
  }
  return true;
}

bool Emitter::run(std::string &out, std::string &unsupported) {
  std::string outs, saves;
  if (c_.tasks.empty()) {
    for (const Op &op : c_.ops)
      if (!emitOp(op, unsupported))
        return false;
  } else {
    // The host's inputs, then the tasks.
    for (const Op &op : c_.ops)
      if (op.kind == OpKind::Input && !emitOp(op, unsupported))
        return false;
    if (!emitChain(unsupported))
      return false;
  }
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    outs += v(c_.outputs[k]) + ", ";
    saves +=
        "    _save(d, \"out" + std::to_string(k) + ".npy\", outs[" + std::to_string(k) + "])\n";
  }
  out =
      "#!/usr/bin/env python3\n"
      "# Generated by npufuzz (backend/emit/PyTorchEmitter.h); semantics: ir/Case.h.\n"
      "# Usage: python3 program.py [CASE_DIR]; reads inK.npy, writes outK.npy.\n"
      "# NPUFUZZ_TORCH_COMPILE=<backend> runs kernel() under torch.compile.\n"
      "# Valid shapes are not masked: ops compute on the full tile, and only\n"
      "# elements inside valid shapes are compared.\n" +
      std::string(model_ ? kModelPrelude : kPrelude) + "\n" + functions_ + "def kernel(" + params_ +
      "):\n" + body_ + "    return (" + outs +
      ")\n\n\ndef main():\n"
      "    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))\n"
      "    fn = kernel\n"
      "    if os.environ.get(\"NPUFUZZ_TORCH_COMPILE\"):\n"
      "        if not hasattr(torch, \"compile\"):\n"
      "            # Exit 77: unsupported, with this line as the reason.\n"
      "            sys.stderr.write(\"torch \" + torch.__version__ + \" has no torch.compile; \"\n"
      "                             \"NPUFUZZ_TORCH_COMPILE needs torch 2 or later\\n\")\n"
      "            sys.exit(77)\n"
      "        fn = torch.compile(kernel, backend=os.environ[\"NPUFUZZ_TORCH_COMPILE\"],\n"
      "                           fullgraph=True, dynamic=False)\n"
      "    outs = fn(" +
      loads_ + ")\n" + saves + "\n\nif __name__ == \"__main__\":\n    main()\n";
  return true;
}

} // namespace

std::string_view torchDtypeName(DType t) { return std::string_view(torchType(t)).substr(6); }

bool emitPyTorch(const Case &c, std::string &out, std::string &unsupported, PyTorchForm form) {
  return Emitter(c, form).run(out, unsupported);
}

} // namespace npufuzz
