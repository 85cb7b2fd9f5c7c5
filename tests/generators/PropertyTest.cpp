//===- tests/generators/PropertyTest.cpp - RapidCheck properties of cases -===//
#include "generators/Features.h"
#include "tests/generators/GeneratorChecks.h"
#include "tests/generators/RapidCheckGen.h"

#include "ir/Text.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace npufuzz {
namespace {

/// Tags a property run with a coarse classification of the case.
void classify(const Case &c) {
  const std::vector<std::string> f = caseFeatures(c);
  auto has = [&](const char *tag) { return std::binary_search(f.begin(), f.end(), tag); };
  RC_CLASSIFY(has("op:index_map"), "index_map");
  RC_CLASSIFY(has("op:matmul"), "matmul");
  RC_CLASSIFY(has("valid:dynamic"), "dynamic valid shape");
  RC_CLASSIFY(c.numComputeOps() > 4, "more than 4 ops");
}

RC_GTEST_PROP(CaseProperties, GeneratedCasesVerify, (const Case &c)) {
  classify(c);
  RC_ASSERT(verifyCase(c) == "");
}

RC_GTEST_PROP(CaseProperties, TextRoundTrips, (const Case &c)) {
  RC_ASSERT(testing::checkRoundTrip(c));
}

RC_GTEST_PROP(CaseProperties, SameSeedSameCase, (uint64_t seed)) {
  const Policy policy = Policy::defaults();
  RC_ASSERT(printCase(generateCase(seed, policy)) == printCase(generateCase(seed, policy)));
}

RC_GTEST_PROP(CaseProperties, ShrinksAreValidAndSmaller, (const Case &c)) {
  const uint64_t size = caseSize(c);
  for (const Case &cand : shrinkCandidates(c)) {
    RC_ASSERT(verifyCase(cand) == "");
    RC_ASSERT(caseSize(cand) < size);
  }
}

TEST(CaseProperties, RapidCheckShrinkTreeStaysValid) {
  // Walk the first-shrink chain of the RapidCheck shrinkable itself.
  const rc::Gen<Case> gen = genCase(Policy::defaults());
  for (int draw = 0; draw < 5; ++draw) {
    rc::Random random(static_cast<uint64_t>(draw) + 1);
    rc::Shrinkable<Case> s = gen(random, 100);
    for (int step = 0; step < 1000; ++step) {
      ASSERT_EQ(verifyCase(s.value()), "") << printCase(s.value());
      rc::Maybe<rc::Shrinkable<Case>> next = s.shrinks().next();
      if (!next)
        break;
      ASSERT_LT(caseSize(next->value()), caseSize(s.value()));
      s = *next;
    }
  }
}

} // namespace
} // namespace npufuzz
