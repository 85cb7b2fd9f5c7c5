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
#include <optional>
#include <string>

namespace npufuzz {

struct CoverageSummary; // driver/CompilerCoverage.h

/// The seeds a campaign directory ran, in order: first, first + step, ...,
/// `count` of them (a shard's seed-start and index, its shard count, and
/// how far it got).
struct SeedRange {
  uint64_t first = 0, step = 1, count = 0;
  bool contains(uint64_t seed) const {
    return count && seed >= first && (seed - first) % step == 0 && (seed - first) / step < count;
  }
};

/// A seed both ranges ran, if any: two directories that share one counted
/// it twice (a copy of one shard, or overlapping seed ranges).
std::optional<uint64_t> sharedSeed(const SeedRange &a, const SeedRange &b);

struct CampaignCounts {
  uint64_t cases = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> verdicts, features;
  IrCoverage irCoverage;
  /// Which campaign ran them: campaign.json (or what a merge recorded of
  /// its inputs') as canonical JSON, without its format; empty: unknown.
  std::string campaign;
  /// The seeds it ran, from its state.json; none for a merge's directory.
  std::optional<SeedRange> seeds;

  void add(const CampaignCounts &other);
};

/// Whether two directories' counts may be added up: both ran one campaign
/// (shards of it), or one of them does not say. Otherwise `why` names the
/// first setting they differ in.
bool sameCampaign(const CampaignCounts &a, const CampaignCounts &b, std::string &why);

/// The counts of campaign directory `dir` (see above). False with `error`
/// only for a file that is there and cannot be read as what it should be.
bool readCampaignCounts(const std::string &dir, CampaignCounts &out, std::string &error);

/// The IR coverage of campaign directory `dir` (its counts').
bool readIrCoverage(const std::string &dir, IrCoverage &out, std::string &error);

/// The inputs a merge recorded in `dir`'s summary.json, by their absolute
/// path, each with its counts when it was merged; none for a directory no
/// merge wrote.
std::map<std::string, CampaignCounts> readMergedInputs(const std::string &dir);

/// summary.json for a directory that `merge` wrote: each input's counts
/// (a directory merged again replaces its earlier counts, never adds to
/// them), their sum in the keys a campaign's summary uses, the campaign
/// they ran, and the compiler's coverage they joined.
std::string mergedSummaryJson(const std::map<std::string, CampaignCounts> &inputs,
                              const CoverageSummary &compilerCoverage);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_CAMPAIGNCOUNTS_H
