//===- generators/Mutate.h - Neighbours of a case ---------------*- C++ -*-===//
//
// What a guided campaign does with a case that reached new feedback: draws
// a neighbour of it. Most mutations edit the case's choice sequence
// (generators/ChoiceStream.h) and build again, so a mutant is a case the
// generator could have drawn and verifies by construction; the others
// take a shrinker move, or keep the case and change its lowering or data
// seed. A mutant is determined by its parent and the seed it is drawn
// with.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_MUTATE_H
#define NPUFUZZ_GENERATORS_MUTATE_H

#include "generators/Policy.h"
#include "ir/Case.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

enum class MutationKind {
#define NPUFUZZ_MUTATION(Kind, name, weight) Kind,
#include "generators/Mutation.def"
};
constexpr int kNumMutations = 0
#define NPUFUZZ_MUTATION(Kind, name, weight) +1
#include "generators/Mutation.def"
    ;
const char *mutationName(MutationKind k);

/// A case as a guided campaign keeps it: the case, the choice words that
/// build it (empty when none do: a shrunk case), and the lowering seed it
/// ran with (none: the canonical plan).
struct Seedling {
  Case c;
  std::vector<uint64_t> choices;
  std::optional<uint64_t> loweringSeed;
};

/// How mutants are drawn: plain data, as the generation policy is.
struct MutationPolicy {
  std::array<uint32_t, kNumMutations> weights = {
#define NPUFUZZ_MUTATION(Kind, name, weight) weight,
#include "generators/Mutation.def"
  };
  /// Mutations stacked on one mutant: 1 to this many.
  unsigned maxStack = 2;
  /// Choice words drawn again by one choice mutation: 1 to this many.
  unsigned maxWords = 4;
};

struct Mutant {
  Seedling s;
  /// The mutations applied, in order (e.g. "tail+lowering").
  std::string how;
};

/// A neighbour of `parent`, drawn with `seed` under `policy` (the policy
/// the parent was generated under). `seededLowering`: the campaign draws
/// lowering seeds, so a lowering mutation may draw another one.
Mutant mutate(const Seedling &parent, uint64_t seed, const Policy &policy,
              const MutationPolicy &mutation, bool seededLowering);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_MUTATE_H
