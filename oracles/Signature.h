//===- oracles/Signature.h - What makes two failures the same -*- C++ -*-===//
//
// A failure's signature: verdict kind + blamed pass + where (top stack
// frames for a crash, the op kind that produced a wrong output) + the
// normalised message (numbers, SSA names, addresses and temporary paths
// stripped). Findings deduplicate by it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_SIGNATURE_H
#define NPUFUZZ_ORACLES_SIGNATURE_H

#include "oracles/Verdict.h"

#include <string>

namespace npufuzz {

struct Signature {
  VerdictKind kind = VerdictKind::Ok;
  std::string pass;    ///< blamed pass element, if any
  std::string where;   ///< top frames or op kind
  std::string message; ///< normalised

  /// `kind | pass | where | message`: the identity, readable.
  std::string text() const;
  /// `kind-<16 hex digits>` of text(): a directory name.
  std::string id() const;
};

/// Strips what varies between occurrences of one bug: hex numbers, decimal
/// numbers, SSA value names, temporary file names; keeps the first
/// diagnostic line, at most 240 characters.
std::string normalizeMessage(const std::string &raw);

/// The first `n` meaningful function names of an LLVM stack dump on stderr
/// (signal-handler and libc frames skipped), or the assertion text when an
/// assertion failed; empty when neither is present.
std::string crashLocation(const std::string &stderrText, int n = 3);

/// The arithmetic an op of the case model applies per element, for naming
/// a pass's miscompile: `max`, `row_expand_max`, `col_expand_max` and
/// `reduce_max` all lower to one maximumf, which is what a pass gets wrong
/// (`reduce_sum` is `add`); max and min are one family, `max/min`, since
/// passes treat both by one rule; every view op (slice, transpose,
/// index_map, ...) is `view`, since a pass gets an access wrong, not the
/// view. Other names are returned as they are.
std::string scalarFamily(const std::string &opName);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SIGNATURE_H
