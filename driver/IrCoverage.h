//===- driver/IrCoverage.h - Which MLIR the user's passes were given -*- C++ -*-===//
//
// A campaign's IR coverage: in how many cases each `op-name element-type`
// pair was in the module at the entry of the user's passes, and in how many
// each user pass changed the IR. A pass bug needs its IR shape at that
// point; these counts say which shapes a campaign gave the passes at all.
// Kept in state.json and summary.json (`ir_coverage`), printed by
// `npufuzz stats`.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_IRCOVERAGE_H
#define NPUFUZZ_DRIVER_IRCOVERAGE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace llvm::json {
class Object;
} // namespace llvm::json

namespace npufuzz {

struct IrCoverage {
  uint64_t cases = 0; ///< that reached the user passes' entry
  /// `op-name element-type` pairs; op names whatever their element types
  /// (a case counts once per name); user passes that changed the IR.
  std::map<std::string, uint64_t> ops, opNames, changedBy;

  /// Counts one case's run (BackendRun::entryOps, passesThatChanged); a run
  /// that never reached the passes (no entry ops) counts nothing.
  void add(const std::vector<std::string> &entryOps,
           const std::vector<std::string> &passesThatChanged);
  void add(const IrCoverage &other);

  /// `{"cases": N, "ops": {...}, "op_names": {...}, "changed_by": {...}}`.
  llvm::json::Object toJson() const;
  /// Reads what toJson wrote; a missing object is no coverage.
  static IrCoverage fromJson(const llvm::json::Object *o);
};

/// A table of both counts with their shares, most frequent first.
std::string formatIrCoverage(const IrCoverage &c);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_IRCOVERAGE_H
