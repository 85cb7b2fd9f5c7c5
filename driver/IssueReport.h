//===- driver/IssueReport.h - A finding as the issue its maintainer files -*- C++ -*-===//
//
// `npufuzz export --as report` writes the text a maintainer files as it is:
//
// - a title that is the symptom in the compiler's terms (the ledger's, for
//   a root it holds; else the error the compiler gives, or which ops give
//   wrong values);
// - the brief script (the ledger's committed one for its root, else the
//   generated one with only the switches the bug needs: each is left at the
//   compiler's default in turn, and stays so while the bug still shows);
// - what that script really prints, run here with the compiler's Python, and
//   what is expected beside it; the versions it printed; the flags it needs;
// - the ledger's analysis and related issues.
//
// Nothing of npufuzz is in it: no signature, no case file, no path of the
// machine it ran on. A root the tracker has already (the ledger's
// "duplicate") is written as a comment for that issue, not a new one.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_ISSUEREPORT_H
#define NPUFUZZ_DRIVER_ISSUEREPORT_H

#include "driver/Export.h"

#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

/// What the ledger records of one root cause.
struct LedgerRoot {
  std::string id, compiler, checkedIn, rootClass, summary;
  /// Its status on the tracker: "live", "duplicate", "fixed", ...; with the
  /// issue it duplicates.
  std::string statusKind, duplicateOf;
  /// The symptom, as a maintainer's title (empty: not triaged so far), and
  /// the flags the bug needs.
  std::string title, flags;
  /// Its brief script, from the checkout's root (empty: none committed).
  std::string brief;
  /// The tracker's issues and pull requests its searches found, nearest
  /// first: "ref (state): title".
  std::vector<std::string> related;
};

/// The root of the ledger at `ledgerPath` that `casePath` names (its id, or
/// one of its cases or its brief, as the ledger writes paths, from the
/// checkout's root, or a path ending so) or whose signatures include
/// `signatureId`; none when no root does. False with the reason when the
/// ledger cannot be read.
bool findLedgerRoot(const std::string &ledgerPath, const std::string &casePath,
                    const std::string &signatureId, std::optional<LedgerRoot> &root,
                    std::string &error);

/// The issue text of the verified case `c`, run as `how` says, found by
/// `backend` (a backend name; empty: the ledger's root names the compiler).
/// False with the reason when there is no compiler to report to, its
/// Python is not found, or the bug does not show on the release here.
bool issueReport(const Case &c, const Expectation &how, const ExportSource &source,
                 const std::string &backend, const std::string &ledgerPath, std::string &out,
                 std::string &error);

/// The issue text of the ledger's root `selector` names (its id, a case or
/// its brief), from its committed brief alone: any compiler whose brief
/// runs here (an MLIR file and a pto-isa one by their RUN line). False with
/// the reason when there is no such root, it has no brief, what runs the
/// brief is not found, or the bug does not show.
bool ledgerRootReport(const std::string &selector, const std::string &ledgerPath, std::string &out,
                      std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_ISSUEREPORT_H
