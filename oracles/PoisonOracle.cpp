//===- oracles/PoisonOracle.cpp - Defined outputs do not read the fill ----===//
#include "oracles/PoisonOracle.h"

namespace npufuzz {

void PoisonOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // A plain wrong result only: a run that differs from itself differs with
  // any fill, and says nothing about the fill.
  if (ctx.base.verdict != VerdictKind::Mismatch || v.verdict != VerdictKind::Mismatch)
    return;
  if (!ctx.rerunChangesDefinedOutputs(~ctx.config.jit.poison))
    return;
  v.verdict = VerdictKind::UninitializedRead;
  v.summary = "defined outputs change with the poison fill: " + v.summary;
}

} // namespace npufuzz
