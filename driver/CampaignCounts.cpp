//===- driver/CampaignCounts.cpp - How many cases a directory ran ---------===//
#include "driver/CampaignCounts.h"

#include "driver/JsonFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace npufuzz {

void CampaignCounts::add(const CampaignCounts &other) {
  cases += other.cases;
  seconds += other.seconds;
  for (const auto &[k, n] : other.verdicts)
    verdicts[k] += n;
  for (const auto &[k, n] : other.features)
    features[k] += n;
  irCoverage.add(other.irCoverage);
}

bool readCampaignCounts(const std::string &dir, CampaignCounts &out, std::string &error) {
  out = CampaignCounts();
  std::error_code ec;
  for (const char *name : {"state.json", "summary.json"}) {
    const fs::path path = fs::path(dir) / name;
    if (!fs::exists(path, ec))
      continue;
    const std::optional<llvm::json::Value> v = readJsonFile(path.string());
    const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o) {
      error = path.string() + ": cannot be read as campaign counts (invalid JSON)";
      return false;
    }
    // state.json and a campaign's summary.json both keep the totals over
    // every run that resumed the directory.
    out.cases = static_cast<uint64_t>(
        o->getInteger("total_cases").value_or(o->getInteger("cases").value_or(0)));
    out.seconds = o->getNumber("total_seconds").value_or(o->getNumber("seconds").value_or(0));
    readCounts(o->getObject("verdicts"), out.verdicts);
    readCounts(o->getObject("features"), out.features);
    out.irCoverage = IrCoverage::fromJson(o->getObject("ir_coverage"));
    return true;
  }
  return true; // killed before its first state: no cases yet
}

bool readIrCoverage(const std::string &dir, IrCoverage &out, std::string &error) {
  CampaignCounts counts;
  if (!readCampaignCounts(dir, counts, error))
    return false;
  out = counts.irCoverage;
  return true;
}

std::string mergedSummaryJson(const CampaignCounts &c) {
  llvm::json::Object o{{"merged", true},
                       {"total_cases", static_cast<int64_t>(c.cases)},
                       {"total_seconds", c.seconds},
                       {"verdicts", countsJson(c.verdicts)},
                       {"features", countsJson(c.features)},
                       {"ir_coverage", c.irCoverage.toJson()}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

} // namespace npufuzz
