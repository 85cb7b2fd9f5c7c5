//===- generators/ChoiceStream.h - The generator's recordable choices -*- C++ -*-===//
//
// Every decision the generator makes is a word drawn from this stream. The
// words a case was built from are its choice sequence: replayed, they build
// the same case; replayed with a few words changed or cut short, they build
// a neighbour of it that the generator could have drawn itself, so it
// verifies by construction. Guided campaigns mutate cases this way
// (generators/Mutate.h). A stream that neither records nor replays draws
// exactly what a Prng of its seed draws.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_CHOICESTREAM_H
#define NPUFUZZ_GENERATORS_CHOICESTREAM_H

#include "ir/Prng.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

class ChoiceStream {
public:
  explicit ChoiceStream(uint64_t seed) : fresh_(seed) {}
  /// Replays `script`, then goes on with words of a Prng of `seed`; with
  /// `record`, keeps every word it hands out (taken()).
  ChoiceStream(uint64_t seed, std::vector<uint64_t> script, bool record)
      : fresh_(seed), script_(std::move(script)), record_(record) {}

  uint64_t next() {
    const uint64_t w = pos_ < script_.size() ? script_[pos_] : fresh_.next();
    ++pos_;
    if (record_)
      taken_.push_back(w);
    return w;
  }

  uint64_t below(uint64_t n) { return Prng::drawBelow(*this, n); }
  int64_t range(int64_t lo, int64_t hi) { return Prng::drawRange(*this, lo, hi); }
  double unit() { return Prng::drawUnit(*this); }
  bool chance(double p) { return unit() < p; }
  size_t weighted(const std::vector<uint32_t> &weights) {
    return Prng::drawWeighted(*this, weights);
  }
  template <typename T> const T &pick(const std::vector<T> &v) { return v[below(v.size())]; }

  /// The words handed out so far, when recording: the choice sequence of
  /// what was built from them.
  const std::vector<uint64_t> &taken() const { return taken_; }

private:
  Prng fresh_;
  std::vector<uint64_t> script_;
  size_t pos_ = 0;
  bool record_ = false;
  std::vector<uint64_t> taken_;
};

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_CHOICESTREAM_H
