//===- ir/RefTensor.cpp - A tensor value of the reference ----------===//

#include "ir/RefTensor.h"

namespace npufuzz {

RefTensor RefTensor::zeros(const TensorType &t) {
  RefTensor r;
  r.type = t;
  const size_t n = static_cast<size_t>(t.numElements());
  if (npufuzz::isFloat(t.dtype))
    r.f.assign(n, 0.0f);
  else
    r.i.assign(n, 0);
  r.defined.assign(n, 0);
  return r;
}

std::vector<int64_t> RefTensor::strides() const {
  std::vector<int64_t> s(type.shape.size());
  int64_t acc = 1;
  for (size_t d = s.size(); d-- > 0;) {
    s[d] = acc;
    acc *= type.shape[d];
  }
  return s;
}

bool RefTensor::insideValid(int64_t k) const {
  if (!type.valid || type.rank() != 2)
    return true;
  const int64_t cols = type.shape[1];
  return k / cols < type.valid->rows && k % cols < type.valid->cols;
}

void RefTensor::normalize() {
  if (type.valid && type.rank() == 2) {
    const int64_t rows = type.shape[0], cols = type.shape[1];
    const int64_t vr = type.valid->rows, vc = type.valid->cols;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = (r < vr ? vc : 0); c < cols; ++c)
        defined[r * cols + c] = 0;
  }
  const int64_t n = numElements();
  if (isFloat()) {
    for (int64_t k = 0; k < n; ++k)
      f[k] = defined[k] ? f[k] : 0.0f;
  } else {
    for (int64_t k = 0; k < n; ++k)
      i[k] = defined[k] ? i[k] : 0;
  }
}

} // namespace npufuzz
