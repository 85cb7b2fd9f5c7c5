//===- generators/Mutate.cpp - Neighbours of a case -----------------------===//
#include "generators/Mutate.h"

#include "generators/CaseGenerator.h"
#include "generators/Shrinks.h"
#include "ir/Prng.h"

namespace npufuzz {

const char *mutationName(MutationKind k) {
  switch (k) {
#define NPUFUZZ_MUTATION(Kind, name, weight)                                                       \
  case MutationKind::Kind: return name;
#include "generators/Mutation.def"
  }
  return "?";
}

namespace {

/// Whether mutation `k` can vary `s`.
bool applies(MutationKind k, const Seedling &s, bool seededLowering) {
  switch (k) {
  case MutationKind::Choice:
  case MutationKind::Tail: return !s.choices.empty();
  case MutationKind::Shrink: return s.c.numComputeOps() > 1 || s.c.ops.size() > 2;
  case MutationKind::Lowering: return seededLowering;
  case MutationKind::Data: return true;
  }
  return false;
}

/// Builds the case of `words`, drawing what they do not cover from `seed`.
void rebuild(Seedling &s, std::vector<uint64_t> words, uint64_t seed, const Policy &policy) {
  std::vector<uint64_t> taken;
  s.c = generateFromChoices(seed, policy, std::move(words), taken);
  s.choices = std::move(taken);
}

} // namespace

Mutant mutate(const Seedling &parent, uint64_t seed, const Policy &policy,
              const MutationPolicy &mutation, bool seededLowering) {
  Prng rng = Prng::stream(seed, 0x6D757461); // "muta": apart from the case's own draws
  Mutant m{parent, ""};
  const unsigned stack = 1 + static_cast<unsigned>(rng.below(std::max(1u, mutation.maxStack)));
  for (unsigned n = 0; n < stack; ++n) {
    std::vector<uint32_t> weights(kNumMutations, 0);
    bool any = false;
    for (int k = 0; k < kNumMutations; ++k)
      if (applies(static_cast<MutationKind>(k), m.s, seededLowering)) {
        weights[k] = mutation.weights[k];
        any |= weights[k] > 0;
      }
    const MutationKind kind =
        any ? static_cast<MutationKind>(rng.weighted(weights)) : MutationKind::Data;
    // Each mutation of the stack draws its fresh words from a seed of its
    // own, so two stacked rebuilds do not replay one stream.
    const uint64_t fresh = rng.next() >> 1;
    switch (kind) {
    case MutationKind::Choice: {
      std::vector<uint64_t> words = m.s.choices;
      const unsigned count = 1 + static_cast<unsigned>(rng.below(std::max(1u, mutation.maxWords)));
      for (unsigned k = 0; k < count; ++k)
        words[rng.below(words.size())] = rng.next();
      rebuild(m.s, std::move(words), fresh, policy);
      break;
    }
    case MutationKind::Tail: {
      std::vector<uint64_t> words = m.s.choices;
      words.resize(rng.below(words.size()));
      rebuild(m.s, std::move(words), fresh, policy);
      break;
    }
    case MutationKind::Shrink: {
      std::vector<Case> simpler = shrinkCandidates(m.s.c);
      if (simpler.empty())
        break;
      m.s.c = std::move(simpler[rng.below(simpler.size())]);
      m.s.c.provenance.reset();
      m.s.choices.clear(); // no choice words build it
      break;
    }
    case MutationKind::Lowering: m.s.loweringSeed = rng.next() >> 1; break;
    case MutationKind::Data: m.s.c.dataSeed = rng.next() >> 1; break;
    }
    m.how += (m.how.empty() ? "" : "+") + std::string(mutationName(kind));
  }
  return m;
}

} // namespace npufuzz
