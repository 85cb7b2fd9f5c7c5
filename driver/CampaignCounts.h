//===- driver/CampaignCounts.h - How many cases a directory ran -*- C++ -*-===//
//
// The counts of a campaign directory, read the same way by report, stats
// and merge, whatever state the directory was left in: state.json first
// (written every second, so a run killed before its summary counts, and a
// killed resume is not hidden behind an older summary.json), else
// summary.json (what merge writes), else nothing yet (0 cases).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_CAMPAIGNCOUNTS_H
#define NPUFUZZ_DRIVER_CAMPAIGNCOUNTS_H

#include "driver/IrCoverage.h"

#include <cstdint>
#include <map>
#include <string>

namespace npufuzz {

struct CampaignCounts {
  uint64_t cases = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> verdicts, features;
  IrCoverage irCoverage;

  void add(const CampaignCounts &other);
};

/// The counts of campaign directory `dir` (see above). False with `error`
/// only for a file that is there and cannot be read as what it should be.
bool readCampaignCounts(const std::string &dir, CampaignCounts &out, std::string &error);

/// The IR coverage of campaign directory `dir` (its counts').
bool readIrCoverage(const std::string &dir, IrCoverage &out, std::string &error);

/// summary.json for a directory that `merge` wrote: the sum of its inputs'
/// counts, in the keys a campaign's summary uses.
std::string mergedSummaryJson(const CampaignCounts &counts);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_CAMPAIGNCOUNTS_H
