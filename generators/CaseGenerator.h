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

namespace npufuzz {

/// Counters of the generator's safety nets. Both stay zero when the builders
/// and the verifier agree on every rule; the tests assert that.
struct GenerationStats {
  uint64_t cases = 0;
  /// Ops a builder proposed that inferResultTypes refused (rolled back).
  uint64_t opsRefused = 0;
  /// Cases whose final verifyCase failed and were replaced by the fallback.
  uint64_t casesReplaced = 0;
};

/// A random valid case. Same seed and policy give the same case, byte for
/// byte, on every platform. Sets provenance {seed, policy.str()}, dataSeed =
/// seed and edgeRate = policy.edgeRate.
Case generateCase(uint64_t seed, const Policy &policy);
Case generateCase(uint64_t seed, const Policy &policy, GenerationStats &stats);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_CASEGENERATOR_H
