//===- backend/CompilerSwitches.cpp - Optimisations blame can turn off ----===//
#include "backend/CompilerSwitches.h"

#include "ir/Prng.h"

#include <algorithm>

namespace npufuzz {

namespace {
/// How a case gets a switch (CompilerSwitches.def).
enum class Draw : uint8_t { Kept, Drawn, OptIn };

struct SwitchRow {
  CompilerSwitch id;
  BackendKind backend;
  std::string_view name;
  Draw draw;
};

constexpr SwitchRow kSwitches[] = {
#define NPUFUZZ_SWITCH(Backend, Id, name, draw, description)                                       \
  {CompilerSwitch::Id, BackendKind::Backend, name, Draw::draw},
#include "backend/CompilerSwitches.def"
};

const SwitchRow &row(CompilerSwitch s) { return kSwitches[static_cast<size_t>(s)]; }
} // namespace

std::string_view switchName(CompilerSwitch s) { return row(s).name; }

std::vector<CompilerSwitch> switchesOf(BackendKind backend) {
  std::vector<CompilerSwitch> out;
  for (const SwitchRow &r : kSwitches)
    if (r.backend == backend)
      out.push_back(r.id);
  return out;
}

bool isCompilerFreedom(CompilerSwitch s) {
  // No default: a new switch must say which it is.
  switch (s) {
  case CompilerSwitch::InductorDefaultPointwiseNumerics:
  case CompilerSwitch::InductorDefaultReductionNumerics: return true;
  case CompilerSwitch::InductorPrologueFusion:
  case CompilerSwitch::InductorEpilogueFusion:
  case CompilerSwitch::InductorPatternMatcher:
  case CompilerSwitch::InductorLoopOrdering:
  case CompilerSwitch::InductorFusion:
  case CompilerSwitch::InductorCppVectorization:
  case CompilerSwitch::InductorSplitReductions:
  case CompilerSwitch::InductorStaticShapes:
  case CompilerSwitch::InductorFreezing:
  case CompilerSwitch::InductorMaxAutotune:
  case CompilerSwitch::InductorCppWrapper:
  case CompilerSwitch::IreeOptimize:
  case CompilerSwitch::IreeDataTiling:
  case CompilerSwitch::IreeAggressiveFusion:
  case CompilerSwitch::IreeFuseMultiUse:
  case CompilerSwitch::IreePropagateTransposes:
  case CompilerSwitch::IreeHostCpu:
  case CompilerSwitch::TvmOptLevel:
  case CompilerSwitch::TvmFuseOps:
  case CompilerSwitch::TvmFoldConstant:
  case CompilerSwitch::TvmMemoryPlanning:
  case CompilerSwitch::TvmVectorize:
  case CompilerSwitch::TvmStorageRewrite:
  case CompilerSwitch::TvmCse: return false;
  }
  return false;
}

bool onByDefault(CompilerSwitch s) { return row(s).draw != Draw::OptIn; }

std::optional<CompilerSwitch> parseSwitch(BackendKind backend, std::string_view name) {
  for (const SwitchRow &r : kSwitches)
    if (r.backend == backend && r.name == name)
      return r.id;
  return std::nullopt;
}

SwitchStates switchStates(BackendKind backend, std::optional<uint64_t> loweringSeed,
                          const std::vector<CompilerSwitch> &off, bool drawsModes) {
  // A stream of its own: the lowering plan's draws stay what they were.
  Prng rng = Prng::stream(loweringSeed.value_or(0), 0x73776974636866ull /* "switchf" */);
  SwitchStates states;
  for (const SwitchRow &r : kSwitches) {
    if (r.backend != backend)
      continue;
    bool on = r.draw != Draw::OptIn;
    // OptIn rows come last: not drawing them leaves the draws above alone.
    if (r.draw != Draw::Kept && loweringSeed && (r.draw != Draw::OptIn || drawsModes))
      on = rng.below(2) == 1;
    if (std::find(off.begin(), off.end(), r.id) != off.end())
      on = false;
    states.push_back({r.id, on});
  }
  return states;
}

std::string changedSwitchesText(const SwitchStates &states) {
  std::string text;
  for (const SwitchState &s : states)
    if (s.on != onByDefault(s.id))
      text += (text.empty() ? "" : ", ") + std::string(switchName(s.id)) + (s.on ? " on" : " off");
  return text.empty() ? "defaults" : text;
}

} // namespace npufuzz
