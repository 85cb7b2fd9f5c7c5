//===- ir/TensorData.cpp - A tensor in memory layout ----------------------===//
#include "ir/TensorData.h"

#include <algorithm>
#include <cstring>

namespace npufuzz {

void fillPattern(uint8_t *bytes, size_t n, uint32_t pattern) {
  for (size_t i = 0; i < n && i < 4; ++i)
    bytes[i] = static_cast<uint8_t>(pattern >> (8 * i));
  // Then copy what is filled onto what follows, doubling each time.
  for (size_t done = 4; done < n; done *= 2)
    std::memcpy(bytes + done, bytes, std::min(done, n - done));
}

TensorData TensorData::filled(const TensorType &t, uint32_t pattern) {
  TensorData d;
  d.type = t;
  d.bytes.resize(static_cast<size_t>(t.numElements()) * byteSize(t.dtype));
  fillPattern(d.bytes.data(), d.bytes.size(), pattern);
  return d;
}

} // namespace npufuzz
