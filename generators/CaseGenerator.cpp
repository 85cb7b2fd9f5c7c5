//===- generators/CaseGenerator.cpp - Random valid cases from a seed ------===//
//
// The driver: draw an op budget, maybe insert a seed pattern and a chain of
// views, then add ops
// chosen by the policy's weights until the budget is spent. A builder that
// cannot build its op in the current state is rolled back and another kind
// is drawn; the number of draws is bounded, so generation always ends.
//
//===----------------------------------------------------------------------===//
#include "generators/CaseGenerator.h"

#include "generators/GenContext.h"
#include "ir/Verifier.h"

namespace npufuzz {

namespace {

/// Every value no op uses (inputs excepted), in definition order; the last
/// value when there is none.
std::vector<ValueId> unusedValues(const Case &c) {
  std::vector<char> used(c.values.size(), 0);
  for (const Op &op : c.ops)
    for (ValueId v : op.operands)
      used[v] = 1;
  std::vector<ValueId> outputs;
  for (size_t v = 0; v < c.values.size(); ++v)
    if (!used[v] && c.ops[c.values[v].defOp].kind != OpKind::Input)
      outputs.push_back(static_cast<ValueId>(v));
  if (outputs.empty() && !c.values.empty())
    outputs.push_back(static_cast<ValueId>(c.values.size() - 1));
  return outputs;
}

/// The case every seed can fall back to: abs of one f32 input.
Case fallbackCase() {
  Case c;
  OpAttrs input;
  const int32_t in = c.addOp(OpKind::Input, {}, input, {{DType::F32, {16}, std::nullopt}});
  const int32_t abs = c.addOp(OpKind::Abs, {c.result(in)}, {}, {{DType::F32, {16}, std::nullopt}});
  c.outputs = {c.result(abs)};
  return c;
}

/// The generator proper, drawing from `g`'s choices; `seed` seeds what is
/// not drawn from them (the chain cut, the data).
Case generate(gen::GenContext &g, uint64_t seed, const Policy &policy, GenerationStats &stats) {
  ++stats.cases;
  const size_t target = static_cast<size_t>(g.rng.range(1, policy.maxOps));

  if (g.rng.chance(policy.patternRate)) {
    const auto pattern = static_cast<PatternKind>(g.rng.weighted(policy.patternWeights));
    const gen::GenContext::Mark mark = g.mark();
    if (!gen::buildPattern(g, pattern))
      g.rollback(mark);
  }
  // No draw at rate 0: a policy without chains (pto's) keeps its cases.
  if (policy.viewChainRate > 0 && g.rng.chance(policy.viewChainRate)) {
    const auto form = static_cast<ViewChainForm>(g.rng.weighted(policy.viewChainWeights));
    const gen::GenContext::Mark mark = g.mark();
    if (!gen::buildViewChain(g, form))
      g.rollback(mark);
  }
  // Most draws succeed; the bound only matters for policies that make most
  // kinds unbuildable (tiny element budgets, max_rank=1).
  for (size_t draws = 0; g.c.numComputeOps() < target && draws < 4 * target + 8; ++draws) {
    const auto kind = static_cast<OpKind>(g.rng.weighted(policy.opWeights));
    const gen::GenContext::Mark mark = g.mark();
    if (!gen::buildOp(g, kind))
      g.rollback(mark);
  }

  // No op built: the policy let none be (counted, so that a tool can say
  // so rather than fuzz abs of f32 under a policy that may forbid both).
  bool fellBack = g.c.numComputeOps() == 0;
  Case c = fellBack ? fallbackCase() : std::move(g.c);
  c.outputs = unusedValues(c);
  c.compact();
  if (!verifyCase(c).empty()) {
    ++stats.casesReplaced;
    fellBack = true;
    c = fallbackCase();
  }
  stats.casesFallenBack += fellBack;
  gen::drawTasks(c, seed, policy);
  c.provenance = Provenance{seed, policy.str()};
  c.dataSeed = seed;
  c.edgeRate = policy.edgeRate;
  return c;
}

} // namespace

Case generateCase(uint64_t seed, const Policy &policy, GenerationStats &stats) {
  gen::GenContext g(seed, policy, stats);
  return generate(g, seed, policy, stats);
}

Case generateFromChoices(uint64_t seed, const Policy &policy, std::vector<uint64_t> script,
                         std::vector<uint64_t> &taken) {
  GenerationStats stats;
  const bool replays = !script.empty();
  gen::GenContext g(ChoiceStream(seed, std::move(script), /*record=*/true), policy, stats);
  Case c = generate(g, seed, policy, stats);
  taken = g.rng.taken();
  // Replayed choices are not what `seed` draws: the case names no seed
  // that `npufuzz --seed` would rebuild it from.
  if (replays)
    c.provenance.reset();
  return c;
}

Case generateCase(uint64_t seed, const Policy &policy) {
  GenerationStats stats;
  return generateCase(seed, policy, stats);
}

uint64_t policyFallbacks(const Policy &policy, unsigned samples) {
  GenerationStats stats;
  for (unsigned seed = 0; seed < samples; ++seed)
    (void)generateCase(seed, policy, stats);
  return stats.casesFallenBack;
}

} // namespace npufuzz
