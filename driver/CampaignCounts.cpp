//===- driver/CampaignCounts.cpp - How many cases a directory ran ---------===//
#include "driver/CampaignCounts.h"
#include "driver/CompilerCoverage.h"

#include "driver/JsonFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <tuple>

namespace fs = std::filesystem;

namespace npufuzz {

std::optional<uint64_t> sharedSeed(const SeedRange &a, const SeedRange &b) {
  // The smallest x in both: x = a.first + i a.step = b.first + j b.step, by
  // the Chinese remainder theorem over the two steps, then the first such
  // x at or past both starts (a range may hold billions of seeds).
  using Wide = __int128;
  if (!a.count || !b.count || !a.step || !b.step)
    return std::nullopt;
  const Wide aLast = Wide(a.first) + Wide(a.step) * Wide(a.count - 1),
             bLast = Wide(b.first) + Wide(b.step) * Wide(b.count - 1);
  const Wide lo = std::max<Wide>(a.first, b.first), hi = std::min(aLast, bLast);
  if (lo > hi)
    return std::nullopt;
  const Wide g = std::gcd(a.step, b.step), diff = Wide(b.first) - Wide(a.first);
  if (diff % g != 0)
    return std::nullopt;
  // a.step / g * t = diff / g (mod m): t by the inverse of a.step / g.
  const Wide m = b.step / g;
  Wide t = 0;
  if (m > 1) {
    Wide r0 = m, r1 = (Wide(a.step) / g) % m, s0 = 0, s1 = 1; // extended Euclid
    while (r1 != 0) {
      const Wide q = r0 / r1;
      std::tie(r0, r1) = std::make_tuple(r1, r0 - q * r1);
      std::tie(s0, s1) = std::make_tuple(s1, s0 - q * s1);
    }
    t = ((diff / g) % m * (s0 % m)) % m;
    if (t < 0)
      t += m;
  }
  const Wide x0 = Wide(a.first) + Wide(a.step) * t, period = Wide(a.step) / g * Wide(b.step);
  const Wide x = lo + (((x0 - lo) % period) + period) % period;
  if (x > hi)
    return std::nullopt;
  return static_cast<uint64_t>(x);
}

void CampaignCounts::add(const CampaignCounts &other) {
  cases += other.cases;
  seconds += other.seconds;
  for (const auto &[k, n] : other.verdicts)
    verdicts[k] += n;
  for (const auto &[k, n] : other.features)
    features[k] += n;
  irCoverage.add(other.irCoverage);
  if (campaign.empty())
    campaign = other.campaign;
}

namespace {
/// `o` without its format, as canonical JSON (llvm::json prints keys sorted).
std::string canonicalIdentity(const llvm::json::Object &o) {
  llvm::json::Object copy = o;
  copy.erase("format");
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(copy));
  return s;
}

/// The campaign a directory ran: its campaign.json, else what a merge
/// recorded in summary.json.
std::string identityOf(const std::string &dir) {
  if (const std::optional<llvm::json::Value> v =
          readJsonFile((fs::path(dir) / "campaign.json").string()))
    if (const llvm::json::Object *o = v->getAsObject())
      return canonicalIdentity(*o);
  if (const std::optional<llvm::json::Value> v =
          readJsonFile((fs::path(dir) / "summary.json").string()))
    if (const llvm::json::Object *o = v->getAsObject())
      if (const llvm::json::Object *c = o->getObject("campaign"))
        return canonicalIdentity(*c);
  return "";
}
} // namespace

bool sameCampaign(const CampaignCounts &a, const CampaignCounts &b, std::string &why) {
  if (a.campaign.empty() || b.campaign.empty() || a.campaign == b.campaign)
    return true;
  llvm::Expected<llvm::json::Value> va = llvm::json::parse(a.campaign),
                                    vb = llvm::json::parse(b.campaign);
  why = "another campaign";
  if (va && vb && va->getAsObject() && vb->getAsObject()) {
    const llvm::json::Object &oa = *va->getAsObject(), &ob = *vb->getAsObject();
    for (const auto &[key, value] : oa) {
      const llvm::json::Value *other = ob.get(key);
      if (other && *other == value)
        continue;
      std::string was, now;
      llvm::raw_string_ostream wo(was), no(now);
      wo << value;
      if (other)
        no << *other;
      why = key.str() + " " + wo.str() + " vs " + (other ? no.str() : "(none)");
      break;
    }
  }
  if (!va)
    llvm::consumeError(va.takeError());
  if (!vb)
    llvm::consumeError(vb.takeError());
  return false;
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
    out.campaign = identityOf(dir);
    if (std::string(name) == "state.json") {
      const std::optional<int64_t> start = o->getInteger("seed_start"),
                                   index = o->getInteger("shard_index"),
                                   count = o->getInteger("shard_count"),
                                   next = o->getInteger("next");
      if (start && index && count && next && *count > 0 && *index >= 0 && *next >= 0)
        out.seeds = SeedRange{static_cast<uint64_t>(*start) + static_cast<uint64_t>(*index),
                              static_cast<uint64_t>(*count), static_cast<uint64_t>(*next)};
    }
    return true;
  }
  out.campaign = identityOf(dir);
  return true; // killed before its first state: no cases yet
}

bool readIrCoverage(const std::string &dir, IrCoverage &out, std::string &error) {
  CampaignCounts counts;
  if (!readCampaignCounts(dir, counts, error))
    return false;
  out = counts.irCoverage;
  return true;
}

namespace {
llvm::json::Object countsObject(const CampaignCounts &c) {
  return llvm::json::Object{{"total_cases", static_cast<int64_t>(c.cases)},
                            {"total_seconds", c.seconds},
                            {"verdicts", countsJson(c.verdicts)},
                            {"features", countsJson(c.features)},
                            {"ir_coverage", c.irCoverage.toJson()}};
}

CampaignCounts countsOf(const llvm::json::Object &o) {
  CampaignCounts c;
  c.cases = static_cast<uint64_t>(o.getInteger("total_cases").value_or(0));
  c.seconds = o.getNumber("total_seconds").value_or(0);
  readCounts(o.getObject("verdicts"), c.verdicts);
  readCounts(o.getObject("features"), c.features);
  c.irCoverage = IrCoverage::fromJson(o.getObject("ir_coverage"));
  return c;
}
} // namespace

std::map<std::string, CampaignCounts> readMergedInputs(const std::string &dir) {
  std::map<std::string, CampaignCounts> out;
  const std::optional<llvm::json::Value> v =
      readJsonFile((fs::path(dir) / "summary.json").string());
  const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
  const llvm::json::Object *inputs = o ? o->getObject("inputs") : nullptr;
  if (!inputs)
    return out;
  const std::string campaign = identityOf(dir);
  for (const auto &[path, counts] : *inputs)
    if (const llvm::json::Object *c = counts.getAsObject()) {
      out[path.str()] = countsOf(*c);
      out[path.str()].campaign = campaign;
    }
  return out;
}

std::string mergedSummaryJson(const std::map<std::string, CampaignCounts> &inputs,
                              const CoverageSummary &compilerCoverage) {
  CampaignCounts total;
  llvm::json::Object each;
  for (const auto &[path, counts] : inputs) {
    total.add(counts);
    each[path] = countsObject(counts);
  }
  llvm::json::Object o = countsObject(total);
  o["merged"] = true;
  o["compiler_coverage"] = coverageSummaryJson(compilerCoverage);
  o["inputs"] = std::move(each);
  if (!total.campaign.empty()) {
    if (llvm::Expected<llvm::json::Value> v = llvm::json::parse(total.campaign))
      o["campaign"] = std::move(*v);
    else
      llvm::consumeError(v.takeError());
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

} // namespace npufuzz
