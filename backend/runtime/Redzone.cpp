//===- backend/runtime/Redzone.cpp - Buffers between guard bytes ----------===//
#include "backend/runtime/Redzone.h"

#include "ir/TensorData.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace npufuzz {

size_t redzoneBytes(size_t bytes, size_t alignment) {
  const size_t unit = std::max<size_t>(alignment, 64);
  const size_t want = std::min<size_t>(std::max<size_t>(bytes, 64), 64 * 1024);
  return (want + unit - 1) / unit * unit;
}

std::string RedzoneFault::describe() const {
  return "out-of-bounds write: " + buffer + ", at byte " + std::to_string(offset) + " " +
         (after ? "past its end" : "before its start") + " (" + std::to_string(changedBytes) +
         " of its " + std::to_string(redzone) + " redzone bytes changed)";
}

std::optional<RedzoneFault> checkRedzone(const uint8_t *zone, size_t bytes, uint32_t pattern,
                                         bool after) {
  RedzoneFault f;
  f.after = after;
  f.redzone = bytes;
  bool found = false;
  for (size_t i = 0; i < bytes; ++i) {
    if (zone[i] == static_cast<uint8_t>(pattern >> (8 * (i % 4))))
      continue;
    ++f.changedBytes;
    // Past the end, the nearest changed byte is the first; before the
    // start, the last.
    if (!found || !after)
      f.offset = after ? i : bytes - 1 - i;
    found = true;
  }
  if (!found)
    return std::nullopt;
  return f;
}

std::optional<RedzoneFault> checkRedzones(const uint8_t *data, size_t bytes, size_t redzone,
                                          uint32_t pattern) {
  std::optional<RedzoneFault> f = checkRedzone(data - redzone, redzone, pattern, false);
  return f ? f : checkRedzone(data + bytes, redzone, pattern, true);
}

void GuardedBuffer::Free::operator()(uint8_t *p) const { std::free(p); }

GuardedBuffer::GuardedBuffer(size_t bytes, uint32_t pattern)
    : bytes_(bytes), redzone_(redzoneBytes(bytes)), pattern_(pattern) {
  const size_t total = (2 * redzone_ + bytes_ + 63) / 64 * 64;
  base_.reset(static_cast<uint8_t *>(std::aligned_alloc(64, total)));
  if (!base_)
    throw std::bad_alloc();
  fillPattern(base_.get(), redzone_, pattern_);
  fillPattern(data() + bytes_, redzone_, pattern_);
}

std::optional<RedzoneFault> GuardedBuffer::check(const std::string &name,
                                                 const std::string &kind) const {
  std::optional<RedzoneFault> f = checkRedzones(base_.get() + redzone_, bytes_, redzone_, pattern_);
  if (f) {
    f->buffer = name;
    f->kind = kind;
  }
  return f;
}

} // namespace npufuzz
