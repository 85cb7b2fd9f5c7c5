//===- ir/WorkloadTypes.cpp - Typing rules of the workload ops ------------===//
//
// concat, pad, reduce_mean and the windows over NCHW (conv2d, avg_pool2d,
// max_pool2d): the rules ir/Case.h states, checked as the limits torch's
// own ops keep (a pool's padding at most half its kernel), so that every
// case one backend takes is a program the others can be given too.
//
//===----------------------------------------------------------------------===//
#include "ir/TypeRules.h"
#include "ir/Window.h"

namespace npufuzz {

namespace {

bool fail(std::string &error, std::string message) {
  error = std::move(message);
  return false;
}

bool isFloatOperand(OpKind k, const TensorType &t, std::string &error) {
  if (isFloat(t.dtype))
    return true;
  return fail(error,
              std::string(opName(k)) + " takes floats, not " + std::string(dtypeName(t.dtype)));
}

bool inferConcat(const Op &op, const std::vector<const TensorType *> &in, TensorType &r,
                 std::string &error) {
  const TensorType &first = *in[0];
  if (!checkAxis(op.attrs.axis, first.rank(), error))
    return false;
  const size_t axis = static_cast<size_t>(op.attrs.axis);
  r.dtype = first.dtype;
  r.shape = first.shape;
  r.shape[axis] = 0;
  for (const TensorType *t : in) {
    bool same = t->dtype == first.dtype && t->rank() == first.rank();
    for (size_t d = 0; same && d < first.rank(); ++d)
      same = d == axis || t->shape[d] == first.shape[d];
    if (!same)
      return fail(error, "concat along " + std::to_string(axis) + " of " + t->str() + " and " +
                             first.str() + ": dtypes, ranks or the other dims differ");
    r.shape[axis] += t->shape[axis];
  }
  return true;
}

bool inferPad(const Op &op, const TensorType &x, TensorType &r, std::string &error) {
  const OpAttrs &a = op.attrs;
  if (x.dtype == DType::I1 || x.dtype == DType::Index)
    return fail(error, "pad does not take " + std::string(dtypeName(x.dtype)));
  if (a.low.size() != x.rank() || a.high.size() != x.rank())
    return fail(error,
                "pad needs low and high for each of its " + std::to_string(x.rank()) + " dims");
  r.dtype = x.dtype;
  r.shape = x.shape;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (a.low[d] < 0 || a.high[d] < 0)
      return fail(error, "pad widths are not negative: low " + shapeStr(a.low) + ", high " +
                             shapeStr(a.high));
    r.shape[d] += a.low[d] + a.high[d];
  }
  if (isIntLike(x.dtype) && (a.value.i < minIntValue(x.dtype) || a.value.i > maxIntValue(x.dtype)))
    return fail(error, "value " + std::to_string(a.value.i) + " does not fit " +
                           std::string(dtypeName(x.dtype)));
  return true;
}

/// avg_pool2d, max_pool2d and conv2d: an NCHW input, a window that fits.
bool inferWindow(const Op &op, const std::vector<const TensorType *> &in,
                 std::vector<TensorType> &types, std::string &error) {
  const TensorType &x = *in[0];
  const bool conv = op.kind == OpKind::Conv2d;
  // An integer convolution wraps at its type's width, in any order.
  const bool integerConv = conv && isInteger(x.dtype) && x.dtype != DType::Index;
  if (!integerConv && !isFloatOperand(op.kind, x, error))
    return false;
  if (x.rank() != 4)
    return fail(error, std::string(opName(op.kind)) + " takes an NCHW operand, not " + x.str());
  Window2d w;
  if (!windowOf(op, conv ? *in[1] : TensorType{}, w))
    return fail(error, std::string(opName(op.kind)) +
                           " needs two positive kernel, stride and dilation values and two "
                           "non-negative paddings");
  TensorType r{x.dtype, x.shape, std::nullopt};
  for (unsigned d = 0; d < 2; ++d) {
    // torch's rule, which keeps every window's taps partly in bounds.
    if (!conv && 2 * w.padding[d] > w.kernel[d])
      return fail(error, std::string(opName(op.kind)) + " pads at most half its kernel");
    r.shape[2 + d] = w.outExtent(d, x.shape[2 + d]);
    if (r.shape[2 + d] < 1)
      return fail(error, std::string(opName(op.kind)) + ": no window fits " + x.str());
  }
  if (conv) {
    const TensorType &wt = *in[1];
    const int64_t groups = op.attrs.groups;
    if (wt.dtype != x.dtype)
      return fail(error, "conv2d's weight " + wt.str() + " is not of its input's dtype");
    if (groups < 1 || x.shape[1] % groups != 0 || wt.shape[0] % groups != 0 ||
        wt.shape[1] * groups != x.shape[1])
      return fail(error, "conv2d of " + x.str() + " by " + wt.str() + " in " +
                             std::to_string(groups) +
                             " groups: the channels do not divide into the groups");
    r.dtype = integerConv ? x.dtype : DType::F32;
    r.shape[1] = wt.shape[0];
  }
  types = {r};
  if (op.kind == OpKind::MaxPool2d) {
    TensorType idx = r;
    idx.dtype = DType::I64;
    types.push_back(idx);
  }
  return true;
}

bool inferAddmm(const std::vector<const TensorType *> &in, TensorType &r, std::string &error) {
  const TensorType &bias = *in[0], &a = *in[1], &b = *in[2];
  const unsigned rank = a.rank();
  if (!isFloat(a.dtype) || b.dtype != a.dtype || bias.dtype != a.dtype)
    return fail(error, "addmm takes floats of one dtype, not " + bias.str() + ", " + a.str() +
                           ", " + b.str());
  if ((rank != 2 && rank != 3) || b.rank() != rank || bias.rank() != rank ||
      (rank == 3 && a.shape[0] != b.shape[0]) || a.shape[rank - 1] != b.shape[rank - 2])
    return fail(error, "addmm of " + a.str() + " by " + b.str() +
                           ": not two rank-2 or rank-3 operands that contract");
  r.dtype = DType::F32;
  r.shape = a.shape;
  r.shape[rank - 1] = b.shape[rank - 1];
  for (unsigned d = 0; d < rank; ++d)
    if (bias.shape[d] != 1 && bias.shape[d] != r.shape[d])
      return fail(error,
                  "addmm's bias " + bias.str() + " does not broadcast to " + shapeStr(r.shape));
  return true;
}

} // namespace

bool inferWorkload(const Op &op, const std::vector<const TensorType *> &in,
                   std::vector<TensorType> &types, std::string &error) {
  TensorType r;
  if (op.kind == OpKind::AvgPool2d || op.kind == OpKind::MaxPool2d || op.kind == OpKind::Conv2d) {
    if (!inferWindow(op, in, types, error))
      return false;
    for (const TensorType &t : types)
      if (!checkShape(t.shape, error))
        return false;
    return true;
  }
  if (op.kind == OpKind::Concat) {
    if (!inferConcat(op, in, r, error))
      return false;
  } else if (op.kind == OpKind::Pad) {
    if (!inferPad(op, *in[0], r, error))
      return false;
  } else if (op.kind == OpKind::Addmm) {
    if (!inferAddmm(in, r, error))
      return false;
  } else if (op.kind == OpKind::ReduceMean) {
    if (!isFloatOperand(op.kind, *in[0], error) || !checkAxis(op.attrs.axis, in[0]->rank(), error))
      return false;
    r.dtype = in[0]->dtype;
    r.shape = in[0]->shape;
    r.shape[static_cast<size_t>(op.attrs.axis)] = 1;
  } else {
    return fail(error, "not a workload op: " + std::string(opName(op.kind)));
  }
  if (!checkShape(r.shape, error))
    return false;
  types = {r};
  return true;
}

} // namespace npufuzz
