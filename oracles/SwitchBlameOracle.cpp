//===- oracles/SwitchBlameOracle.cpp - The optimisation a failure needs ---===//
#include "oracles/SwitchBlameOracle.h"

#include "oracles/ChildJson.h"

namespace npufuzz {

namespace {
/// Failures a switch can be blamed for: what a compiler makes of the case.
/// A hang or an exhausted memory would cost a limit per switch, and a
/// verdict of npufuzz's own is no compiler's.
bool blamable(VerdictKind v) {
  switch (v) {
  case VerdictKind::Mismatch:
  case VerdictKind::Crash:
  case VerdictKind::CompileError:
  case VerdictKind::UninitializedRead:
  case VerdictKind::Nondeterministic:
  case VerdictKind::SimulatorFault:
  case VerdictKind::OutOfBoundsWrite:
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfRegionWrite: return true;
  case VerdictKind::Ok:
  case VerdictKind::VerifierError:
  case VerdictKind::PassFailure:
  case VerdictKind::Hang:
  case VerdictKind::Oom:
  case VerdictKind::Unsupported:
  case VerdictKind::ReferenceError:
  case VerdictKind::ContractGap:
  case VerdictKind::EnvironmentError:
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore: return false;
  }
  return false;
}
} // namespace

void SwitchBlameOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  if (!ctx.config.blame || !blamable(v.verdict) || !v.passName.empty())
    return;
  const SwitchStates states =
      switchStates(ctx.config.backend, ctx.config.loweringSeed, ctx.config.switchesOff);
  for (const SwitchState &state : states) {
    if (!state.on)
      continue;
    RunConfig off = ctx.config;
    off.switchesOff.push_back(state.id);
    const auto j = jsonFromChild(ctx, [&] {
      const CaseOutcome out = runCase(ctx.c, ctx.jit, off);
      return llvm::json::Object{{"verdict", std::string(verdictName(out.verdict))}};
    });
    if (!j || j->getString("verdict").value_or("").str() != verdictName(VerdictKind::Ok))
      continue;
    const std::string name(switchName(state.id));
    v.passName = std::string(backendKindName(ctx.config.backend)) + ":" + name;
    v.summary += "; gone with " + name + " off";
    return;
  }
}

} // namespace npufuzz
