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

#include "ir/DType.h"
#include "oracles/Verdict.h"

#include <optional>
#include <string>
#include <string_view>

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

/// The `where` of a signature whose failure does not depend on the op it
/// first showed in: swapped for ops of other families (or, for ops with no
/// like-typed swap, removed), the case fails the same way
/// (shrink/Generalize.h).
inline constexpr const char *kAnyOp = "any op";

/// The `where` of a pass's miscompile that shows as an access the program
/// must not make: a read or a write past a buffer, or a write outside an
/// output's valid region. Which of them a case shows first depends on its
/// loop order and data, not on the bug, so all are one root cause of the
/// pass (its signature's kind is mismatch: the program the pass made is
/// wrong); each case's own verdict is kept as its symptom.
inline constexpr const char *kBadAccess = "bad access";

/// The `where` of a pass's miscompile whose first wrong output has every
/// differing element one rounding step off (a float 1 ulp, an integer 1):
/// a pass that rounds wrong (bf16's ties to even, say) shows in whichever
/// op's result lands on a case it gets wrong, which depends on the data, so
/// the op is not part of the root; a swap of the op for another family
/// rarely lands on such a case again, so generalisation cannot show it
/// either.
inline constexpr const char *kRoundingOnly = "rounding";

/// A pass pipeline element without its options: `func.func(arith-expand)`
/// for `func.func(arith-expand{include-bf16=true})`.
std::string passWithoutOptions(const std::string &element);

/// Whether the pass `named` (a signature's) names the pipeline element
/// `element`: the same text, or `named` carries no options and `element`
/// is that pass with some.
bool namesPass(const std::string &named, const std::string &element);

/// Whether `seen` is a failure of the root cause `target` names: the same
/// verdict and message, the same pass (or, when `target`'s pass carries no
/// options, the same pass with whatever options), and the same where unless
/// `target`'s is kAnyOp.
bool sameRootCause(const Signature &target, const Signature &seen);

/// The signature whose text() is `text` (`kind | pass | where | message`);
/// nullopt when it is not one.
std::optional<Signature> parseSignatureText(const std::string &text);

/// Strips what varies between occurrences of one bug: hex numbers, decimal
/// numbers, SSA value names, temporary file names; keeps the first
/// diagnostic line, at most 240 characters.
std::string normalizeMessage(const std::string &raw);

/// The first `n` meaningful function names of an LLVM stack dump on stderr
/// (signal-handler and libc frames skipped), or the assertion text when an
/// assertion failed; empty when neither is present.
std::string crashLocation(const std::string &stderrText, int n = 3);

/// What a signature keeps of the kind of a first difference
/// (oracles/Compare.h differenceKind): signed-zero, nan and rounding, each
/// a behaviour of its own, as they are; a wrong number of any magnitude
/// (value, extreme, infinity) is `value`, since how large the wrong number
/// came out depends on the case's data, not on the bug.
std::string_view differenceClass(std::string_view kind);

/// The kind of difference `kind` of a result of dtype `t` of the op named
/// `opName`, as a root names it: one step off (`rounding`) only where the op
/// rounds, which is any float result and, of integer results, a cast's or a
/// division's. An exact integer op one off (`1 * 1` emitted as `1 + 1`, a
/// topk index) computed a wrong value.
std::string resultDifference(const std::string &opName, DType t, const std::string &kind);

/// The arithmetic an op of the case model applies per element, for naming
/// a pass's miscompile: `max`, `row_expand_max`, `col_expand_max` and
/// `reduce_max` all lower to one maximumf, which is what a pass gets wrong
/// (`reduce_sum` is `add`); max and min are one family, `max/min`, since
/// passes treat both by one rule; every view op (slice, transpose,
/// index_map, ...) is `view`, since a pass gets an access wrong, not the
/// view; clamp is `max/min`, which it lowers to. Other names are returned as
/// they are.
std::string scalarFamily(const std::string &opName);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SIGNATURE_H
