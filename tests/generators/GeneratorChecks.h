//===- tests/generators/GeneratorChecks.h - Checks for any generator -*- C++ -*-===//
//
// One helper that checks any case generator (a function from seed to case)
// for the properties every generator must have: its cases verify, a seed
// always gives the same bytes, the text round-trips, and shrinking makes
// progress and stays valid. New generators get all of it by calling
// checkGenerator.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_GENERATORS_GENERATORCHECKS_H
#define NPUFUZZ_TESTS_GENERATORS_GENERATORCHECKS_H

#include "generators/Shrinks.h"
#include "ir/Case.h"
#include "ir/Text.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

namespace npufuzz::testing {

using SeededGenerator = std::function<Case(uint64_t)>;

struct GeneratorCheckOptions {
  uint64_t firstSeed = 1;
  /// Seeds checked for validity, determinism and round-trip.
  unsigned numSeeds = 200;
  /// Of those, seeds whose shrinking is checked (it is the slow part).
  unsigned shrinkSeeds = 10;
  /// Bound on first-candidate shrink steps; reaching it is a failure.
  unsigned maxShrinkSteps = 2000;
};

inline ::testing::AssertionResult checkValid(const Case &c) {
  const std::string error = verifyCase(c);
  if (error.empty())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "invalid case: " << error << "\n" << printCase(c);
}

/// parse(print(c)) == c, and printing the parsed case gives the same bytes.
inline ::testing::AssertionResult checkRoundTrip(const Case &c) {
  const std::string text = printCase(c);
  Case parsed;
  TextError error;
  if (!parseCase(text, parsed, error))
    return ::testing::AssertionFailure()
           << "printed case does not parse: " << error.format("<case>") << "\n"
           << text;
  const std::string again = printCase(parsed);
  if (again != text)
    return ::testing::AssertionFailure() << "print(parse(text)) != text\n--- text\n"
                                         << text << "--- again\n"
                                         << again;
  // Structural equality through the text: ops, attrs and types all print.
  if (parsed.ops.size() != c.ops.size() || parsed.values.size() != c.values.size() ||
      parsed.outputs != c.outputs || parsed.dataSeed != c.dataSeed)
    return ::testing::AssertionFailure() << "parse(print(c)) differs from c\n" << text;
  for (size_t v = 0; v < c.values.size(); ++v)
    if (parsed.values[v].type != c.values[v].type)
      return ::testing::AssertionFailure()
             << "value %" << v << " parses as " << parsed.values[v].type.str() << " not "
             << c.values[v].type.str() << "\n"
             << text;
  return ::testing::AssertionSuccess();
}

/// Every candidate verifies and is smaller; taking the first candidate
/// repeatedly ends within `maxSteps`.
inline ::testing::AssertionResult checkShrinkProgress(const Case &c, unsigned maxSteps) {
  Case current = c;
  for (unsigned step = 0; step < maxSteps; ++step) {
    const uint64_t size = caseSize(current);
    std::vector<Case> candidates = shrinkCandidates(current);
    for (const Case &cand : candidates) {
      if (::testing::AssertionResult valid = checkValid(cand); !valid)
        return ::testing::AssertionFailure()
               << "shrink candidate at step " << step << ": " << valid.message() << "parent:\n"
               << printCase(current);
      if (caseSize(cand) >= size)
        return ::testing::AssertionFailure()
               << "shrink candidate is not smaller (" << caseSize(cand) << " >= " << size << ")\n"
               << printCase(cand) << "parent:\n"
               << printCase(current);
    }
    if (candidates.empty())
      return ::testing::AssertionSuccess();
    current = std::move(candidates.front());
  }
  return ::testing::AssertionFailure()
         << "first-candidate shrinking did not end in " << maxSteps << " steps\n"
         << printCase(c);
}

/// Runs every check over the options' seeds; failures name the seed.
inline void checkGenerator(const SeededGenerator &generate,
                           const GeneratorCheckOptions &options = {}) {
  for (unsigned i = 0; i < options.numSeeds; ++i) {
    const uint64_t seed = options.firstSeed + i;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Case c = generate(seed);
    ASSERT_TRUE(checkValid(c));
    ASSERT_EQ(printCase(c), printCase(generate(seed))) << "same seed, different case";
    ASSERT_TRUE(checkRoundTrip(c));
    if (i < options.shrinkSeeds)
      ASSERT_TRUE(checkShrinkProgress(c, options.maxShrinkSteps));
  }
}

} // namespace npufuzz::testing

#endif // NPUFUZZ_TESTS_GENERATORS_GENERATORCHECKS_H
