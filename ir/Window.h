//===- ir/Window.h - The 2-D windows of conv2d and the pools ----*- C++ -*-===//
//
// conv2d, avg_pool2d and max_pool2d slide a window over the H and W dims
// of an NCHW tensor. What a window is (its kernel, stride, zero padding
// and dilation per dim) and where its taps land is stated once here, for
// type inference, the reference, the bounds of its sums and the emitters.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_WINDOW_H
#define NPUFUZZ_IR_WINDOW_H

#include "ir/Case.h"

#include <array>
#include <cstdint>

namespace npufuzz {

/// One window, per spatial dim: index 0 is H, 1 is W.
struct Window2d {
  std::array<int64_t, 2> kernel{1, 1}, stride{1, 1}, padding{0, 0}, dilation{1, 1};

  /// Taps per window (kernel[0] * kernel[1]).
  int64_t taps() const { return kernel[0] * kernel[1]; }
  /// The output extent along dim `d` of an input extent `in`, or 0 when no
  /// window fits.
  int64_t outExtent(unsigned d, int64_t in) const;
  /// The input coordinate along dim `d` of tap `t` of the window at output
  /// coordinate `o`; outside [0, in) in the padding.
  int64_t tapAt(unsigned d, int64_t o, int64_t t) const {
    return o * stride[d] - padding[d] + t * dilation[d];
  }
};

/// Calls `tap(th, tw, h, x)` for each tap (th, tw) of the window at output
/// (oh, ow) that lands inside an H x W plane, at (h, x), in row-major window
/// order: the order every sum of the reference adds its terms in.
template <class Tap>
void forEachTap(const Window2d &w, int64_t H, int64_t W, int64_t oh, int64_t ow, Tap tap) {
  for (int64_t th = 0; th < w.kernel[0]; ++th) {
    const int64_t h = w.tapAt(0, oh, th);
    if (h < 0 || h >= H)
      continue;
    for (int64_t tw = 0; tw < w.kernel[1]; ++tw) {
      const int64_t x = w.tapAt(1, ow, tw);
      if (x >= 0 && x < W)
        tap(th, tw, h, x);
    }
  }
}

/// The window of a conv2d, avg_pool2d or max_pool2d op from its attributes
/// (a dilation it does not take is 1) and, for conv2d, its weight's type
/// (the kernel is its last two dims); false when an attribute list does not
/// hold two positive values (padding: non-negative) or the weight is not
/// rank 4.
bool windowOf(const Op &op, const TensorType &weight, Window2d &w);
/// The same for op of case `c`.
bool windowOf(const Case &c, const Op &op, Window2d &w);

} // namespace npufuzz

#endif // NPUFUZZ_IR_WINDOW_H
