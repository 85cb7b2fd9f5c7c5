//===- tests/generators/RapidCheckGen.h - RapidCheck generator of cases -*- C++ -*-===//
//
// Header-only bridge to RapidCheck, included by tests and the shrinker's RC
// integration only (the generator library does not depend on RapidCheck).
// RapidCheck draws the seed; shrinking never re-draws a seed but walks
// shrinkCandidates recursively, so every shrink is a valid, smaller case.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_GENERATORS_RAPIDCHECKGEN_H
#define NPUFUZZ_TESTS_GENERATORS_RAPIDCHECKGEN_H

#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "generators/Shrinks.h"
#include "ir/Text.h"

#include <rapidcheck.h>

#include <algorithm>
#include <ostream>

namespace npufuzz {

/// Cases from `policy`; RapidCheck's size (0..100) scales max_ops so early
/// tests are small.
inline rc::Gen<Case> genCase(Policy policy) {
  return rc::Gen<Case>([policy](const rc::Random &random, int size) {
    rc::Random r = random;
    Policy scaled = policy;
    const unsigned percent = static_cast<unsigned>(std::clamp(size, 0, 100));
    scaled.maxOps = 1 + (policy.maxOps - 1) * percent / 100;
    return rc::shrinkable::shrinkRecur(generateCase(r.next(), scaled), [](const Case &c) {
      return rc::seq::fromContainer(shrinkCandidates(c));
    });
  });
}

/// How RapidCheck prints a counterexample: the case text.
inline void showValue(const Case &c, std::ostream &os) { os << "\n" << printCase(c); }

} // namespace npufuzz

namespace rc {
template <> struct Arbitrary<npufuzz::Case> {
  static Gen<npufuzz::Case> arbitrary() { return npufuzz::genCase(npufuzz::Policy::defaults()); }
};
} // namespace rc

#endif // NPUFUZZ_TESTS_GENERATORS_RAPIDCHECKGEN_H
