//===- generators/CaseGenerator.h - Random valid cases from a seed -*- C++ -*-===//
//
// generateCase builds a random tile program from a seed under a Policy. Every
// case it returns verifies: each op is built from operands of fitting types
// with attributes chosen so that inferResultTypes accepts it, index maps are
// fitted to their source dims by interval arithmetic, and gather indices come
// from values whose range knownRange proves.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_CASEGENERATOR_H
#define NPUFUZZ_GENERATORS_CASEGENERATOR_H

#include "generators/Policy.h"
#include "ir/Case.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

/// Counters of the generator's safety nets. opsRefused and casesReplaced
/// stay zero when the builders and the verifier agree on every rule; the
/// tests assert that.
struct GenerationStats {
  uint64_t cases = 0;
  /// Ops a builder proposed that inferResultTypes refused (rolled back).
  uint64_t opsRefused = 0;
  /// Cases whose final verifyCase failed and were replaced by the fallback.
  uint64_t casesReplaced = 0;
  /// Cases that are the fallback case (abs of one f32 input), for either
  /// reason: casesReplaced, or a policy under which no op could be built
  /// (one that nothing satisfies gives it for every seed, and may well
  /// forbid abs or f32 itself).
  uint64_t casesFallenBack = 0;
};

/// A random valid case. Same seed and policy give the same case, byte for
/// byte, on every platform. Sets provenance {seed, policy.str()}, dataSeed =
/// seed and edgeRate = policy.edgeRate.
Case generateCase(uint64_t seed, const Policy &policy);
Case generateCase(uint64_t seed, const Policy &policy, GenerationStats &stats);

/// The case the generator builds from the choice words `script` (replayed
/// first, then words of `seed`), with every word it took in `taken`: its
/// choice sequence, which rebuilds it. With an empty script this is
/// generateCase(seed, policy). A case built from a script has no
/// provenance: no seed alone rebuilds it.
Case generateFromChoices(uint64_t seed, const Policy &policy, std::vector<uint64_t> script,
                         std::vector<uint64_t> &taken);

/// How many of seeds 0 .. samples-1 make the fallback case under `policy`
/// (GenerationStats::casesFallenBack): `samples` for a policy nothing
/// satisfies, some for one that is hard to satisfy. For a tool to refuse
/// or warn about a policy file before a campaign runs on it.
uint64_t policyFallbacks(const Policy &policy, unsigned samples = 32);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_CASEGENERATOR_H
