//===- backend/toolchains/Canary.h - Is it the tool, and does it work -*- C++ -*-===//
//
// Before the first case, each toolchain a run needs proves it is what it
// claims to be with a small job only the real tool does right: ptoas
// translates a one-op kernel into C++ that calls its t-op, mlir-opt prints
// back a module it was given, mlir-runner runs an empty main, the Python
// imports torch and numpy and says which torch, pto-isa has its headers.
// `/bin/true`, `/bin/false` or a typo then stop the run with exit 2 naming
// the tool, instead of turning every case into a finding.
//
// A canary checks the tool, not its answers: a wrapper that plants a bug
// in what ptoas emits still passes, so planted-bug campaigns run.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_TOOLCHAINS_CANARY_H
#define NPUFUZZ_BACKEND_TOOLCHAINS_CANARY_H

#include "backend/toolchains/Toolchain.h"

#include <string>

namespace npufuzz {

struct CanaryResult {
  bool passed = false;
  std::string version; ///< as the tool reports it (one line)
  std::string error;   ///< why it did not pass: names the tool and docs/toolchains.md
};

/// The case the canaries use: two f32[8,64] tiles added, which every
/// backend expresses exactly (ptoas translates its kernel; `npufuzz
/// toolchains` runs it through each backend).
const char *canaryCaseText();

/// Runs the canary of `kind` on `path` (a program's path, or pto-isa's
/// include directory). Scratch files go under $TMPDIR and are removed.
CanaryResult runCanary(ToolchainKind kind, const std::string &path);

/// locateToolchain, then its canary: the toolchain ready to use in `out`
/// (and its version in `version` when asked), or false with one line in
/// `error` naming the tool and where to read more.
bool findWorkingToolchain(ToolchainKind kind, const std::string &given, LocatedToolchain &out,
                          std::string &error, std::string *version = nullptr);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_TOOLCHAINS_CANARY_H
