//===- tests/generators/MutateTest.cpp - Choice sequences and mutants -----===//
//
// A case's choice sequence rebuilds it, and an empty script draws what its
// seed draws; every mutant verifies, and one parent and seed give one
// mutant.
//
//===----------------------------------------------------------------------===//
#include "generators/Mutate.h"
#include "generators/CaseGenerator.h"

#include "ir/Text.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

namespace npufuzz {
namespace {

/// The case text without its provenance line, which a replayed case lacks.
std::string body(Case c) {
  c.provenance.reset();
  return printCase(c);
}

Seedling seedlingOf(uint64_t seed) {
  Seedling s;
  s.c = generateFromChoices(seed, Policy::defaults(), {}, s.choices);
  s.loweringSeed = seed * 3;
  return s;
}

RC_GTEST_PROP(ChoiceSequence, AnEmptyScriptDrawsWhatTheSeedDraws, (uint64_t seed)) {
  std::vector<uint64_t> taken;
  const Case c = generateFromChoices(seed, Policy::defaults(), {}, taken);
  RC_ASSERT(printCase(c) == printCase(generateCase(seed, Policy::defaults())));
  RC_ASSERT(!taken.empty());
}

RC_GTEST_PROP(ChoiceSequence, ItsWordsRebuildTheCase, (uint64_t seed)) {
  std::vector<uint64_t> taken, again;
  const Case c = generateFromChoices(seed, Policy::defaults(), {}, taken);
  // Replayed: the words decide the ops (the data and the chain cut come
  // from the seed, the same here).
  const Case replayed = generateFromChoices(seed, Policy::defaults(), taken, again);
  RC_ASSERT(body(replayed) == body(c));
  RC_ASSERT(!replayed.provenance.has_value());
  RC_ASSERT(again == taken);
}

RC_GTEST_PROP(Mutants, VerifyAndAreDeterministic, (uint64_t parentSeed, uint64_t seed)) {
  const Seedling parent = seedlingOf(parentSeed);
  const Mutant m = mutate(parent, seed, Policy::defaults(), MutationPolicy(), true);
  RC_TAG(m.how);
  RC_ASSERT(verifyCase(m.s.c) == "");
  const Mutant again = mutate(parent, seed, Policy::defaults(), MutationPolicy(), true);
  RC_ASSERT(printCase(again.s.c) == printCase(m.s.c));
  RC_ASSERT(again.s.loweringSeed == m.s.loweringSeed);
  RC_ASSERT(again.how == m.how);
  // Its text parses back to it: a worker is sent the text.
  Case parsed;
  TextError error;
  RC_ASSERT(parseCase(printCase(m.s.c), parsed, error));
  RC_ASSERT(printCase(parsed) == printCase(m.s.c));
}

TEST(Mutants, EveryMutationIsDrawnAndChangesSomething) {
  std::map<std::string, unsigned> drawn, changed;
  MutationPolicy one;
  one.maxStack = 1;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    const Seedling parent = seedlingOf(1000 + seed % 40);
    const Mutant m = mutate(parent, seed, Policy::defaults(), one, true);
    ++drawn[m.how];
    changed[m.how] +=
        printCase(m.s.c) != printCase(parent.c) || m.s.loweringSeed != parent.loweringSeed;
  }
  for (int k = 0; k < kNumMutations; ++k) {
    const std::string name = mutationName(static_cast<MutationKind>(k));
    EXPECT_GT(drawn[name], 10u) << name;
    // Most mutants differ from their parent (a word drawn again may draw
    // what it drew).
    EXPECT_GT(changed[name] * 2, drawn[name]) << name;
  }
  // Without seeded lowering no mutant changes its lowering seed.
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Seedling parent = seedlingOf(seed);
    parent.loweringSeed.reset();
    EXPECT_FALSE(mutate(parent, seed, Policy::defaults(), MutationPolicy(), false).s.loweringSeed);
  }
}

} // namespace
} // namespace npufuzz
