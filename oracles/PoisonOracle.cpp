//===- oracles/PoisonOracle.cpp - Defined outputs do not read the fill ----===//
#include "oracles/PoisonOracle.h"

namespace npufuzz {

void PoisonOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // A plain wrong result only: a run that differs from itself differs with
  // any fill, and says nothing about the fill.
  if (ctx.base.verdict != VerdictKind::Mismatch || v.verdict != VerdictKind::Mismatch)
    return;
  // A backend that does not take npufuzz's fill (it allocates its outputs)
  // reruns alike with any poison: what a rerun shows is the nondeterminism
  // oracle's to say, and "the poison fill" would be a false account.
  if (!ctx.base.run.outputFill)
    return;
  if (!ctx.rerunChangesDefinedOutputs(~ctx.config.jit.poison))
    return;
  v.verdict = VerdictKind::UninitializedRead;
  v.summary = "defined outputs change with the poison fill: " + v.summary;
}

} // namespace npufuzz
