//===- oracles/NondeterminismOracle.cpp - The same run, the same result ---===//
#include "oracles/NondeterminismOracle.h"

namespace npufuzz {

void NondeterminismOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // Only a wrong result is run again: one that agrees with the reference
  // was a function of its inputs this time, and that is all a case asks.
  if (ctx.base.verdict != VerdictKind::Mismatch ||
      !ctx.rerunChangesDefinedOutputs(ctx.config.jit.poison))
    return;
  v.verdict = VerdictKind::Nondeterministic;
  v.summary = "two identical runs differ: " + v.summary;
}

} // namespace npufuzz
