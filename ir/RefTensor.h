//===- ir/RefTensor.h - A tensor value of the reference --*- C++ -*-===//
//
// A tensor value with definedness: a row-major element buffer plus a
// per-element mask. The reference executor computes in it; backends and
// the .npy files of external toolchains exchange it (ir/Storage.h,
// ir/Npy.h), which is why it lives below both. Free of xtensor.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_REFTENSOR_H
#define NPUFUZZ_IR_REFTENSOR_H

#include "ir/Case.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

struct RefTensor {
  TensorType type;
  /// Float dtypes: values exactly representable in the dtype. Empty otherwise.
  std::vector<float> f;
  /// Integer-like dtypes (incl. index, i1): values wrapped to the width.
  /// Empty for float dtypes.
  std::vector<int64_t> i;
  /// 1 = defined, row-major; same length as the element count. Undefined
  /// elements hold the value 0 in results of the executor.
  std::vector<uint8_t> defined;

  /// A tensor of `t` with every element 0 and undefined.
  static RefTensor zeros(const TensorType &t);

  int64_t numElements() const { return static_cast<int64_t>(defined.size()); }
  bool isFloat() const { return npufuzz::isFloat(type.dtype); }
  bool isDefined(int64_t k) const { return defined[k] != 0; }
  float floatAt(int64_t k) const { return f[k]; }
  int64_t intAt(int64_t k) const { return i[k]; }
  /// The element as a double (exact for floats and |ints| <= 2^53).
  double valueAt(int64_t k) const {
    return isFloat() ? static_cast<double>(f[k]) : static_cast<double>(i[k]);
  }

  /// Row-major strides (in elements) of the type's shape.
  std::vector<int64_t> strides() const;
  /// True when linear element `k` lies inside the type's valid shape (always
  /// true without one). Rank-2 only has a valid shape.
  bool insideValid(int64_t k) const;
  /// Marks every element outside the valid shape undefined, then sets every
  /// undefined element to 0 so results are deterministic.
  void normalize();
};

} // namespace npufuzz

#endif // NPUFUZZ_IR_REFTENSOR_H
