//===- ir/Storage.cpp - Reference tensors <-> memory layout --------===//
#include "ir/Storage.h"

#include <cstring>

namespace npufuzz {

TensorData toTensorData(const RefTensor &t) {
  TensorData d = TensorData::filled(t.type, 0);
  const int64_t n = t.numElements();
  uint8_t *p = d.data();
  for (int64_t k = 0; k < n; ++k) {
    switch (t.type.dtype) {
    case DType::F32: std::memcpy(p + 4 * k, &t.f[k], 4); break;
    case DType::BF16: {
      const uint16_t b = floatToBF16Bits(t.f[k], RoundingMode::NearestEven);
      std::memcpy(p + 2 * k, &b, 2);
      break;
    }
    case DType::F16: {
      const uint16_t b = floatToF16Bits(t.f[k], RoundingMode::NearestEven);
      std::memcpy(p + 2 * k, &b, 2);
      break;
    }
    case DType::I8:
    case DType::I1: p[k] = static_cast<uint8_t>(t.i[k]); break;
    case DType::I32: {
      const int32_t v = static_cast<int32_t>(t.i[k]);
      std::memcpy(p + 4 * k, &v, 4);
      break;
    }
    case DType::I64:
    case DType::Index: std::memcpy(p + 8 * k, &t.i[k], 8); break;
    }
  }
  return d;
}

std::vector<TensorData> toTensorData(const std::vector<RefTensor> &ts) {
  std::vector<TensorData> out;
  for (const RefTensor &t : ts)
    out.push_back(toTensorData(t));
  return out;
}

RefTensor fromTensorData(const TensorData &d) {
  RefTensor t = RefTensor::zeros(d.type);
  const int64_t n = d.numElements();
  const uint8_t *p = d.data();
  for (int64_t k = 0; k < n; ++k) {
    t.defined[k] = 1;
    switch (d.type.dtype) {
    case DType::F32: std::memcpy(&t.f[k], p + 4 * k, 4); break;
    case DType::BF16:
    case DType::F16: {
      uint16_t b;
      std::memcpy(&b, p + 2 * k, 2);
      t.f[k] = d.type.dtype == DType::BF16 ? bf16BitsToFloat(b) : f16BitsToFloat(b);
      break;
    }
    case DType::I8: t.i[k] = static_cast<int8_t>(p[k]); break;
    case DType::I1:
      t.i[k] = p[k]; // a kernel writing anything but 0/1 shows up as a mismatch
      break;
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p + 4 * k, 4);
      t.i[k] = v;
      break;
    }
    case DType::I64:
    case DType::Index: std::memcpy(&t.i[k], p + 8 * k, 8); break;
    }
  }
  return t;
}

} // namespace npufuzz
