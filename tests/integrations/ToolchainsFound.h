//===- tests/integrations/ToolchainsFound.h - Skipping without the user's toolchains -*- C++
//-*-===//
//
// The integration tests of a toolchain the user brings run where discovery
// finds it and are skipped, with discovery's reason, where it does not.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_INTEGRATIONS_TOOLCHAINSFOUND_H
#define NPUFUZZ_TESTS_INTEGRATIONS_TOOLCHAINSFOUND_H

#include "backend/toolchains/Toolchain.h"

#include <initializer_list>
#include <string>

namespace npufuzz::testing {

/// Why one of `kinds` is not on this machine, in discovery's words; empty
/// when all were found. One that was named but is broken is not missing:
/// its tests run and fail, saying why.
inline std::string toolchainsMissing(std::initializer_list<ToolchainKind> kinds) {
  ToolchainConfig config;
  std::string error;
  if (!loadToolchainConfig(config, error))
    return std::string();
  for (const ToolchainKind k : kinds) {
    LocatedToolchain found;
    if (!locateToolchain(k, "", config, found, error) && found.source.empty())
      return error;
  }
  return std::string();
}

} // namespace npufuzz::testing

/// First in every test of toolchains whose toolchainsMissing() is
/// `missing`: the test runs, or is skipped by name with discovery's reason
/// ("no WHAT toolchain: ...", which CTest's SKIP_REGULAR_EXPRESSION reads).
#define NPUFUZZ_SKIP_UNLESS_FOUND(what, missing)                                                   \
  if (!(missing).empty())                                                                          \
  GTEST_SKIP() << "no " what " toolchain: " << (missing)

#endif // NPUFUZZ_TESTS_INTEGRATIONS_TOOLCHAINSFOUND_H
