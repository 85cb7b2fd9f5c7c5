//===- oracles/MetamorphicOracle.cpp - Variants that must agree with a case ===//
#include "oracles/MetamorphicOracle.h"

#include "oracles/Metamorphic.h"
#include "oracles/PassBlameOracle.h"
#include "oracles/Signature.h"

namespace npufuzz {

void MetamorphicOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  const CaseOutcome &out = ctx.base;
  // Variants of a run that failed otherwise have nothing to agree with.
  if (out.verdict != VerdictKind::Ok && out.verdict != VerdictKind::Mismatch)
    return;
  // Variants agree or not in values, which a backend that does not run
  // its program has none of.
  if (!out.run.valuesComputed)
    return;
  const auto failure =
      checkMetamorphic(ctx.c, ctx.jit, ctx.config, ctx.pipeline, out, ctx.config.metamorphicShare);
  if (!failure)
    return;
  v.verdict = failure->verdict;
  // The variant names the finding, not the case's first wrong output.
  v.where = failure->variant;
  v.difference.clear();
  v.onlyRounding = false;
  ctx.namedByVariant = true;
  v.summary =
      failure->summary + (out.verdict == VerdictKind::Mismatch ? "; " + v.summary : std::string());
  // The view variant is a case of its own, wrong on the data it ran on:
  // its blamed pass and its first wrong output's op name the finding, as
  // they would had the generator drawn it (the same bug, not a second
  // signature).
  if (!failure->variantCase || !ctx.config.blame || runsExternally(ctx.config.backend))
    return;
  const Case &variant = *failure->variantCase;
  const RefRun ref = runReference(variant, failure->variantInputs);
  const PassBlame blame = passBlameInChild(ctx, [&] {
    return blameCasePass(variant, ref, ctx.jit, ctx.pipeline, emitOptionsOf(ctx.config),
                         ctx.config.jit);
  });
  if (blame.found && blame.miscompiledBy.empty()) {
    v.passName = blame.passName;
    v.passIndex = blame.passIndex;
    v.where = scalarFamily(failure->variantWhere);
    v.summary += "; the variant alone fails after " + blame.passName;
  }
}

} // namespace npufuzz
