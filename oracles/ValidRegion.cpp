//===- oracles/ValidRegion.cpp - Outputs keep what lies outside their valid shape ===//
#include "oracles/ValidRegion.h"

namespace npufuzz {

bool holdsFill(const TensorData &t, int64_t k, uint32_t fill) {
  const size_t size = t.elementBytes();
  for (size_t i = static_cast<size_t>(k) * size; i < static_cast<size_t>(k + 1) * size; ++i)
    if (t.bytes[i] != static_cast<uint8_t>(fill >> (8 * (i % 4))))
      return false;
  return true;
}

std::optional<std::string> writeOutsideValidRegion(const TensorData &output, uint32_t fill) {
  const TensorType &t = output.type;
  if (!t.valid || t.rank() != 2)
    return std::nullopt;
  const int64_t rows = t.shape[0], cols = t.shape[1];
  std::optional<std::pair<int64_t, int64_t>> first;
  int64_t written = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < t.valid->rows ? t.valid->cols : 0; c < cols; ++c) {
      if (holdsFill(output, r * cols + c, fill))
        continue;
      if (!first)
        first = {r, c};
      ++written;
    }
  if (!first)
    return std::nullopt;
  return "element [" + std::to_string(first->first) + ", " + std::to_string(first->second) +
         "] outside valid " + std::to_string(t.valid->rows) + "x" + std::to_string(t.valid->cols) +
         " (" + std::to_string(written) + " written)";
}

} // namespace npufuzz
