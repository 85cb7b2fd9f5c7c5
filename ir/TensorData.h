//===- ir/TensorData.h - A tensor in memory layout --------------*- C++ -*-===//
//
// The bytes a compiled kernel reads and writes: row-major elements of
// byteSize(dtype) bytes each, with f16/bf16 as their 16-bit patterns, i1 as
// one byte holding 0 or 1, and index as int64. Backends exchange data in this
// form; the reference converts to and from it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_TENSORDATA_H
#define NPUFUZZ_IR_TENSORDATA_H

#include "ir/Case.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npufuzz {

/// Sets `n` bytes at `bytes` to the 32-bit `pattern` repeated, low byte
/// first: the poison of output buffers and of a kernel's temporaries.
void fillPattern(uint8_t *bytes, size_t n, uint32_t pattern);

struct TensorData {
  TensorType type;
  std::vector<uint8_t> bytes;

  /// A buffer of `t`'s size with every 32-bit word set to `pattern` (the
  /// poison fill of outputs before a kernel runs).
  static TensorData filled(const TensorType &t, uint32_t pattern);
  int64_t numElements() const { return type.numElements(); }
  unsigned elementBytes() const { return byteSize(type.dtype); }
  uint8_t *data() { return bytes.data(); }
  const uint8_t *data() const { return bytes.data(); }
};

} // namespace npufuzz

#endif // NPUFUZZ_IR_TENSORDATA_H
