//===- generators/FuzzInput.cpp - Cases from fuzzer bytes -----------------===//
#include "generators/FuzzInput.h"

#include "generators/CaseGenerator.h"
#include "generators/Policy.h"

namespace npufuzz {

namespace {
/// Reads little-endian values; past the end it yields zeros, so short
/// inputs decode too.
class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(byte()) << (8 * i);
    return v;
  }
  /// A fraction in [0, 1] from one byte.
  double unit() { return byte() / 255.0; }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};
} // namespace

Case caseFromBytes(const uint8_t *data, size_t size) {
  ByteReader in(data, size);
  const uint64_t seed = in.u64();
  Policy policy = Policy::defaults();
  if (size > 8) {
    policy.maxOps = 1 + in.byte() % 12;
    policy.maxRank = 1 + in.byte() % 6;
    policy.patternRate = in.unit();
    policy.viewChainRate = in.unit();
    policy.validShapeRate = in.unit() / 2;
    policy.floorDivModRate = in.unit();
  }
  return generateCase(seed, policy);
}

} // namespace npufuzz
