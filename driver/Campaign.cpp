//===- driver/Campaign.cpp - Fuzz campaigns --------------------------------===//
#include "driver/Campaign.h"
#include "driver/JsonFile.h"

#include "backend/external/ExternalBackend.h"
#include "backend/pto/PtoasCoverage.h"
#include "driver/CaseTask.h"
#include "driver/DirectoryLock.h"
#include "driver/Findings.h"
#include "driver/GuidedCorpus.h"
#include "driver/ReduceCommand.h"
#include "driver/Report.h"
#include "driver/RootClassifier.h"
#include "driver/Worker.h"
#include "generators/CaseGenerator.h"
#include "generators/Features.h"
#include "ir/Elapsed.h"
#include "ir/FileText.h"
#include "ir/Text.h"
#include "oracles/Backend.h"
#include "oracles/OpBlame.h"
#include "oracles/StoredBy.h"
#include "shrink/Generalize.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <poll.h>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace npufuzz {

std::optional<uint64_t> loweringSeedFor(const CampaignOptions &options, uint64_t caseSeed) {
  if (!options.seededLowering)
    return std::nullopt;
  return loweringSeedOf(caseSeed);
}

const char *guidanceName(Guidance g) {
  switch (g) {
  case Guidance::None: return "none";
  case Guidance::Feedback: return "feedback";
  }
  return "?";
}

bool parseGuidance(const std::string &name, Guidance &out) {
  for (const Guidance g : {Guidance::None, Guidance::Feedback})
    if (name == guidanceName(g)) {
      out = g;
      return true;
    }
  return false;
}

namespace {
/// How many cases' ptoas profiles a campaign reads at once: a read costs
/// about 2.5 s (llvm-cov reads ptoas's whole coverage mapping), a case
/// about 0.6 s.
constexpr uint64_t kPtoasProfilesEvery = 64;

volatile std::sig_atomic_t stopRequested = 0;
void onSigint(int) { stopRequested = 1; }

using Clock = std::chrono::steady_clock;
/// Whether this build reads the format of `o`, campaign.json's or
/// state.json's (format 1: before the field was written); a newer one may
/// mean what this build cannot know. Otherwise `error` says so.
bool readableFormat(const llvm::json::Object &o, const std::string &path, std::string &error) {
  const int64_t format = o.getInteger("format").value_or(1);
  if (format <= kCampaignFormat)
    return true;
  error = path + ": written by a newer npufuzz (format " + std::to_string(format) +
          ", this one reads " + std::to_string(kCampaignFormat) + "); resume it with that npufuzz";
  return false;
}

/// A map of strings as a JSON object.
llvm::json::Object textsJson(const std::map<std::string, std::string> &texts) {
  llvm::json::Object o;
  for (const auto &[k, v] : texts)
    o[k] = v;
  return o;
}

/// What survives a stop: how far the campaign got and its totals.
struct State {
  uint64_t seedStart = 0, shardIndex = 0, shardCount = 1;
  uint64_t next = 0; ///< every seed index below this has completed
  /// Completed indices above `next` (cases finish out of order): a resume
  /// must not run, and so count, them again.
  std::set<uint64_t> ahead;
  /// Failing cases whose confirmation or blame ran out of time: run again
  /// at the end of a run, with more time, and only then counted. Kept
  /// apart so that `next` goes on past them (a killed run leaves them to
  /// the next one's end).
  std::set<uint64_t> deferred;
  /// The worker requests of deferred cases that no seed rebuilds (a guided
  /// campaign's mutants), so that a later run's end can retry them.
  std::map<uint64_t, std::string> deferredRequests;
  /// Deferred hangs and out-of-memory ends, by index, with what the
  /// campaign saw ("hang: ..."): confirmed alone with more of every limit
  /// before they are filed (confirmsAlone).
  std::map<uint64_t, std::string> deferredAlone;
  /// What the machine did rather than the compiler (a hang that ran clean
  /// alone with more time), by reason: never findings.
  std::map<std::string, uint64_t> environmentEvents;
  /// The root cause each case signature seen so far generalised to
  /// (shrink/Generalize.h), by case signature id: a case signature is
  /// generalised once, and later cases with it go to the same finding.
  std::map<std::string, std::string> roots;
  uint64_t totalCases = 0;
  double totalSeconds = 0; ///< of every earlier run
  std::map<std::string, uint64_t> verdicts, features;
  /// CampaignResult::unsupportedReasons, valuesNotComputed, dmaMaps.
  std::map<std::string, uint64_t> unsupportedReasons, valuesNotComputed, dmaMaps;
  IrCoverage irCoverage;

  std::string json(double runSeconds) const {
    llvm::json::Array a;
    for (uint64_t i : ahead)
      a.push_back(static_cast<int64_t>(i));
    llvm::json::Array d;
    for (uint64_t i : deferred)
      d.push_back(static_cast<int64_t>(i));
    llvm::json::Object requests;
    for (const auto &[i, request] : deferredRequests)
      requests[std::to_string(i)] = request;
    llvm::json::Object alone;
    for (const auto &[i, why] : deferredAlone)
      alone[std::to_string(i)] = why;
    llvm::json::Object o{{"format", kCampaignFormat},
                         {"seed_start", static_cast<int64_t>(seedStart)},
                         {"shard_index", static_cast<int64_t>(shardIndex)},
                         {"shard_count", static_cast<int64_t>(shardCount)},
                         {"next", static_cast<int64_t>(next)},
                         {"ahead", std::move(a)},
                         {"deferred", std::move(d)},
                         {"deferred_requests", std::move(requests)},
                         {"deferred_alone", std::move(alone)},
                         {"environment_events", countsJson(environmentEvents)},
                         {"roots", textsJson(roots)},
                         {"total_cases", static_cast<int64_t>(totalCases)},
                         {"total_seconds", totalSeconds + runSeconds},
                         {"verdicts", countsJson(verdicts)},
                         {"features", countsJson(features)},
                         {"unsupported_reasons", countsJson(unsupportedReasons)},
                         {"values_not_computed", countsJson(valuesNotComputed)},
                         {"dma_maps", countsJson(dmaMaps)},
                         {"ir_coverage", irCoverage.toJson()}};
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
    return s;
  }

  /// Loads DIR/state.json. No file is a fresh campaign; a file that cannot
  /// be read, or that belongs to another seed range or shard, is an error.
  bool load(const std::string &path, std::string &error) {
    std::error_code ec;
    if (!fs::exists(path, ec))
      return true;
    std::string why;
    const std::optional<llvm::json::Value> parsed = readJsonFile(path, why);
    if (!parsed) {
      error = path + ": not a campaign state (" + why + "); move it away to start afresh";
      return false;
    }
    const llvm::json::Object *o = parsed->getAsObject();
    if (!o) {
      error = path + ": not a campaign state";
      return false;
    }
    if (!readableFormat(*o, path, error))
      return false;
    // Every field a resume relies on is there, of its type: a state that
    // lost `next` would run its seeds again and count them twice.
    auto damaged = [&](const std::string &what) {
      error = path + ": " + what +
              "; the campaign state is damaged: move the directory away and start afresh";
      return false;
    };
    for (const char *key :
         {"seed_start", "shard_index", "shard_count", "next", "total_cases", "total_seconds"})
      if (!o->getNumber(key) ||
          (std::string(key) != "total_seconds" && (!o->getInteger(key) || *o->getInteger(key) < 0)))
        return damaged(std::string("'") + key + "' is missing or not a count");
    if (!o->getArray("ahead"))
      return damaged("'ahead' is missing");
    if (o->getInteger("seed_start").value_or(-1) != static_cast<int64_t>(seedStart) ||
        o->getInteger("shard_index").value_or(-1) != static_cast<int64_t>(shardIndex) ||
        o->getInteger("shard_count").value_or(-1) != static_cast<int64_t>(shardCount)) {
      error = "the campaign in this directory started at --seed-start " +
              std::to_string(o->getInteger("seed_start").value_or(0)) + " --shard " +
              std::to_string(o->getInteger("shard_index").value_or(0)) + "/" +
              std::to_string(o->getInteger("shard_count").value_or(1)) +
              "; resume it with those, or give another -o directory";
      return false;
    }
    next = static_cast<uint64_t>(*o->getInteger("next"));
    for (const llvm::json::Value &v : *o->getArray("ahead")) {
      const std::optional<int64_t> i = v.getAsInteger();
      if (!i || *i < 0)
        return damaged("'ahead' holds something other than case indices");
      if (static_cast<uint64_t>(*i) >= next)
        ahead.insert(static_cast<uint64_t>(*i));
    }
    // A deferred case ran (it is below `next` or ahead of it) and is not
    // counted yet: every case that ran is counted or deferred, once.
    if (const llvm::json::Array *d = o->getArray("deferred")) // format 2
      for (const llvm::json::Value &v : *d) {
        const std::optional<int64_t> i = v.getAsInteger();
        if (!i || *i < 0 ||
            (static_cast<uint64_t>(*i) >= next && !ahead.count(static_cast<uint64_t>(*i))) ||
            !deferred.insert(static_cast<uint64_t>(*i)).second)
          return damaged("'deferred' holds something other than cases that ran, once each");
      }
    // Texts kept per deferred case (its request, why it waits alone).
    auto deferredTexts = [&](const char *key, std::map<uint64_t, std::string> &to) {
      if (const llvm::json::Object *r = o->getObject(key))
        for (const auto &[index, value] : *r) {
          uint64_t i = 0;
          const std::optional<llvm::StringRef> text = value.getAsString();
          if (llvm::StringRef(index).getAsInteger(10, i) || !deferred.count(i) || !text)
            return false;
          to[i] = text->str();
        }
      return true;
    };
    if (!deferredTexts("deferred_requests", deferredRequests))
      return damaged("'deferred_requests' holds something other than deferred cases");
    if (!deferredTexts("deferred_alone", deferredAlone))
      return damaged("'deferred_alone' holds something other than deferred cases");
    if (o->getObject("environment_events") &&
        !readCounts(o->getObject("environment_events"), environmentEvents))
      return damaged("'environment_events' holds something other than counts");
    if (const llvm::json::Object *r = o->getObject("roots"))
      for (const auto &[id, root] : *r)
        if (const std::optional<llvm::StringRef> text = root.getAsString();
            text && parseSignatureText(text->str()))
          roots[id.str()] = text->str();
    totalCases = o->getInteger("total_cases").value_or(0);
    totalSeconds = o->getNumber("total_seconds").value_or(0);
    if (totalCases + deferred.size() != next + ahead.size())
      return damaged("'total_cases' (" + std::to_string(totalCases) + ") and 'deferred' (" +
                     std::to_string(deferred.size()) + ") do not add up to the cases that ran (" +
                     std::to_string(next + ahead.size()) + ")");
    if (!readCounts(o->getObject("verdicts"), verdicts) ||
        !readCounts(o->getObject("features"), features))
      return damaged("'verdicts' or 'features' holds something other than counts");
    if (o->getObject("unsupported_reasons") &&
        !readCounts(o->getObject("unsupported_reasons"), unsupportedReasons))
      return damaged("'unsupported_reasons' holds something other than counts");
    if (o->getObject("values_not_computed") &&
        !readCounts(o->getObject("values_not_computed"), valuesNotComputed))
      return damaged("'values_not_computed' holds something other than counts");
    if (o->getObject("dma_maps") && !readCounts(o->getObject("dma_maps"), dmaMaps))
      return damaged("'dma_maps' holds something other than counts");
    uint64_t judged = 0;
    for (const auto &[name, n] : verdicts) {
      if (!parseVerdictName(name))
        return damaged("'verdicts' names '" + name + "', which is no verdict");
      judged += n;
    }
    if (judged != totalCases)
      return damaged("'verdicts' count " + std::to_string(judged) + " cases, 'total_cases' " +
                     std::to_string(totalCases));
    irCoverage = IrCoverage::fromJson(o->getObject("ir_coverage"));
    return true;
  }
};

/// A case in flight. It holds its worker's slot until it is recorded, also
/// while a failure from a used worker is re-run in a fresh child.
struct Running {
  uint64_t index = 0, seed = 0;
  Case c;
  /// The lowering seed it runs with (none: the canonical plan), and what the
  /// worker is sent: the seed of a generated case, the text of a mutant.
  std::optional<uint64_t> loweringSeed;
  std::string request;
  /// A guided campaign's: the choice words of the case, whether it is a
  /// mutant, and how it was made.
  std::vector<uint64_t> choices;
  bool mutant = false;
  std::string how = "generated";
  Worker *worker = nullptr;
  std::unique_ptr<Child> confirm;
  VerdictKind workerVerdict = VerdictKind::Ok;
  bool workerWasUsed = false;
  /// How the worker saw a failing case being confirmed fail: what the root
  /// classifier learns from the confirmation.
  RootClassifier::Fingerprint fingerprint;

  /// The process the case is waiting on: the confirming child once there
  /// is one, the worker before.
  bool poll() { return confirm ? confirm->poll() : worker->poll(); }
  void kill() { confirm ? confirm->kill() : worker->kill(); }
  std::array<int, 2> fds() const {
    if (confirm)
      return {confirm->payloadFd(), confirm->stderrFd()};
    return {worker->responseFd(), worker->stderrFd()};
  }
};

/// What campaign a directory holds: everything that decides which cases run
/// and how their verdicts come about. Limits, jobs and time are not part of
/// it; they may change between runs.
llvm::json::Object campaignIdentity(const CampaignOptions &o, std::string &error) {
  std::string policy = "default";
  if (!o.policyPath.empty() && !readFileBytes(o.policyPath, policy, error))
    return {};
  llvm::json::Array plugins, flags;
  for (const std::string &p : o.passPlugins)
    plugins.push_back(p);
  for (const std::string &f : o.backendFlags)
    flags.push_back(f);
  return llvm::json::Object{
      {"format", kCampaignFormat},
      {"style", std::string(mlirStyleName(o.config.style))},
      {"pipeline", o.config.pipeline},
      {"backend", std::string(backendKindName(o.config.backend))},
      {"backend_flags", std::move(flags)},
      {"policy", policy},
      {"pass_plugins", std::move(plugins)},
      {"metamorphic_share", o.config.metamorphicShare},
      {"lowering", o.seededLowering ? "seeded" : "canonical"},
      {"pass_stage", std::string(passStageName(o.config.stage))},
      {"guidance", std::string(guidanceName(o.guidance))},
      {"guidance_epoch", static_cast<int64_t>(o.guidanceEpoch)},
  };
}

namespace {
/// What a campaign.json written before a key existed meant by its absence.
std::optional<llvm::json::Value> identityDefault(llvm::StringRef key) {
  if (key == "lowering")
    return llvm::json::Value("canonical"); // before seeded lowering
  if (key == "pass_stage")
    return llvm::json::Value("entry");
  if (key == "guidance")
    return llvm::json::Value("none"); // before guided campaigns
  if (key == "guidance_epoch")
    return llvm::json::Value(static_cast<int64_t>(kDefaultGuidanceEpoch));
  return std::nullopt;
}
} // namespace

/// Writes DIR/campaign.json for a new campaign, or checks that a resumed
/// one asks for the same campaign: mixing two in one directory would make
/// its counts and findings meaningless.
bool checkCampaignIdentity(const CampaignOptions &o, std::string &error) {
  llvm::json::Object want = campaignIdentity(o, error);
  if (!error.empty())
    return false;
  const fs::path path = fs::path(o.outDir) / "campaign.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    // A state with no description is not a campaign this build wrote (a
    // copied or damaged directory): which campaign it counts is unknown.
    if (fs::exists(fs::path(o.outDir) / "state.json", ec)) {
      error = o.outDir + " holds a state.json but no campaign.json: it is not a campaign "
                         "npufuzz can resume; give another -o directory";
      return false;
    }
    // Nor are findings without one: adopted, they would be listed as this
    // campaign's, of whatever style and pipeline made them.
    if (const fs::path findings = fs::path(o.outDir) / "findings";
        fs::is_directory(findings, ec) && !fs::is_empty(findings, ec)) {
      error = o.outDir + " holds findings but no campaign.json: they are not this campaign's; "
                         "give another -o directory";
      return false;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object(want))) << "\n";
    return writeFileAtomically(path.string(), os.str(), error);
  }
  // A directory in findings/ that npufuzz did not file (its name is no
  // signature id) would be listed, counted and reduced as a finding.
  if (const fs::path findings = fs::path(o.outDir) / "findings"; fs::is_directory(findings, ec))
    for (fs::directory_iterator it(findings, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec) && !name.empty() && name[0] != '.' && !isSignatureId(name)) {
        error = it->path().string() + ": not a finding npufuzz filed (its name is no signature " +
                "id); move it out of the campaign";
        return false;
      }
    }
  std::string why;
  const std::optional<llvm::json::Value> parsed = readJsonFile(path.string(), why);
  if (!parsed) {
    error = path.string() + ": not a campaign description (" + why + ")";
    return false;
  }
  const llvm::json::Object *have = parsed->getAsObject();
  if (!have) {
    error = path.string() + ": not a campaign description";
    return false;
  }
  if (!readableFormat(*have, path.string(), error))
    return false;
  // In the order of their names, not the hash table's: the message is
  // the same on every machine.
  auto sortedKeys = [](const llvm::json::Object &object) {
    std::vector<std::string> keys;
    for (const auto &entry : object)
      if (entry.first != "format")
        keys.push_back(entry.first.str());
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  std::string differences;
  for (const std::string &key : sortedKeys(want)) {
    const llvm::json::Value &value = *want.get(key);
    const std::optional<llvm::json::Value> absent = identityDefault(key);
    const llvm::json::Value *old = have->get(key);
    if (!old && absent)
      old = &*absent;
    if (old && *old == value)
      continue;
    std::string was, now;
    llvm::raw_string_ostream wo(was), no(now);
    if (old)
      wo << *old;
    no << value;
    differences += "\n  " + key + ": " + (old ? wo.str() : "(none)") + " in " + o.outDir + ", " +
                   no.str() + " asked";
  }
  // What this build does not know decides cases in a way it cannot
  // repeat: a directory of another version or shape is not resumed.
  for (const std::string &key : sortedKeys(*have))
    if (!want.get(key))
      differences += "\n  " + key + ": in " + o.outDir + ", unknown to this npufuzz";
  if (differences.empty())
    return true;
  error = o.outDir +
          " holds another campaign; resume it as it was, or give another -o "
          "directory:" +
          differences;
  return false;
}

/// What a worker is sent for a mutant, which no seed builds: "case", its
/// lowering seed ("canonical": none) and its text, a line each.
std::string mutantRequest(const Case &c, std::optional<uint64_t> loweringSeed) {
  return "case\n" + (loweringSeed ? std::to_string(*loweringSeed) : std::string("canonical")) +
         "\n" + printCase(c);
}

/// The case and lowering seed a worker request names: a seed's generated
/// case with the campaign's lowering seed for it, or a mutant's text.
/// False with `error` when it names none (a mutant whose text does not
/// parse back: npufuzz's own bug, which stops the campaign).
bool caseOfRequest(const std::string &request, const CampaignOptions &options, Case &c,
                   std::optional<uint64_t> &loweringSeed, std::string &error) {
  if (request.rfind("case\n", 0) != 0) {
    const uint64_t seed = std::stoull(request);
    c = generateCase(seed, options.policy);
    loweringSeed = loweringSeedFor(options, seed);
    return true;
  }
  const size_t eol = request.find('\n', 5);
  const std::string lowering = request.substr(5, eol - 5);
  loweringSeed.reset();
  if (lowering != "canonical")
    loweringSeed = std::stoull(lowering);
  TextError textError;
  if (eol == std::string::npos || !parseCase(request.substr(eol + 1), c, textError)) {
    error = "a mutant's text does not parse back: " + textError.format("mutant");
    return false;
  }
  return true;
}

} // namespace

std::vector<FindingSummary> scanFindings(const std::string &outDir) {
  std::vector<FindingSummary> out;
  const fs::path dir = fs::path(outDir) / "findings";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return out;
  for (const auto &e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name[0] == '.' || !isSignatureId(name))
      continue;
    FindingSummary f;
    f.id = name;
    f.count = findingCount(e.path().string());
    if (const std::optional<llvm::json::Value> parsed =
            readJsonFile((e.path() / "report.json").string()))
      if (const llvm::json::Object *o = parsed->getAsObject()) {
        f.text = o->getString("signature").value_or("").str();
        f.summary = o->getString("summary").value_or("").str();
        f.firstSeed = o->getInteger("seed").value_or(0);
        if (const llvm::json::Value *seed = o->get("lowering_seed"))
          f.loweringSeed = seed->getAsUINT64();
        f.stage = o->getString("pass_stage").value_or("entry").str();
      }
    readFindingBucket(e.path().string(), f.bucket, f.bucketKey);
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(),
            [](const FindingSummary &a, const FindingSummary &b) { return a.id < b.id; });
  return out;
}

namespace {} // namespace

std::vector<BucketSummary> bucketsOf(const std::vector<FindingSummary> &findings) {
  std::map<std::string, BucketSummary> byId;
  for (const FindingSummary &f : findings) {
    BucketSummary &b = byId[f.bucket];
    b.id = f.bucket;
    b.key = f.bucketKey;
    b.signatures.push_back(f.id);
    b.count += f.count;
  }
  std::vector<BucketSummary> out;
  for (auto &[id, b] : byId)
    out.push_back(std::move(b));
  return out;
}

namespace {

llvm::json::Object adapterStartsJson(const AdapterStarts &s) {
  return llvm::json::Object{{"count", static_cast<int64_t>(s.count)},
                            {"max_s", s.maxSeconds},
                            {"mean_s", s.count ? s.totalSeconds / s.count : 0.0}};
}

bool writeSummaryJson(const std::string &outDir, const CampaignResult &r, std::string &error) {
  llvm::json::Array findings;
  for (const FindingSummary &x : r.findings)
    findings.push_back(llvm::json::Object{{"id", x.id},
                                          {"signature", x.text},
                                          {"count", static_cast<int64_t>(x.count)},
                                          {"first_seed", static_cast<int64_t>(x.firstSeed)},
                                          {"summary", x.summary}});
  llvm::json::Array buckets;
  for (const BucketSummary &b : bucketsOf(r.findings)) {
    llvm::json::Array sigs;
    for (const std::string &s : b.signatures)
      sigs.push_back(s);
    buckets.push_back(llvm::json::Object{{"id", b.id},
                                         {"key", b.key},
                                         {"signatures", std::move(sigs)},
                                         {"count", static_cast<int64_t>(b.count)}});
  }
  llvm::json::Object o{{"cases", static_cast<int64_t>(r.cases)},
                       {"total_cases", static_cast<int64_t>(r.totalCases)},
                       {"seconds", r.seconds},
                       {"total_seconds", r.totalSeconds},
                       {"run_verdicts", countsJson(r.runVerdicts)},
                       {"cases_per_second", r.seconds > 0 ? r.cases / r.seconds : 0.0},
                       {"verdicts", countsJson(r.verdicts)},
                       {"features", countsJson(r.features)},
                       {"unsupported_reasons", countsJson(r.unsupportedReasons)},
                       {"values_not_computed", countsJson(r.valuesNotComputed)},
                       {"dma_maps", countsJson(r.dmaMaps)},
                       {"environment_events", countsJson(r.environmentEvents)},
                       {"adapter_starts", adapterStartsJson(r.adapterStarts)},
                       {"ir_coverage", r.irCoverage.toJson()},
                       {"compiler_coverage", coverageSummaryJson(r.compilerCoverage)},
                       {"findings", std::move(findings)},
                       {"buckets", std::move(buckets)},
                       {"first_filed", static_cast<int64_t>(r.firstFiled)},
                       {"mutants", static_cast<int64_t>(r.mutants)},
                       {"corpus_cases", static_cast<int64_t>(r.corpusCases)},
                       {"corpus_keys", static_cast<int64_t>(r.corpusKeys)},
                       {"history_dependent", static_cast<int64_t>(r.historyDependent)},
                       {"unconfirmed", static_cast<int64_t>(r.unconfirmed)},
                       {"classified", static_cast<int64_t>(r.classified)},
                       {"retried", static_cast<int64_t>(r.retried)},
                       {"stopped_at_max_findings", r.stoppedAtMaxFindings},
                       {"interrupted", r.interrupted}};
  if (r.newToKnownList)
    o["new_against_known_list"] = static_cast<int64_t>(*r.newToKnownList);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return writeFileAtomically((fs::path(outDir) / "summary.json").string(), s, error);
}
} // namespace

void requestCampaignStop() { stopRequested = 1; }

void AdapterStarts::add(double seconds) {
  if (seconds < 0)
    return; // no start measured
  ++count;
  maxSeconds = std::max(maxSeconds, seconds);
  totalSeconds += seconds;
}

namespace {
/// A hang or an out-of-memory end may be the machine's (a busy machine, an
/// adapter slow to import its compiler, memory other processes took): such
/// a case is filed only once it fails so again alone, with
/// kConfirmAloneFactor times every limit.
bool confirmsAlone(VerdictKind v) { return v == VerdictKind::Hang || v == VerdictKind::Oom; }

/// `limit` bytes with `factor` times more room, but never past three
/// quarters of this machine's memory, whose end would take other processes
/// with it; 0 stays "no limit".
uint64_t withMoreRoom(uint64_t limit, double factor) {
  if (!limit)
    return 0;
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  const double machine = pages > 0 && pageSize > 0
                             ? 0.75 * static_cast<double>(pages) * static_cast<double>(pageSize)
                             : 0;
  double room = factor * static_cast<double>(limit);
  if (machine > 0)
    room = std::min(room, machine);
  return std::max<uint64_t>(limit, static_cast<uint64_t>(room));
}
} // namespace

uint64_t seedIndexLimit(const CampaignOptions &o) {
  if (o.seedStart > kMaxCampaignSeed || o.shardIndex > kMaxCampaignSeed - o.seedStart)
    return 0;
  return (kMaxCampaignSeed - o.seedStart - o.shardIndex) / o.shardCount + 1;
}

CampaignResult runCampaign(const CampaignOptions &options, MlirJit &jit) {
  CampaignResult result;
  std::error_code ec;
  fs::create_directories(options.outDir, ec);
  if (ec) {
    result.error = "cannot create " + options.outDir + ": " + ec.message();
    return result;
  }
  // One writer: a second campaign into this directory stops here.
  DirectoryLock lock;
  if (!lock.acquire(options.outDir, "fuzz", result.error))
    return result;
  fs::create_directories(fs::path(options.outDir) / "findings", ec);
  if (ec) {
    result.error = "cannot create " + options.outDir + "/findings: " + ec.message();
    return result;
  }
  const std::string statePath = (fs::path(options.outDir) / "state.json").string();
  State state;
  state.seedStart = options.seedStart;
  state.shardIndex = options.shardIndex;
  state.shardCount = options.shardCount;
  if (!state.load(statePath, result.error) || !checkCampaignIdentity(options, result.error))
    return result;
  // The compiler's coverage (driver/CompilerCoverage.h): measured by the
  // workers' adapters, which serve many cases each, and by the pto
  // backend's ptoas runs in workers and batch builds. An adapter that
  // measures pays for it once, as it starts, and triage starts many (a
  // confirmation, a generalisation, a reduction): theirs do not measure.
  CoverageTotals compilerCoverage;
  bool coverageChanged = false;
  if (!compilerCoverage.load(options.outDir, result.error))
    return result;
  ::unsetenv(kCompilerCoverageVariable);
  if (!options.compilerCoverage)
    compilerCoverage.setOff("not asked for (--compiler-coverage off)");
  // Findings a resumed directory already has are their own roots: one
  // written before roots existed is filed under its case signature, and
  // later cases with that signature go to it.
  for (const FindingSummary &f : scanFindings(options.outDir))
    if (parseSignatureText(f.text))
      state.roots.emplace(f.id, f.text);

  stopRequested = 0;
  auto previousHandler = std::signal(SIGINT, onSigint);
  const auto start = Clock::now();
  auto lastReport = start;
  std::vector<Running> running;
  SeedLedger ledger; // what findings/*/seeds.txt and classified.txt list
  uint64_t nextIndex = state.next, launched = 0, failing = 0;
  // --max-cases counts the campaign's cases, this run's and every earlier
  // run's in the directory: a resumed run starts only what is left of it.
  const uint64_t started = state.next + state.ahead.size();
  const uint64_t caseBudget = !options.maxCases            ? std::numeric_limits<uint64_t>::max()
                              : options.maxCases > started ? options.maxCases - started
                                                           : 0;
  bool stopping = false; // --max-findings reached, or an error below
  // A campaign told what is known (--known) stops at the findings it did
  // not know: a planted bug is not cut short by a real one on the list.
  // Only a signature listed by its id alone, or a wrong value by the kernel
  // ops that computed it, is known here: a qualified line (a skeleton, a
  // root pattern) needs the reduced case, which the report has and a
  // running campaign has not.
  auto countsTowardMaxFindings = [&](const std::string &id, const std::string &signatureText) {
    return options.maxFindings &&
           !knownUnreduced(id, signatureText, options.config.knownSignatures);
  };
  /// What the worker said of the cases this run deferred (state.deferred),
  /// for counting how their retry came out.
  struct WorkerSaid {
    VerdictKind verdict;
    bool used;
  };
  std::map<uint64_t, WorkerSaid> deferredHere;
  // Failing cases of a fingerprint already traced to one root are filed
  // under it without a confirming run (driver/RootClassifier.h).
  RootClassifier classifier;
  GeneralizeCost generalizeCost;
  // The ops this run's failures were traced to with an undefined result
  // (RunConfig::culpritOps).
  std::set<std::string> culpritOps;
  // A write that fails, or a case npufuzz could not run, stops the run
  // with the reason (exit 2): the last state written stays good, and the
  // cases not recorded run again on resume.
  auto stopWith = [&](const std::string &error) {
    if (result.error.empty())
      result.error = error;
    stopping = true;
  };
  auto stoppedBy = [&](const CaseReport &report) {
    if (report.environmentError())
      stopWith("cannot run cases: " + report.result.summary);
    return report.environmentError();
  };
  auto saveState = [&](double runSeconds) {
    std::string error;
    if (!writeFileAtomically(statePath, state.json(runSeconds), error))
      stopWith("cannot save the campaign state: " + error);
    if (coverageChanged && !compilerCoverage.save(options.outDir, error))
      stopWith("cannot save the compiler's coverage: " + error);
    coverageChanged = false;
  };
  auto seedOf = [&](uint64_t index) {
    return options.seedStart + options.shardIndex + index * options.shardCount;
  };
  // Index done: `next` moves past every completed index.
  auto markDone = [&](uint64_t index) {
    if (index >= state.next)
      state.ahead.insert(index);
    while (state.ahead.count(state.next))
      state.ahead.erase(state.next++);
  };
  const unsigned jobs = std::max(1u, options.jobs);

  auto progress = [&](bool final) {
    if (!options.progress)
      return;
    const double secs = secondsSince(start);
    std::ostringstream line;
    // This run's counts only, also in the final line after a resume.
    line << "\r[npufuzz] " << result.cases << " cases  " << std::fixed << std::setprecision(1)
         << (secs > 0 ? result.cases / secs : 0.0) << "/s  findings:";
    uint64_t findings = 0;
    for (const auto &[k, n] : result.runVerdicts)
      if (k != "ok" && k != "unsupported") {
        line << " " << k << "=" << n;
        findings += n;
      }
    if (!findings)
      line << " none";
    const uint64_t unsupported =
        result.runVerdicts.count("unsupported") ? result.runVerdicts.at("unsupported") : 0;
    line << "  unsupported " << std::setprecision(1)
         << (result.cases ? 100.0 * unsupported / result.cases : 0.0) << "%  "
         << std::setprecision(0) << secs << " s   ";
    llvm::errs() << line.str() << (final ? "\n" : "");
    llvm::errs().flush();
  };

  // Persistent workers, forked lazily from this initialised process; each
  // builds its case from the seed it is sent.
  // A backend that builds cases in batches (pto) gets a directory for them
  // in the campaign's, removed at the end.
  RunConfig config = options.config;
  const bool guided = options.guidance == Guidance::Feedback;
  const fs::path batchDir = fs::path(options.outDir) / "pto-builds";
  if (config.backend == BackendKind::Pto) {
    // Builds left by a killed run may be of another toolchain: not reused.
    fs::remove_all(batchDir, ec);
    fs::create_directories(batchDir, ec);
    if (!ec)
      config.pto.batchDir = batchDir.string();
  }
  const std::unique_ptr<Backend> backend = makeBackend(config);
  const uint64_t batch = std::max(1u, backend->batchSize());
  // ptoas's profiles wait in the batch directory and are read here, every
  // kPtoasProfilesEvery cases and at the end (backend/pto/PtoasCoverage.h).
  const bool readsPtoasProfiles = options.compilerCoverage && config.backend == BackendKind::Pto &&
                                  !config.pto.batchDir.empty();
  // A read runs in a child while cases go on, so that no worker waits.
  uint64_t casesSinceRead = 0;
  std::unique_ptr<Child> readingPtoas;
  auto readPtoas = [&config] {
    return readPtoasProfiles(config.pto.ptoas, ptoasProfilesDir(config.pto.batchDir),
                             config.pto.timeoutSeconds);
  };
  auto addPtoasRead = [&](const std::string &json) {
    CaseCoverage read;
    std::string why;
    if (json.empty())
      return;
    if (!CaseCoverage::parse(json, read, why))
      read.off = why;
    if (!read.measured() && compilerCoverage.casesMeasured())
      llvm::errs() << "npufuzz: ptoas's coverage of some cases is lost: " << read.off << "\n";
    compilerCoverage.addRead(read, state.totalSeconds + secondsSince(start));
    coverageChanged = true;
  };
  // The child writes what it read to a file, not down its pipe: the
  // parent may be busy for minutes (a generalisation, a retry) before it
  // polls again, and a child blocked on a full pipe would outlive its limit.
  const std::string ptoasReadFile = (batchDir / "ptoas-read.json").string();
  auto readPtoasInChild = [&readPtoas, ptoasReadFile] {
    std::string error;
    return writeFileAtomically(ptoasReadFile, readPtoas(), error) ? std::string() : error;
  };
  auto readingPtoasEnded = [&] {
    if (!readingPtoas || !readingPtoas->poll())
      return false;
    const ChildOutcome &end = readingPtoas->outcome();
    std::string json, error;
    if (end.end != ChildOutcome::End::Returned || !end.payload.empty() ||
        !readFileBytes(ptoasReadFile, json, error))
      json = "{\"off\":\"the child reading ptoas's profiles failed (" +
             (end.payload.empty() ? error : end.payload) + "; " +
             end.stderrText.substr(0, end.stderrText.find('\n')) +
             "); its profiles wait for the next read\"}";
    addPtoasRead(json);
    std::error_code ec;
    fs::remove(ptoasReadFile, ec);
    readingPtoas.reset();
    return true;
  };
  // Guided: the corpus of cases that reached new feedback, kept in the
  // campaign's directory. A backend that builds cases in batches ahead of
  // them (pto) would need each batch's cases before their parents ran.
  GuidedCorpus corpus(options.guidanceEpoch);
  if (guided && batch > 1) {
    std::signal(SIGINT, previousHandler);
    result.error = std::string("--guidance feedback is not available with --backend ") +
                   std::string(backendKindName(config.backend)) +
                   ", which builds its cases in batches ahead of them; give --guidance none";
    return result;
  }
  if (guided && !corpus.open(options.outDir, state.next, state.ahead, result.error)) {
    std::signal(SIGINT, previousHandler);
    return result;
  }
  // The case of each index: generated from its seed or, guided, a share of
  // them mutants of corpus entries far enough behind it.
  auto decide = [&](Running &r) {
    r.seed = seedOf(r.index);
    r.request = std::to_string(r.seed);
    r.loweringSeed = loweringSeedFor(options, r.seed);
    if (!guided) {
      r.c = generateCase(r.seed, options.policy);
      return;
    }
    Prng rng = Prng::stream(r.seed, 0x67756964); // "guid": apart from the case's own draws
    if (rng.chance(options.mutationShare))
      if (const CorpusEntry *parent = corpus.pick(rng)) {
        Mutant m =
            mutate(parent->s, r.seed, options.policy, options.mutation, options.seededLowering);
        r.c = std::move(m.s.c);
        r.choices = std::move(m.s.choices);
        r.loweringSeed = m.s.loweringSeed;
        r.mutant = true;
        r.how = "mutant of " + std::to_string(parent->seed) + " by " + m.how;
        r.request = mutantRequest(r.c, r.loweringSeed);
        ++result.mutants;
        return;
      }
    r.c = generateFromChoices(r.seed, options.policy, {}, r.choices);
  };
  // A case's feedback as its worker saw it. Only a case that ran clean is
  // a parent: a failing one's neighbours would find its bug again.
  auto feedBack = [&](const Running &r, const CaseReport &report) {
    if (!guided)
      return;
    CorpusEntry e;
    e.index = r.index;
    e.seed = r.seed;
    e.s = Seedling{r.c, r.choices, r.loweringSeed};
    e.how = r.how;
    if (report.result.verdict == VerdictKind::Ok)
      e.keys = report.result.feedback;
    corpus.offer(std::move(e));
  };
  // Workers only say whether a case fails: a failure is run again in a
  // fresh child (`confirming`), which blames a pass or op for its
  // signature. (A kernel built in a batch runs as it does built alone, as
  // `npufuzz --seed N` builds it: PtoBackendTest checks that.)
  RunConfig workerConfig = config;
  workerConfig.blame = false;
  // Feedback is the workers' alone: only their reports feed the corpus.
  workerConfig.jit.recordFeedback = guided;
  // Nor do they verify the IR after each trusted element: the confirming
  // child does, and names the element that broke it.
  workerConfig.jit.verifyTrustedElements = false;
  // A task builds its case from the seed it is sent.
  auto taskWith = [&jit, &options](const RunConfig &runConfig,
                                   bool measureCompiler) -> Worker::Handler {
    return [&jit, &options, runConfig, measureCompiler](const std::string &request) {
      if (measureCompiler) // in the worker, before its adapter starts
        ::setenv(kCompilerCoverageVariable, "on", 1);
      Case c;
      RunConfig config = runConfig;
      TaskResult failed;
      if (!caseOfRequest(request, options, c, config.loweringSeed, failed.message)) {
        failed.verdict = VerdictKind::EnvironmentError;
        failed.summary = failed.message;
        return failed.toJson();
      }
      return runCaseTask(c, jit, config).toJson();
    };
  };
  const Worker::Handler handler = taskWith(workerConfig, options.compilerCoverage);
  // Blame's own budget for a failing case that took `caseSeconds`: the
  // case's limits, with kBlameTimeFactor times its time when that is more.
  auto blameBudget = [&options](double caseSeconds) {
    IsolationLimits limits = options.limits;
    limits.wallSeconds = std::max(limits.wallSeconds, kBlameTimeFactor * caseSeconds);
    return limits;
  };
  // Batches of consecutive indices (index / batch), built ahead by isolated
  // children; a case waits for its batch, which may also fail to build.
  std::map<uint64_t, std::unique_ptr<Child>> building;
  std::set<uint64_t> built;
  IsolationLimits batchLimits = options.limits;
  batchLimits.wallSeconds *= static_cast<double>(batch);
  // No case at or past this index runs in this run (--max-cases), nor one
  // whose seed would pass kMaxCampaignSeed (a resumed run too).
  const uint64_t endIndex = std::min(options.maxCases ? std::max(options.maxCases, started)
                                                      : std::numeric_limits<uint64_t>::max(),
                                     seedIndexLimit(options));
  auto startBuilds = [&](uint64_t from) {
    if (from >= endIndex)
      return;
    for (uint64_t b = from / batch; building.size() < jobs && b < from / batch + jobs; ++b) {
      if (built.count(b) || building.count(b))
        continue;
      std::vector<uint64_t> seeds;
      for (uint64_t i = b * batch; i < (b + 1) * batch && i < endIndex; ++i)
        if (!state.ahead.count(i) && i >= state.next)
          seeds.push_back(seedOf(i));
      building[b] = std::make_unique<Child>(
          [&, seeds] {
            // Its ptoas runs are the cases' (backend/pto/PtoasCoverage.h).
            if (options.compilerCoverage)
              ::setenv(kCompilerCoverageVariable, "on", 1);
            std::vector<Case> cases;
            for (const uint64_t seed : seeds)
              cases.push_back(generateCase(seed, options.policy));
            backend->prebuild(cases);
            return std::string();
          },
          batchLimits);
    }
  };
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned k = 0; k < jobs; ++k)
    workers.push_back(std::make_unique<Worker>(handler, options.limits, options.casesPerWorker));
  auto freeWorker = [&]() -> Worker * {
    for (auto &w : workers)
      if (std::none_of(running.begin(), running.end(),
                       [&](const Running &r) { return r.worker == w.get(); }))
        return w.get();
    return nullptr;
  };

  // Counts a finished case with `verdict` and advances the resume watermark
  // past every completed index.
  auto count = [&](const Running &r, const std::string &verdict, const CaseReport &report) {
    ++result.runVerdicts[verdict];
    ++state.verdicts[verdict];
    ++result.cases;
    ++state.totalCases;
    for (const std::string &f : caseFeatures(r.c)) {
      ++result.features[f];
      ++state.features[f];
    }
    // Why the backend could not take it, as its headline says, without
    // the numbers that differ from case to case.
    if (report.result.verdict == VerdictKind::Unsupported) {
      const std::string &said =
          report.result.message.empty() ? report.result.summary : report.result.message;
      ++state.unsupportedReasons[normalizeMessage(said.substr(0, said.find('\n'))).substr(0, 200)];
    }
    // A backend that computes values but could not for this case (a kernel
    // PyTorchSim's model does not run): judged for what it could be.
    if (!report.result.valuesWhyNot.empty())
      ++state.valuesNotComputed[normalizeMessage(report.result.valuesWhyNot).substr(0, 200)];
    // Which DMAs the map oracle judged, and why the others were not.
    if (report.result.dmaMapsJudged)
      state.dmaMaps[kJudgedDmaMaps] += report.result.dmaMapsJudged;
    for (const std::string &why : report.result.dmaMapsUnjudged)
      ++state.dmaMaps[normalizeMessage(why).substr(0, 200)];
    state.irCoverage.add(report.result.entryOps, report.result.passesThatChanged);
    state.deferred.erase(r.index);
    state.deferredRequests.erase(r.index);
    state.deferredAlone.erase(r.index);
    markDone(r.index);
  };
  // Puts a case off to the end of this run (or of a later one, if this
  // run stops first): it is counted then, with what its retry gives.
  auto defer = [&](const Running &r, VerdictKind said, bool used) {
    deferredHere[r.index] = {said, used};
    state.deferred.insert(r.index);
    if (r.mutant)
      state.deferredRequests[r.index] = r.request;
    markDone(r.index);
  };
  // A hang or an out-of-memory end, put off to be confirmed alone.
  auto deferAlone = [&](const Running &r, const CaseReport &report, VerdictKind said, bool used) {
    defer(r, said, used);
    const std::string &summary = report.result.summary;
    state.deferredAlone[r.index] = std::string(verdictName(report.result.verdict)) + " (" +
                                   summary.substr(0, summary.find('\n')).substr(0, 200) + ")";
  };
  // Counts a finished case, writes its finding, and advances the resume
  // watermark past every completed index.
  // `lastTry`: the case's retry at the end, which records whatever it finds.
  auto record = [&](const Running &r, CaseReport report, bool lastTry) {
    // Counted once its finding is kept: a case whose finding cannot be
    // written stops the run uncounted, and runs again on resume.
    const std::string verdict(verdictName(report.result.verdict));
    if (report.result.rootedAtOp && report.result.difference == kUndefinedResult)
      culpritOps.insert(report.result.culpritOp);
    // What a fresh run of a case the worker saw fail traced it to (no
    // finding at all: the fingerprint is not a root's).
    auto learn = [&](const std::string &findingId) {
      classifier.confirmed(r.fingerprint, {findingId, verdict});
    };
    if (!isFinding(report.result.verdict))
      learn("");
    else {
      Finding f;
      f.seed = r.seed;
      f.mutant = r.mutant;
      f.how = r.how;
      f.caseText = printCase(r.c);
      RunConfig caseConfig = options.config;
      caseConfig.loweringSeed = f.loweringSeed = r.loweringSeed;
      // Each variant's blame tries the case's switch first.
      preferBlaming(caseConfig, report.signature.pass);
      // A case signature seen for the first time is generalised to what
      // the failure needs (here, while the workers go on), so that one bug
      // showing in many ops is one finding, reduced once.
      // Its variants get blame's budget (they run the case with blame), and
      // a generalisation a variant could not finish is not kept: the case
      // runs again at the end with more time, and a root is only ever
      // recorded once it was decided, so that one seed is one finding.
      const std::string caseId = report.signature.id();
      if (!state.roots.count(caseId)) {
        IsolationLimits variantLimits = blameBudget(report.seconds);
        variantLimits.wallSeconds *= lastTry ? kRetryTimeFactor : 1;
        GeneralizeCost cost;
        const Signature root =
            generalizeSignature({r.c, options.config.pipeline}, report.signature,
                                isolatedRunner(jit, caseConfig, variantLimits),
                                options.config.style, options.config.stage, &cost);
        generalizeCost.tests += cost.tests;
        generalizeCost.seconds += cost.seconds;
        if (cost.undecided && !lastTry) {
          defer(r, report.result.verdict, false);
          return;
        }
        if (!cost.undecided) {
          state.roots[caseId] = root.text();
          ++result.generalized;
        }
      }
      f.root = state.roots.count(caseId) ? parseSignatureText(state.roots.at(caseId))
                                         : std::optional<Signature>(report.signature);
      // The programs are written with a signature's first case only; for
      // the others (pto: a ptoas run in this loop) the seed is enough.
      std::error_code missing;
      const bool firstOfItsSignature =
          !fs::exists(fs::path(options.outDir) / "findings" / f.signature().id(), missing);
      MlirKernel kernel;
      std::string unsupported;
      f.canonicalLowering = !options.seededLowering;
      f.stage = std::string(passStageName(options.config.stage));
      if (firstOfItsSignature && emitMlir(r.c, emitOptionsOf(caseConfig), kernel, unsupported))
        f.mlir = kernel.text;
      if (firstOfItsSignature)
        f.extraFiles = backend->programs(r.c);
      f.report = report; // a copy for the rare failing case: counted below
      f.pipeline = options.config.pipeline;
      f.style = std::string(mlirStyleName(options.config.style));
      f.policyPath = options.policyPath;
      f.backend = std::string(backendKindName(options.config.backend));
      f.backendFlags = options.backendFlags;
      f.passPlugins = options.passPlugins;
      std::string error;
      if (recordFinding(options.outDir, f, error, &ledger))
        ++result.firstFiled;
      else if (!error.empty()) {
        stopWith(error); // a finding that cannot be kept is not counted done
        return;
      }
      learn(f.signature().id());
      if (countsTowardMaxFindings(f.signature().id(), f.signature().text()) &&
          ++failing >= options.maxFindings)
        stopping = result.stoppedAtMaxFindings = true;
    }
    count(r, verdict, report);
  };
  // A case filed under a known root by its worker's fingerprint: listed in
  // the finding's classified.txt, counted with the verdict the first
  // confirmed case of its fingerprint had.
  auto fileClassified = [&](const Running &r, const CaseReport &report,
                            const Classification &root) {
    const fs::path dir = fs::path(options.outDir) / "findings" / root.findingId;
    std::string error;
    if (!listClassified(dir.string(), r.seed, report.signature.text(), ledger, error)) {
      stopWith(error); // not counted done: it runs again on resume
      return;
    }
    ++result.classified;
    // The root's id, and the case's own signature for its kernel ops.
    if (countsTowardMaxFindings(root.findingId, report.signature.text()) &&
        ++failing >= options.maxFindings)
      stopping = result.stoppedAtMaxFindings = true;
    count(r, root.verdict, report);
  };

  for (;;) {
    const bool mayLaunch = !stopRequested && !stopping && launched < caseBudget &&
                           (options.maxSeconds <= 0 || secondsSince(start) < options.maxSeconds);
    // Batches are built ahead even while every worker is busy.
    if (batch > 1 && mayLaunch)
      startBuilds(nextIndex);
    while (mayLaunch && running.size() < jobs && launched < caseBudget) {
      while (state.ahead.count(nextIndex)) // done before a kill or stop
        ++nextIndex;
      if (batch > 1) {
        startBuilds(nextIndex);
        if (!built.count(nextIndex / batch))
          break; // its batch is being built
      }
      // Guided, a case waits until the epochs its parents come from are
      // taken in (GuidedCorpus.h).
      if (guided) {
        std::string error;
        if (!corpus.advance(nextIndex, error)) {
          stopWith("cannot keep a corpus entry: " + error);
          break;
        }
        if (!corpus.ready(nextIndex))
          break;
      }
      Running r;
      r.index = nextIndex++;
      decide(r);
      r.worker = freeWorker();
      r.worker->start(r.request);
      running.push_back(std::move(r));
      ++launched;
    }
    if (running.empty() && (building.empty() || !mayLaunch))
      break;
    // Cases cut short are not recorded: a resume runs them again.
    if (stopRequested || stopping) {
      for (Running &r : running)
        r.kill();
      building.clear(); // kills them
    }

    std::vector<struct pollfd> fds;
    for (Running &r : running)
      for (int fd : r.fds())
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    for (const auto &[b, child] : building)
      for (int fd : {child->payloadFd(), child->stderrFd()})
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    if (readingPtoas)
      for (int fd : {readingPtoas->payloadFd(), readingPtoas->stderrFd()})
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 50);
    readingPtoasEnded();
    for (auto it = building.begin(); it != building.end();)
      if (it->second->poll()) {
        built.insert(it->first);
        it = building.erase(it);
      } else {
        ++it;
      }

    for (size_t i = 0; i < running.size();) {
      Running &r = running[i];
      if (!r.poll()) {
        ++i;
        continue;
      }
      // Checked per case: a finding recorded just now may have reached
      // --max-findings, and the cases after it are then cut short.
      const bool cutShort = stopRequested || stopping;
      if (!cutShort && !r.confirm) {
        CaseReport report = reportOf(r.worker->outcome());
        result.adapterStarts.add(report.result.startSeconds);
        feedBack(r, report);
        // The compiler's coverage is the workers' (their adapters measure
        // it), whatever the case's verdict.
        if (!report.result.compilerCoverage.empty()) {
          compilerCoverage.add(report.result.compilerCoverage,
                               state.totalSeconds + secondsSince(start));
          coverageChanged = true;
        }
        if (readsPtoasProfiles && ++casesSinceRead >= kPtoasProfilesEvery && !readingPtoas) {
          casesSinceRead = 0;
          IsolationLimits readLimits;
          readLimits.wallSeconds = 10.0 * config.pto.timeoutSeconds;
          readingPtoas = std::make_unique<Child>(readPtoasInChild, readLimits);
        }
        if (stoppedBy(report)) {
          running.erase(running.begin() + i);
          continue;
        }
        // Never filed on one run, nor classified by it: confirmed alone
        // at the end.
        if (confirmsAlone(report.result.verdict)) {
          deferAlone(r, report, report.result.verdict, r.worker->servedBefore() > 0);
          running.erase(running.begin() + i);
          continue;
        }
        if (isFinding(report.result.verdict)) {
          r.fingerprint = {report.signature.id(), std::string(verdictName(report.result.verdict))};
          if (options.classifyKnownRoots)
            if (const std::optional<Classification> root =
                    classifier.classify(r.fingerprint, r.seed)) {
              fileClassified(r, report, *root);
              running.erase(running.begin() + i);
              continue;
            }
          // Only what a fresh child gives is recorded, so that `npufuzz
          // --seed N` reproduces it: the worker may have run other cases
          // first, or have been killed from outside.
          r.workerVerdict = report.result.verdict;
          r.workerWasUsed = r.worker->servedBefore() > 0;
          // Blame's budget scales with the time the case took.
          RunConfig confirmConfig = config;
          // The ops failures so far were traced to, which op blame cuts
          // at first.
          confirmConfig.culpritOps = culpritOps;
          const IsolationLimits confirmLimits =
              limitsWithBlame(blameBudget(report.seconds), confirmConfig);
          r.confirm = std::make_unique<Child>([task = taskWith(confirmConfig, false),
                                               request = r.request] { return task(request); },
                                              confirmLimits);
          ++i;
          continue;
        }
        record(r, std::move(report), false);
      } else if (!cutShort) {
        CaseReport report = reportOf(r.confirm->outcome());
        // Rare, and run here while the workers go on: a kernel that
        // crashed took the confirming child with it before it could blame.
        RunConfig caseConfig = config;
        caseConfig.loweringSeed = r.loweringSeed;
        blameKernelFault(r.c, jit, caseConfig, options.limits, report);
        if (stoppedBy(report)) {
          running.erase(running.begin() + i);
          continue;
        }
        // A blame or a confirmation that ran out of time (or memory)
        // under load would record another signature than the case has: it
        // runs again at the end, alone and with more time (or on resume,
        // if this run stops first: it is not counted done).
        if (confirmsAlone(report.result.verdict)) {
          deferAlone(r, report, r.workerVerdict, r.workerWasUsed);
          running.erase(running.begin() + i);
          continue;
        }
        if (report.result.blameTimedOut) {
          defer(r, r.workerVerdict, r.workerWasUsed);
          running.erase(running.begin() + i);
          continue;
        }
        if (report.result.verdict != r.workerVerdict)
          ++(r.workerWasUsed ? result.historyDependent : result.unconfirmed);
        record(r, std::move(report), false);
      }
      running.erase(running.begin() + i);
    }
    if (secondsSince(lastReport) >= 1.0) {
      lastReport = Clock::now();
      progress(false);
      saveState(secondsSince(start));
    }
  }
  workers.clear(); // idle processes hold memory the reducer can use
  building.clear();
  // The deferred confirmations, this run's and those an earlier run did not
  // get to, one at a time with eight times the time: on an idle machine and
  // with that margin, a blame that still does not finish is recorded as
  // such ("blame timed out"), never as another finding.
  IsolationLimits retryLimits = options.limits;
  retryLimits.wallSeconds *= kRetryTimeFactor;
  // Hangs and out-of-memory ends, alone with kConfirmAloneFactor times
  // every limit: the case's time, its adapter's start, its memory.
  IsolationLimits aloneLimits = options.limits;
  aloneLimits.wallSeconds *= kConfirmAloneFactor;
  aloneLimits.addressSpaceBytes = withMoreRoom(aloneLimits.addressSpaceBytes, kConfirmAloneFactor);
  RunConfig aloneConfig = withMoreTime(config, kConfirmAloneFactor);
  aloneConfig.external.addressSpaceBytes =
      withMoreRoom(aloneConfig.external.addressSpaceBytes, kConfirmAloneFactor);
  for (const uint64_t index : std::set<uint64_t>(state.deferred)) {
    if (stopRequested || stopping)
      break; // left in the state for the next run's end
    Running r;
    r.index = index;
    r.seed = seedOf(index);
    const auto request = state.deferredRequests.find(index);
    r.mutant = request != state.deferredRequests.end();
    r.request = r.mutant ? request->second : std::to_string(r.seed);
    if (r.mutant)
      r.how = "mutant";
    std::string error;
    if (!caseOfRequest(r.request, options, r.c, r.loweringSeed, error)) {
      stopWith(error);
      break;
    }
    RunConfig caseConfig = config;
    caseConfig.loweringSeed = r.loweringSeed;
    CaseReport report;
    bool machine = false; // an environment event, not a failure the retry did not repeat
    if (const auto alone = state.deferredAlone.find(index); alone != state.deferredAlone.end()) {
      // Without blame first: a case that still hangs would only keep its
      // blame waiting, and a hang or an oom is filed as it is.
      RunConfig roomier = aloneConfig;
      roomier.loweringSeed = r.loweringSeed;
      RunConfig unblamed = roomier;
      unblamed.blame = false;
      report = reportOf(
          runIsolated([&] { return runCaseTask(r.c, jit, unblamed).toJson(); }, aloneLimits));
      if (stoppedBy(report))
        break;
      if (!confirmsAlone(report.result.verdict)) {
        // It ran through alone: what the campaign saw was the machine.
        machine = true;
        ++state.environmentEvents[normalizeMessage(alone->second) + " in the campaign; " +
                                  std::string(verdictName(report.result.verdict)) + " alone with " +
                                  std::to_string(static_cast<int>(kConfirmAloneFactor)) +
                                  "x every limit"];
        // A failure the hang hid is confirmed and blamed as any other.
        if (isFinding(report.result.verdict))
          report = runCaseIsolated(r.c, jit, roomier, aloneLimits);
      }
    } else {
      report = runCaseIsolated(r.c, jit, caseConfig, retryLimits);
    }
    if (stoppedBy(report))
      break;
    if (const auto said = deferredHere.find(index);
        !machine && said != deferredHere.end() && report.result.verdict != said->second.verdict)
      ++(said->second.used ? result.historyDependent : result.unconfirmed);
    ++result.retried;
    record(r, std::move(report), true);
  }
  // The read under way ends (a stop does not kill it: the profiles it took
  // are nowhere else), then what is left is read here.
  while (readingPtoas && !readingPtoasEnded())
    ::poll(nullptr, 0, 50);
  if (readsPtoasProfiles)
    addPtoasRead(readPtoas());
  fs::remove_all(batchDir, ec);
  // Save how far this run got before reducing, which may take long.
  saveState(secondsSince(start));
  // Reduce every signature not yet reduced, unless stopped: each one's
  // first case, into findings/<id>/reduced/. That includes signatures
  // first seen by an earlier run that was killed or interrupted before it
  // could reduce them; an attempt that ended leaves reduce.log, so a
  // signature that does not reduce is not tried again.
  for (const FindingSummary &found : scanFindings(options.outDir)) {
    if (!options.reduce || stopRequested || !result.error.empty())
      break;
    const fs::path dir = fs::path(options.outDir) / "findings" / found.id;
    std::error_code ec;
    if (fs::exists(dir / "reduced", ec) || fs::exists(dir / "reduce.log", ec))
      continue;
    // Known by its id alone, or by the kernel ops that computed it: its
    // triage is done without reducing it.
    if (!options.reduceKnown &&
        knownUnreduced(found.id, found.text, options.config.knownSignatures)) {
      ++result.knownNotReduced;
      continue;
    }
    ReduceCommandOptions r;
    r.casePath = (dir / "case.npf").string();
    r.outDir = (dir / "reduced").string();
    r.pipeline = options.config.pipeline;
    r.style = std::string(mlirStyleName(options.config.style));
    // As the finding was made: its report says (a directory resumed from
    // an older build has no lowering seed, so the canonical lowering).
    r.loweringSeed = found.loweringSeed;
    if (!parsePassStage(found.stage, r.stage))
      r.stage = options.config.stage;
    r.backend = options.config.backend;
    r.external = options.config.external;
    r.pto = options.config.pto;
    r.pytorchsim = options.config.pytorchsim;
    r.backendFlags = options.backendFlags;
    r.knownSignatures = options.config.knownSignatures;
    r.maxSeconds = options.reduceSeconds;
    r.jobs = jobs;
    r.candidateTimeout = options.limits.wallSeconds;
    r.memoryBytes = options.limits.addressSpaceBytes;
    r.progress = false;
    r.jit = &jit;
    r.plugins = options.passPlugins;           // for the MLIR-level reduction's own runs
    r.target = parseSignatureText(found.text); // the root cause, generalised
    std::ostringstream log;
    const int status = runReduceCommand(r, log);
    if (stopRequested)
      break; // interrupted: no log, so a later run tries again
    result.reduced += status == 0;
    std::string error;
    if (!writeFileAtomically((dir / "reduce.log").string(), log.str(), error))
      stopWith("cannot write a reduction's log: " + error);
  }
  std::signal(SIGINT, previousHandler);
  result.interrupted = stopRequested != 0;
  result.seconds = secondsSince(start);
  result.generalizeSeconds = generalizeCost.seconds;
  result.generalizeTests = generalizeCost.tests;
  result.totalSeconds = state.totalSeconds + result.seconds;
  result.totalCases = state.totalCases;
  result.features = state.features;
  result.unsupportedReasons = state.unsupportedReasons;
  result.valuesNotComputed = state.valuesNotComputed;
  result.dmaMaps = state.dmaMaps;
  result.environmentEvents = state.environmentEvents;
  result.irCoverage = state.irCoverage;
  result.compilerCoverage = compilerCoverage.summary();
  result.verdicts = state.verdicts;
  result.corpusCases = corpus.size();
  result.corpusKeys = corpus.keysSeen();
  saveState(result.seconds);
  std::string error;
  result.findings = scanFindings(options.outDir);
  if (!options.config.knownSignatures.empty()) {
    // New as the nightly's report calls it: against the known list.
    std::string reportError;
    KnownList list;
    list.byBackend[std::string(backendKindName(options.config.backend))] =
        options.config.knownSignatures;
    const NightlyReport known = collectReport({options.outDir}, list, reportError);
    if (!reportError.empty())
      stopWith("cannot read the campaign's findings back: " + reportError);
    result.newToKnownList = known.newSignatures();
  }
  if (!writeSummaryJson(options.outDir, result, error))
    stopWith("cannot write the campaign summary: " + error);
  progress(true);
  return result;
}

void printCampaignSummary(const CampaignResult &r, std::ostream &os) {
  os << "cases: " << r.cases << " in " << std::fixed << std::setprecision(1) << r.seconds << " s ("
     << (r.seconds > 0 ? r.cases / r.seconds : 0.0) << " cases/s)";
  if (r.totalCases != r.cases)
    os << ", " << r.totalCases << " in this directory";
  os << (r.interrupted ? "  [interrupted]" : "") << "\nverdicts:";
  for (const auto &[k, n] : r.runVerdicts)
    os << " " << k << "=" << n;
  os << "\nfindings: " << r.findings.size() << " signatures in " << bucketsOf(r.findings).size()
     << " root-cause buckets (";
  if (r.newToKnownList)
    os << *r.newToKnownList << " new against the known list, ";
  os << r.firstFiled << " first filed in this run, " << r.reduced << " reduced";
  if (r.knownNotReduced)
    os << ", " << r.knownNotReduced << " known by id left unreduced";
  os << ")\n";
  os << formatCoverageLine(r.compilerCoverage) << "\n";
  if (r.corpusCases)
    os << "guidance: " << r.mutants << " mutants; corpus of " << r.corpusCases << " cases, "
       << r.corpusKeys << " feedback keys\n";
  if (r.generalized)
    os << "generalised: " << r.generalized << " case signatures (" << r.generalizeTests << " runs, "
       << std::setprecision(1) << r.generalizeSeconds << " s)\n";
  if (r.stoppedAtMaxFindings)
    os << "stopped: --max-findings reached\n";
  if (r.unconfirmed)
    os << "unconfirmed: " << r.unconfirmed
       << " failures did not repeat in a fresh re-run (the re-run's verdict was recorded)\n";
  if (r.classified)
    os << "classified: " << r.classified
       << " failing cases filed under a root their worker's fingerprint was traced to, "
          "unconfirmed (findings/*/classified.txt)\n";
  if (r.historyDependent)
    os << "history-dependent: " << r.historyDependent
       << " failures of a used worker came out differently in a fresh one (the fresh verdict "
          "was recorded)\n";
  if (r.adapterStarts.count)
    os << "adapter starts: " << r.adapterStarts.count << ", " << std::setprecision(1)
       << r.adapterStarts.totalSeconds / r.adapterStarts.count << " s on average, "
       << r.adapterStarts.maxSeconds << " s the slowest (each on top of its case's limit)\n";
  if (!r.environmentEvents.empty()) {
    uint64_t events = 0;
    for (const auto &[why, n] : r.environmentEvents)
      events += n;
    os << "environment events: " << events << " (the machine, not the compiler: never findings)\n";
    for (const auto &[why, n] : r.environmentEvents)
      os << "  " << std::left << std::setw(8) << n << why << "\n";
  }
  if (!r.findings.empty()) {
    os << "  " << std::left << std::setw(34) << "signature" << std::setw(8) << "count"
       << std::setw(12) << "first seed" << "summary\n";
    for (const FindingSummary &f : r.findings)
      os << "  " << std::setw(34) << f.id << std::setw(8) << f.count << std::setw(12) << f.firstSeed
         << f.summary.substr(0, 100) << "\n";
    os << "  " << std::setw(34) << "bucket" << "signatures  key\n";
    for (const BucketSummary &b : bucketsOf(r.findings))
      os << "  " << std::setw(34) << b.id << std::setw(12) << b.signatures.size()
         << (b.key.empty() ? "(not reduced)" : b.key) << "\n";
  }
}

} // namespace npufuzz
