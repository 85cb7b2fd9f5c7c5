//===- oracles/Verdict.cpp - The outcome of one case ----------------------===//
#include "oracles/Verdict.h"

namespace npufuzz {

std::string_view verdictName(VerdictKind k) {
  static constexpr std::string_view kNames[kNumVerdictKinds] = {
#define NPUFUZZ_VERDICT(Kind, name) name,
#include "oracles/Verdict.def"
  };
  return kNames[static_cast<int>(k)];
}

std::optional<VerdictKind> parseVerdictName(std::string_view s) {
  for (int i = 0; i < kNumVerdictKinds; ++i)
    if (verdictName(static_cast<VerdictKind>(i)) == s)
      return static_cast<VerdictKind>(i);
  return std::nullopt;
}

bool isFinding(VerdictKind k) {
  return k != VerdictKind::Ok && k != VerdictKind::Unsupported &&
         k != VerdictKind::EnvironmentError;
}

} // namespace npufuzz
