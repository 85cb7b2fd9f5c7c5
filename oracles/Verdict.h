//===- oracles/Verdict.h - The outcome of one case -------------*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_VERDICT_H
#define NPUFUZZ_ORACLES_VERDICT_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace npufuzz {

enum class VerdictKind : uint8_t {
#define NPUFUZZ_VERDICT(Kind, name) Kind,
#include "oracles/Verdict.def"
};
/// One per row of Verdict.def.
constexpr int kNumVerdictKinds = 0
#define NPUFUZZ_VERDICT(Kind, name) +1
#include "oracles/Verdict.def"
    ;

std::string_view verdictName(VerdictKind k);
std::optional<VerdictKind> parseVerdictName(std::string_view s);

/// Whether a case with verdict `k` is a finding: anything but ok, what the
/// backend cannot express, and a machine that refused.
bool isFinding(VerdictKind k);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_VERDICT_H
