//===- backend/CompilerSwitches.h - Optimisations blame can turn off -*- C++ -*-===//
//
// The switches of CompilerSwitches.def, and which are on for one case: the
// drawn ones from its lowering seed, the others on, and any a caller (switch
// blame, `--switch-off`) turned off.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_COMPILERSWITCHES_H
#define NPUFUZZ_BACKEND_COMPILERSWITCHES_H

#include "backend/BackendKind.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npufuzz {

enum class CompilerSwitch : uint8_t {
#define NPUFUZZ_SWITCH(Backend, Id, name, Draw, description) Id,
#include "backend/CompilerSwitches.def"
};

std::string_view switchName(CompilerSwitch s);
/// The switches of `backend`, in blame order (none for most backends).
std::vector<CompilerSwitch> switchesOf(BackendKind backend);
/// Whether turning `s` off asks the compiler for stricter semantics rather
/// than fewer optimisations: a failure it removes is a freedom the
/// compiler's default documents (Inductor's default numerics), not a bug.
/// Switch blame tries these first.
bool isCompilerFreedom(CompilerSwitch s);
/// Whether `s` is on where nothing draws or turns it off: the compiler's
/// default as users ship it (every switch but the OptIn ones).
bool onByDefault(CompilerSwitch s);
/// The switch of `backend` called `name`.
std::optional<CompilerSwitch> parseSwitch(BackendKind backend, std::string_view name);

/// Each switch of a backend and whether it is on: what the adapter is told.
struct SwitchState {
  CompilerSwitch id;
  bool on;
};
using SwitchStates = std::vector<SwitchState>;

/// The states for a case of `backend`: drawn switches from `loweringSeed`
/// (at their defaults without one), the others on, then those in `off` off.
/// `drawsModes`: whether the seed draws the OptIn switches too; a seed a
/// finding recorded before they existed does not (Expectation::drawsModes),
/// so that it still means the compile it meant.
SwitchStates switchStates(BackendKind backend, std::optional<uint64_t> loweringSeed,
                          const std::vector<CompilerSwitch> &off, bool drawsModes);

/// The states not at the compiler's default, as "name on" or "name off",
/// comma-separated ("defaults" for none): how a case's compile differs
/// from the compiler's own.
std::string changedSwitchesText(const SwitchStates &states);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_COMPILERSWITCHES_H
