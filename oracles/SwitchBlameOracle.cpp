//===- oracles/SwitchBlameOracle.cpp - The optimisation a failure needs ---===//
#include "oracles/SwitchBlameOracle.h"

#include "oracles/ChildJson.h"

#include <algorithm>

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
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
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
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::LostWrite: return false;
  }
  return false;
}
} // namespace

void SwitchBlameOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  if (!ctx.config.blame || !blamable(v.verdict) || !v.passName.empty())
    return;
  const SwitchStates states = switchStatesOf(ctx.config);
  // The verdict of the case with `off` turned off too, run in a child
  // (empty when the child did not answer: a hang, a crash).
  auto verdictWithout = [&](const std::vector<CompilerSwitch> &off) {
    RunConfig config = ctx.config;
    config.switchesOff.insert(config.switchesOff.end(), off.begin(), off.end());
    const auto j = jsonFromChild(ctx, [&] {
      const CaseOutcome out = runCase(ctx.c, ctx.jit, config);
      return llvm::json::Object{{"verdict", std::string(verdictName(out.verdict))}};
    });
    return j ? j->getString("verdict").value_or("").str() : std::string();
  };
  auto passesWithout = [&](const std::vector<CompilerSwitch> &off) {
    return verdictWithout(off) == verdictName(VerdictKind::Ok);
  };
  // A switch whose absence asks for stricter semantics first: a failure it
  // removes is the compiler's documented freedom, whichever optimisation
  // also removes it. The rest in blame order.
  std::vector<CompilerSwitch> on;
  for (bool freedoms : {true, false})
    for (const SwitchState &state : states)
      if (state.on && isCompilerFreedom(state.id) == freedoms)
        on.push_back(state.id);
  auto blame = [&](CompilerSwitch id) {
    const std::string name(switchName(id));
    v.passName = std::string(backendKindName(ctx.config.backend)) + ":" + name;
    v.summary += "; gone with " + name + " off";
  };
  // A reduction asks each candidate whether its target's switch is still
  // the one to blame: one run answers that.
  if (ctx.config.blameFirst &&
      std::find(on.begin(), on.end(), *ctx.config.blameFirst) != on.end() &&
      passesWithout({*ctx.config.blameFirst})) {
    blame(*ctx.config.blameFirst);
    return;
  }
  // A failure that stays, the same kind, with every switch off needs none
  // of them: one run says so, where one per switch would (most failures
  // are of this kind, and each run is a whole compile). Another failure
  // there (all off is a configuration of its own: scalar code may show
  // another bug) or no answer decides nothing, and each switch is tried.
  if (on.size() > 1 && verdictWithout(on) == verdictName(v.verdict))
    return;
  for (const CompilerSwitch id : on) {
    if (id == ctx.config.blameFirst || !passesWithout({id}))
      continue;
    blame(id);
    return;
  }
}

} // namespace npufuzz
