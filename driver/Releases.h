//===- driver/Releases.h - Which release of a compiler runs here -*- C++ -*-===//
//
// A regression of a compiler bug that a later release fixed is kept, with
// that release (`fixed=torch-2.10.0` in its expect line): replayed against
// the fix or later it expects ok, against an older release the bug. The
// release here is the one the toolchain's canary reported ("torch
// 2.15.0+cu132 numpy 2.4.6").
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_RELEASES_H
#define NPUFUZZ_DRIVER_RELEASES_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

struct Release {
  std::string name;             ///< "torch"
  std::vector<uint64_t> number; ///< {2, 10, 0}
};

/// "torch-2.10.0" (a name, '-', numbers joined by '.'); nothing otherwise.
std::optional<Release> releaseOf(std::string_view text);

/// Whether the release `canary` names for `fix.name` ("torch 2.15.0+cu132
/// numpy ...": 2.15.0) is `fix` or later; nothing when it names none.
std::optional<bool> includesFix(std::string_view canary, const Release &fix);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_RELEASES_H
