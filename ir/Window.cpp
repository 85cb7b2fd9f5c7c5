//===- ir/Window.cpp - The 2-D windows of conv2d and the pools ------------===//
#include "ir/Window.h"

namespace npufuzz {

int64_t Window2d::outExtent(unsigned d, int64_t in) const {
  const int64_t span = dilation[d] * (kernel[d] - 1) + 1;
  const int64_t room = in + 2 * padding[d] - span;
  return room < 0 ? 0 : room / stride[d] + 1;
}

namespace {
bool read(const std::vector<int64_t> &from, std::array<int64_t, 2> &to, int64_t least) {
  if (from.size() != 2 || from[0] < least || from[1] < least)
    return false;
  to = {from[0], from[1]};
  return true;
}
} // namespace

bool windowOf(const Op &op, const TensorType &weight, Window2d &w) {
  w = Window2d();
  const OpAttrs &a = op.attrs;
  if (op.kind == OpKind::Conv2d) {
    if (weight.rank() != 4 || weight.shape[2] < 1 || weight.shape[3] < 1)
      return false;
    w.kernel = {weight.shape[2], weight.shape[3]};
  } else if (!read(a.kernel, w.kernel, 1)) {
    return false;
  }
  if (!read(a.strides, w.stride, 1) || !read(a.padding, w.padding, 0))
    return false;
  return op.kind == OpKind::AvgPool2d || read(a.dilation, w.dilation, 1);
}

bool windowOf(const Case &c, const Op &op, Window2d &w) {
  const bool conv = op.kind == OpKind::Conv2d && op.operands.size() == 2;
  return windowOf(op, conv ? c.typeOf(op.operands[1]) : TensorType{}, w);
}

} // namespace npufuzz
