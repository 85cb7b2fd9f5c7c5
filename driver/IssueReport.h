//===- driver/IssueReport.h - A finding as the issue its maintainer reads -*- C++ -*-===//
//
// `npufuzz export --as report` writes the text of an issue for the
// compiler's tracker: a title, the environment, the brief script (or the
// compiler's own form where there is no brief one), what is expected and
// what the compiler gives, and the tracker's related issues as the ledger
// (corpus/upstream/ledger.json) records them. The ledger's root is found by
// the case's path or its signature; without one the report says that the
// tracker was not searched yet.
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
  std::string id, compiler, foundIn, checkedIn, rootClass, summary, status;
  /// The tracker's issues and pull requests its searches found, nearest
  /// first: "ref (state): title, relation".
  std::vector<std::string> related;
};

/// The root of the ledger at `ledgerPath` whose cases include the case at
/// `casePath` (as the ledger writes paths, from the checkout's root, or
/// ending so) or whose signatures include `signatureId`; none when no root
/// does. False with the reason when the ledger cannot be read.
bool findLedgerRoot(const std::string &ledgerPath, const std::string &casePath,
                    const std::string &signatureId, std::optional<LedgerRoot> &root,
                    std::string &error);

/// The issue text of the verified case `c`, run as `how` says, found by
/// `backend` (a backend name; empty: the ledger's root names the compiler).
bool issueReport(const Case &c, const Expectation &how, const ExportSource &source,
                 const std::string &backend, const std::string &ledgerPath, std::string &out,
                 std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_ISSUEREPORT_H
