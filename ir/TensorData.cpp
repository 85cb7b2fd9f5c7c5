//===- ir/TensorData.cpp - A tensor in memory layout ----------------------===//
#include "ir/TensorData.h"

namespace npufuzz {

TensorData TensorData::filled(const TensorType &t, uint32_t pattern) {
  TensorData d;
  d.type = t;
  d.bytes.resize(static_cast<size_t>(t.numElements()) * byteSize(t.dtype));
  for (size_t i = 0; i < d.bytes.size(); ++i)
    d.bytes[i] = static_cast<uint8_t>(pattern >> (8 * (i % 4)));
  return d;
}

} // namespace npufuzz
