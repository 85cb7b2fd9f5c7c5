//===- driver/ToolchainSurvey.h - What `npufuzz toolchains` shows -*- C++ -*-===//
//
// Every toolchain of Toolchains.def: where discovery found it, the version
// it reports, its canary, and a canary case through the backend that uses
// it, compared with the reference like any case of a campaign.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_TOOLCHAINSURVEY_H
#define NPUFUZZ_DRIVER_TOOLCHAINSURVEY_H

#include "backend/toolchains/Canary.h"
#include "backend/toolchains/Toolchain.h"

#include <map>
#include <string>
#include <vector>

namespace npufuzz {

struct ToolchainRow {
  ToolchainKind kind = ToolchainKind::Ptoas;
  enum class State : uint8_t { Ok, Missing, Broken } state = State::Missing;
  LocatedToolchain where; ///< when found
  CanaryResult canary;    ///< when found
  std::string missing;    ///< why not found
  /// The canary case through the backend that uses it: "passed", or what
  /// went wrong, or why it was not run.
  std::string canaryCase;
  bool casePassed = false;
  /// Whether the user named it (flag, environment, config file): then a
  /// broken one is an error, not just a row.
  bool named() const { return where.source != "PATH" && where.source != "default"; }
};

/// Surveys every toolchain; `given` holds the flags' values by toolchain.
/// `withCases`: run the canary case of each backend whose toolchains are
/// all ok. False with `error` only when the config file cannot be used.
bool surveyToolchains(const std::map<ToolchainKind, std::string> &given, bool withCases,
                      std::vector<ToolchainRow> &rows, std::string &error);

/// One line a toolchain, for a terminal and for CI logs.
std::string formatToolchainRows(const std::vector<ToolchainRow> &rows);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_TOOLCHAINSURVEY_H
