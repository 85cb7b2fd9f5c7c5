//===- ir/Prng.h - The project's own stable PRNG ----------------*- C++ -*-===//
//
// Every random decision in npufuzz goes through this generator, never through
// <random> distributions (their output is implementation-defined). The state
// update (SplitMix64 seeding, xoshiro256**) and the bounded-integer and double
// derivations are pure integer arithmetic, so a seed gives the same stream on
// every machine and compiler.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_PRNG_H
#define NPUFUZZ_IR_PRNG_H

#include <cstdint>
#include <vector>

namespace npufuzz {

class Prng {
public:
  explicit Prng(uint64_t seed) { reseed(seed); }

  void reseed(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t &w : s_)
      w = splitMix64(x);
  }

  /// A generator for an independent stream derived from this seed and `tag`
  /// (input data of input #3 uses tag 3, and so on), without consuming this
  /// generator's state.
  static Prng stream(uint64_t seed, uint64_t tag) {
    uint64_t x = seed ^ (tag * 0xD1B54A32D192ED03ull);
    return Prng(splitMix64(x));
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// The draws: uniform in [0, n), uniform in [lo, hi], uniform in [0, 1),
  /// true with probability p (p <= 0: never, p >= 1: always), an index by
  /// weight, an element of a non-empty vector. Derived below.
  uint64_t below(uint64_t n) { return drawBelow(*this, n); }
  int64_t range(int64_t lo, int64_t hi) { return drawRange(*this, lo, hi); }
  double unit() { return drawUnit(*this); }
  bool chance(double p) { return unit() < p; }
  size_t weighted(const std::vector<uint32_t> &weights) { return drawWeighted(*this, weights); }
  template <typename T> const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

  //===--- Derivations from any source of 64-bit words ---------------------===//
  // Templates over the source, so that a generator replaying recorded words
  // (generators/ChoiceStream.h) derives its draws exactly as this one does.

  /// Uniform in [0, n), n > 0 (Lemire's nearly-divisionless method; the
  /// rejection loop ends with probability >= 1/2 per round).
  template <typename Source> static uint64_t drawBelow(Source &src, uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(src.next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(src.next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  /// Uniform in [lo, hi], lo <= hi.
  template <typename Source> static int64_t drawRange(Source &src, int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span == UINT64_MAX)
      return static_cast<int64_t>(src.next());
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + drawBelow(src, span + 1));
  }

  /// Uniform double in [0, 1) with 53 random bits.
  template <typename Source> static double drawUnit(Source &src) {
    return static_cast<double>(src.next() >> 11) * 0x1.0p-53;
  }

  /// Index drawn with probability proportional to weights[i]; weights must
  /// not all be zero.
  template <typename Source>
  static size_t drawWeighted(Source &src, const std::vector<uint32_t> &weights) {
    uint64_t total = 0;
    for (uint32_t w : weights)
      total += w;
    uint64_t r = drawBelow(src, total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i])
        return i;
      r -= weights[i];
    }
    return weights.size() - 1; // unreachable when total > 0
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitMix64(uint64_t &x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

} // namespace npufuzz

#endif // NPUFUZZ_IR_PRNG_H
