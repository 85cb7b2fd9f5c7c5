//===- oracles/NondeterminismOracle.cpp - The same run, the same result ---===//
#include "oracles/NondeterminismOracle.h"

namespace npufuzz {

void NondeterminismOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // Only a wrong result is run again: one that agrees with the reference
  // was a function of its inputs this time, and that is all a case asks.
  if (ctx.base.verdict != VerdictKind::Mismatch)
    return;
  // A backend that allocates its outputs itself (no fill of npufuzz's:
  // Inductor, IREE, external commands) shows an element it never wrote as
  // whatever its allocator left there, which one rerun may find again:
  // a few reruns, so that one bug gets one verdict, not this one or a
  // plain mismatch by the allocator's luck.
  const int reruns = ctx.base.run.outputFill ? 1 : 3;
  for (int k = 0; k < reruns; ++k)
    if (ctx.rerunChangesDefinedOutputs(ctx.config.jit.poison)) {
      v.verdict = VerdictKind::Nondeterministic;
      v.summary = "two identical runs differ: " + v.summary;
      return;
    }
}

} // namespace npufuzz
