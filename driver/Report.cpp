//===- driver/Report.cpp - Nightly reports from campaign directories ------===//
#include "driver/Report.h"

#include "backend/BackendKind.h"
#include "backend/CompilerSwitches.h"
#include "driver/CampaignCounts.h"
#include "driver/Findings.h"
#include "driver/JsonFile.h"
#include "ir/FileText.h"
#include "oracles/Bucket.h"
#include "oracles/Signature.h"
#include "oracles/SkeletonPattern.h"
#include "oracles/StoredBy.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace npufuzz {

size_t NightlyReport::newSignatures() const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                           [](const ReportFinding &f) { return f.isNew(); }));
}

size_t NightlyReport::newMinor() const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const ReportFinding &f) { return !f.known && !f.freedom && f.minor; }));
}

bool isSignedZeroOnly(const std::string &signatureText) {
  const std::optional<Signature> s = parseSignatureText(signatureText);
  return s && s->kind == VerdictKind::Mismatch && s->message == "signed-zero";
}

bool blamesCompilerFreedom(const std::string &signatureText) {
  const std::optional<Signature> s = parseSignatureText(signatureText);
  const size_t colon = s ? s->pass.find(':') : std::string::npos;
  BackendKind backend;
  if (colon == std::string::npos || !parseBackendKind(s->pass.substr(0, colon), backend))
    return false;
  const std::optional<CompilerSwitch> sw = parseSwitch(backend, s->pass.substr(colon + 1));
  return sw && isCompilerFreedom(*sw);
}

bool isSignatureId(const std::string &text) {
  const size_t dash = text.rfind('-');
  if (dash == std::string::npos || dash == 0 || text.size() - dash - 1 != 16)
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const bool ok = i > dash
                        ? std::isdigit(static_cast<unsigned char>(ch)) || (ch >= 'a' && ch <= 'f')
                        : (ch >= 'a' && ch <= 'z') || ch == '-';
    if (!ok)
      return false;
  }
  // The part before the hash names a verdict (Verdict.def): a typo there
  // would name a root cause nothing can ever match.
  return parseVerdictName(text.substr(0, dash)).has_value();
}

namespace {
/// How a `contains` line is kept in a known set: "<id> contains <pattern>".
constexpr const char *kContains = " contains ";
/// What a `VERDICT PASS contains PATTERN` line is kept as, before its words.
constexpr const char *kRootPrefix = "root ";
} // namespace

const std::set<std::string> &KnownList::of(const std::string &backend) const {
  static const std::set<std::string> none;
  const auto it = byBackend.find(backend);
  return it == byBackend.end() ? none : it->second;
}

bool readKnownList(const std::string &path, KnownList &list, std::string &error) {
  std::string text;
  if (!readFileBytes(path, text, error, 16u << 20))
    return false;
  std::istringstream in(text);
  int lineNo = 0;
  // The backends of the section a line is in; none before the first.
  std::vector<std::string> backends;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    line = line.substr(0, line.find('#'));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.empty())
      continue;
    const std::string where = path + ":" + std::to_string(lineNo) + ": ";
    if (line.front() == '[') {
      backends.clear();
      std::istringstream names(line.substr(1, line.size() - 1 - (line.back() == ']')));
      for (std::string name; names >> name;) {
        BackendKind kind;
        if (!parseBackendKind(name, kind)) {
          error = where + "'" + name + "' is not a backend (" + backendNames() + ")";
          return false;
        }
        backends.push_back(name);
      }
      if (line.back() != ']' || backends.empty()) {
        error = where + "'" + line.substr(0, 80) +
                "' is not a section: '[', the backends its lines hold for, ']'";
        return false;
      }
      continue;
    }
    if (backends.empty()) {
      error = where + "'" + line.substr(0, 80) +
              "' holds for no backend: put it under a section line naming the backends it "
              "holds for, e.g. [iree] or [mlir-jit mlir-tools]";
      return false;
    }
    std::istringstream words(line);
    std::string first, second, more;
    words >> first >> second >> more;
    // `SIGNATURE contains PATTERN`: the rest of the line is a skeleton.
    const size_t patternAt = line.find(kContains);
    const std::string pattern =
        patternAt == std::string::npos ? "" : line.substr(patternAt + std::strlen(kContains));
    const bool contains = second == "contains";
    // `VERDICT computed-by OP, OP`: the kernel ops the root computes with.
    const bool computedBy = parseVerdictName(first).has_value() && second == kComputedByWord;
    std::string ops;
    if (computedBy) {
      ops = line.substr(line.find(kComputedByWord) + std::strlen(kComputedByWord));
      ops.erase(0, ops.find_first_not_of(" \t"));
    }
    // `VERDICT PASS contains PATTERN`: a root of a pass under any op.
    const bool root = parseVerdictName(first).has_value() && !second.empty() && more == "contains";
    const bool valid =
        computedBy ? !more.empty() && !opsOfLine(ops).empty()
        : root     ? isSkeletonText(pattern)
        : contains
            ? isSignatureId(first) && isSkeletonText(pattern)
            : more.empty() && (second.empty() ? isSignatureId(first) || isBucketId(first)
                                              : isSignatureId(first) && isSkeletonId(second));
    if (!valid) {
      error = where + "'" + line.substr(0, 80) +
              "' is not a signature id (a verdict, '-', 16 hex digits), a signature id and "
              "its skeleton id (skeleton-, 16 hex digits), a signature id, 'contains' and an "
              "IR skeleton (ops, their regions in braces), a verdict, a pass, 'contains' and "
              "an IR skeleton, a verdict, 'computed-by' and kernel ops (`mismatch computed-by "
              "arith.extsi i1>i8`), or a bucket id (bucket-, 16 hex digits); '#' starts a "
              "comment";
      return false;
    }
    const std::string entry = computedBy ? std::string(kComputedByWord) + " " + first + " " + ops
                              : root     ? kRootPrefix + first + " " + second + kContains + pattern
                              : contains ? first + kContains + pattern
                              : second.empty() ? first
                                               : first + " " + second;
    for (const std::string &backend : backends)
      list.byBackend[backend].insert(entry);
  }
  return true;
}

bool readKnownSignatures(const std::string &path, const std::string &backend,
                         std::set<std::string> &known, std::string &error) {
  KnownList list;
  if (!readKnownList(path, list, error))
    return false;
  const std::set<std::string> &mine = list.of(backend);
  known.insert(mine.begin(), mine.end());
  return true;
}

namespace {
/// A finding's file, read with a size cap (empty when it cannot be read: a
/// symlink to /dev/zero is not read forever).
std::string readText(const fs::path &path) {
  std::string text, error;
  return readFileBytes(path.string(), text, error, 64u << 20) ? text : std::string();
}

std::string escapeHtml(const std::string &s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += ch;
    }
  }
  return out;
}

std::string jsonText(llvm::json::Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", v) << "\n";
  return s;
}
} // namespace

namespace {
/// Whether a signature says too little to tell two bugs of its pass apart:
/// a wrong value named by an op family, or a crash in the kernel or by a
/// signal with no assertion or stack to name it.
bool isCoarse(const std::string &signatureText) {
  const std::optional<Signature> s = parseSignatureText(signatureText);
  if (!s || s->pass.empty())
    return false;
  switch (s->kind) {
  case VerdictKind::Mismatch:
  case VerdictKind::UninitializedRead:
  case VerdictKind::Nondeterministic: return true;
  case VerdictKind::Crash:
    return s->where == "kernel" || s->where == "memory error" || s->where.rfind("signal ", 0) == 0;
  case VerdictKind::Ok:
  case VerdictKind::VerifierError:
  case VerdictKind::PassFailure:
  case VerdictKind::CompileError:
  case VerdictKind::Hang:
  case VerdictKind::Oom:
  case VerdictKind::Unsupported:
  case VerdictKind::ReferenceError:
  case VerdictKind::SimulatorFault:
  case VerdictKind::ContractGap:
  case VerdictKind::EnvironmentError:
  case VerdictKind::OutOfBoundsWrite:
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfRegionWrite:
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
  case VerdictKind::LostWrite: return false;
  }
  return false;
}
} // namespace

bool isKnownFinding(const ReportFinding &f, const std::set<std::string> &known) {
  if (known.count(f.bucket))
    return true;
  // Its reduced case with every value returned names a known root of the
  // same pass: the op the signature names only showed it.
  if (!f.exposedSignature.empty()) {
    ReportFinding exposed = f;
    exposed.exposedSignature.clear();
    exposed.signature = f.exposedSignature;
    exposed.id = f.exposedId;
    exposed.bucket.clear();
    if (isKnownFinding(exposed, known))
      return true;
  }
  // A pattern of the IR the known bug needs, which the finding's reduced
  // skeleton (the bucket key's last part) includes.
  const std::string skeletonText =
      f.skeleton.empty() ? "" : f.bucketKey.substr(f.bucketKey.rfind(" | ") + 3);
  const std::string patterns = f.id + kContains;
  for (auto it = known.lower_bound(patterns);
       !skeletonText.empty() && it != known.end() && it->rfind(patterns, 0) == 0; ++it)
    if (skeletonIncludes(skeletonText, it->substr(patterns.size())))
      return true;
  // A root of a pass, whatever op it showed under: the finding's verdict
  // and pass, and the IR the root needs in its reduced skeleton.
  const std::optional<Signature> s = parseSignatureText(f.signature);
  for (auto it = known.lower_bound(kRootPrefix);
       s && !skeletonText.empty() && it != known.end() && it->rfind(kRootPrefix, 0) == 0; ++it) {
    const std::string root = it->substr(std::strlen(kRootPrefix));
    const size_t space = root.find(' '), at = root.find(kContains);
    if (root.substr(0, space) == verdictName(s->kind) && !s->pass.empty() &&
        namesPass(root.substr(space + 1, at - space - 1), s->pass) &&
        skeletonIncludes(skeletonText, root.substr(at + std::strlen(kContains))))
      return true;
  }
  if (knownByComputation(f.signature, known))
    return true;
  if (!f.skeleton.empty() && isCoarse(f.signature))
    return known.count(f.id + " " + f.skeleton) != 0;
  return known.count(f.id) != 0 || (!f.skeleton.empty() && known.count(f.id + " " + f.skeleton));
}

NightlyReport collectReport(const std::vector<std::string> &dirs, const KnownList &known,
                            std::string &error) {
  NightlyReport r;
  // By backend and id: one id of two backends is two findings.
  std::map<std::pair<std::string, std::string>, ReportFinding> byId;
  std::set<std::string> seen; // one campaign named twice counts once
  for (const std::string &dir : dirs) {
    if (!checkCampaignDir(dir, error))
      return r;
    std::error_code canonicalError;
    const fs::path canonical = fs::weakly_canonical(fs::path(dir), canonicalError);
    if (!seen.insert(canonicalError ? dir : canonical.string()).second)
      continue;
    ReportCampaign c;
    // `D/` is D: the name is the last component that is one.
    fs::path named = fs::path(dir).lexically_normal();
    if (named.filename().empty())
      named = named.parent_path();
    c.name = named.filename().string();
    if (c.name.empty() || c.name == "." || c.name == "..")
      c.name = canonical.filename().string();
    CampaignCounts counts;
    if (!readCampaignCounts(dir, counts, error))
      return r;
    c.cases = counts.cases;
    c.seconds = counts.seconds;
    c.verdicts = counts.verdicts;
    // A campaign from before the compiler's coverage, or with no summary
    // yet (still running), has none.
    if (const std::optional<llvm::json::Value> summary =
            readJsonFile((fs::path(dir) / "summary.json").string()))
      if (const llvm::json::Object *o = summary->getAsObject())
        c.compilerCoverage = coverageSummaryFromJson(o->getObject("compiler_coverage"));
    for (const auto &[k, n] : counts.features)
      r.features[k] += n;
    r.irCoverage.add(counts.irCoverage);
    r.cases += c.cases;
    r.seconds += c.seconds;
    r.campaigns.push_back(c);
    const fs::path findings = fs::path(dir) / "findings";
    std::error_code ec;
    if (!fs::is_directory(findings, ec))
      continue;
    std::vector<fs::path> entries;
    for (const auto &e : fs::directory_iterator(findings))
      if (e.is_directory() && e.path().filename().string()[0] != '.')
        entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const fs::path &p : entries) {
      ReportFinding f;
      f.id = p.filename().string();
      f.campaign = c.name;
      f.count = findingCount(p.string());
      f.caseText = readText(p / "case.npf");
      FindingReport rep;
      if (!readFindingReport(p.string(), rep, error))
        return r;
      f.signature = rep.signature;
      f.summary = rep.summary;
      f.repro = rep.repro;
      f.firstSeed = rep.firstSeed;
      f.backend = rep.backend;
      ReducedFacts reduced;
      readFindingBucket(p.string(), f.bucket, f.bucketKey, &reduced);
      f.skeleton = reduced.skeleton;
      f.exposedSignature = reduced.exposedSignature;
      f.exposedId = reduced.exposedId;
      f.known = isKnownFinding(f, known.of(f.backend));
      f.freedom = blamesCompilerFreedom(f.signature);
      f.minor = isSignedZeroOnly(f.signature);
      const std::pair<std::string, std::string> key(f.backend, f.id);
      auto it = byId.find(key);
      if (it == byId.end()) {
        byId.emplace(key, std::move(f));
      } else {
        // Another campaign's copy may be reduced where the first is not.
        it->second.count += f.count;
        if (it->second.bucketKey.empty() && !f.bucketKey.empty()) {
          it->second.bucket = f.bucket;
          it->second.bucketKey = f.bucketKey;
          it->second.skeleton = f.skeleton;
        }
        // Known only when every copy is: a reduced copy whose skeleton is
        // not listed may be a new bug under a known signature.
        it->second.known = it->second.known && f.known;
      }
    }
  }
  for (auto &[key, f] : byId)
    r.findings.push_back(std::move(f));
  // New first, then by id and backend: a total order.
  std::sort(r.findings.begin(), r.findings.end(),
            [](const ReportFinding &a, const ReportFinding &b) {
              return a.isNew() != b.isNew() ? a.isNew()
                     : a.id != b.id         ? a.id < b.id
                                            : a.backend < b.backend;
            });
  return r;
}

bool writeReport(const NightlyReport &r, const std::string &outDir, std::string &error) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) {
    error = "cannot create " + outDir + ": " + ec.message();
    return false;
  }
  // report.json
  llvm::json::Array campaigns, findings;
  for (const ReportCampaign &c : r.campaigns) {
    campaigns.push_back(llvm::json::Object{{"name", c.name},
                                           {"cases", static_cast<int64_t>(c.cases)},
                                           {"seconds", c.seconds},
                                           {"verdicts", countsJson(c.verdicts)}});
  }
  for (const ReportFinding &f : r.findings)
    findings.push_back(llvm::json::Object{{"id", f.id},
                                          {"signature", f.signature},
                                          {"count", static_cast<int64_t>(f.count)},
                                          {"first_seed", static_cast<int64_t>(f.firstSeed)},
                                          {"campaign", f.campaign},
                                          {"backend", f.backend},
                                          {"new", f.isNew()},
                                          {"freedom", f.freedom},
                                          {"minor", f.minor},
                                          {"bucket", f.bucket},
                                          {"bucket_key", f.bucketKey},
                                          {"skeleton", f.skeleton},
                                          {"repro", f.repro}});
  // Root-cause buckets: the signatures whose reduced repros agree.
  std::map<std::string, std::vector<const ReportFinding *>> byBucket;
  for (const ReportFinding &f : r.findings)
    byBucket[f.bucket].push_back(&f);
  llvm::json::Array buckets;
  for (const auto &[id, members] : byBucket) {
    llvm::json::Array sigs;
    for (const ReportFinding *f : members)
      sigs.push_back(f->id);
    buckets.push_back(llvm::json::Object{
        {"id", id}, {"key", members.front()->bucketKey}, {"signatures", std::move(sigs)}});
  }
  bool ok = writeFileAtomic(
      (fs::path(outDir) / "report.json").string(),
      jsonText(llvm::json::Object{{"cases", static_cast<int64_t>(r.cases)},
                                  {"seconds", r.seconds},
                                  {"new_signatures", static_cast<int64_t>(r.newSignatures())},
                                  {"new_minor", static_cast<int64_t>(r.newMinor())},
                                  {"campaigns", std::move(campaigns)},
                                  {"findings", std::move(findings)},
                                  {"buckets", std::move(buckets)},
                                  {"features", countsJson(r.features)},
                                  {"ir_coverage", r.irCoverage.toJson()}}));

  // junit.xml: a test per campaign (it ran) and per signature (fails if new).
  std::ostringstream x;
  const size_t tests = r.campaigns.size() + r.findings.size();
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"npufuzz\" tests=\"" << tests
    << "\" failures=\"" << r.newSignatures() << "\">\n  <testsuite name=\"nightly\" tests=\""
    << tests << "\" failures=\"" << r.newSignatures() << "\" time=\"" << r.seconds << "\">\n";
  for (const ReportCampaign &c : r.campaigns)
    x << "    <testcase classname=\"campaign\" name=\"" << escapeHtml(c.name) << "\" time=\""
      << c.seconds << "\"/>\n";
  for (const ReportFinding &f : r.findings) {
    x << "    <testcase classname=\"" << escapeHtml(f.campaign) << "\" name=\"" << f.id << "\"";
    if (f.known || f.freedom || f.minor) {
      x << "><skipped message=\""
        << (f.known     ? "known signature"
            : f.freedom ? "a freedom the compiler documents"
                        : "minor: only the sign of a zero")
        << "\"/></testcase>\n";
      continue;
    }
    x << "><failure message=\"new signature\">" << escapeHtml(f.signature) << "\n"
      << escapeHtml(f.repro) << "</failure></testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  ok &= writeFileAtomic((fs::path(outDir) / "junit.xml").string(), x.str());

  // index.html
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npufuzz nightly</title>\n"
       "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
       "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
       "text-align:left;vertical-align:top}th{background:#f0f0f0}.new{color:#b00;font-weight:"
       "bold}.known{color:#666}pre{background:#f7f7f7;padding:8px;overflow-x:auto;"
       "font-size:12px}</style></head><body>\n";
  h << "<h1>npufuzz nightly</h1>\n<p>" << r.cases << " cases in "
    << llvm::formatv("{0:f1}", r.seconds).str() << " s across " << r.campaigns.size()
    << " campaigns; <span class=\"" << (r.newSignatures() ? "new" : "known") << "\">"
    << r.newSignatures() << " new signatures</span>, " << r.findings.size() << " in all, in "
    << byBucket.size() << " root-cause buckets.</p>\n";
  h << "<h2>Throughput</h2>\n<table id=\"throughput\"><tr><th>campaign</th><th>cases</th>"
       "<th>seconds</th><th>cases/s</th><th>verdicts</th></tr>\n";
  for (const ReportCampaign &c : r.campaigns) {
    std::string v;
    for (const auto &[k, n] : c.verdicts)
      v += k + "=" + std::to_string(n) + " ";
    h << "<tr><td>" << escapeHtml(c.name) << "</td><td>" << c.cases << "</td><td>"
      << llvm::formatv("{0:f1}", c.seconds).str() << "</td><td>"
      << llvm::formatv("{0:f1}", c.seconds > 0 ? c.cases / c.seconds : 0.0).str() << "</td><td>"
      << escapeHtml(v) << "</td></tr>\n";
  }
  h << "</table>\n<h2>Findings by signature</h2>\n<table id=\"findings\"><tr><th>status</th>"
       "<th>signature</th><th>count</th><th>first seed</th><th>campaign</th><th>summary"
       "</th></tr>\n";
  for (const ReportFinding &f : r.findings) {
    h << "<tr><td class=\""
      << (f.known     ? "known\">known"
          : f.freedom ? "known\">freedom"
          : f.minor   ? "known\">minor"
                      : "new\">NEW")
      << "</td><td><code>" << f.id << "</code></td><td>" << f.count << "</td><td>" << f.firstSeed
      << "</td><td>" << escapeHtml(f.campaign) << "</td><td>"
      << escapeHtml(f.summary.substr(0, 160)) << "<details><summary>repro</summary><pre>"
      << escapeHtml(f.repro) << "</pre><pre>" << escapeHtml(f.caseText)
      << "</pre></details></td></tr>\n";
  }
  h << "</table>\n<h2>Root-cause buckets</h2>\n<p>Signatures whose reduced repros agree "
       "on verdict, blamed pass, op pattern and dtype classes; a signature not reduced is a "
       "bucket of its own.</p>\n<table id=\"buckets\"><tr><th>bucket</th><th>key</th>"
       "<th>signatures</th></tr>\n";
  for (const auto &[id, members] : byBucket) {
    h << "<tr><td><code>" << escapeHtml(id) << "</code></td><td>"
      << escapeHtml(members.front()->bucketKey.empty() ? "(not reduced)"
                                                       : members.front()->bucketKey)
      << "</td><td>";
    for (const ReportFinding *f : members)
      h << "<code>" << f->id << "</code> ";
    h << "</td></tr>\n";
  }
  h << "</table>\n<h2>Feature coverage</h2>\n";
  // A horizontal bar per feature tag: the share of cases that have it.
  const int barHeight = 14, width = 700, labelWidth = 220;
  h << "<svg id=\"coverage\" xmlns=\"http://www.w3.org/2000/svg\" width=\""
    << labelWidth + width + 80 << "\" height=\"" << (r.features.size() + 1) * (barHeight + 4)
    << "\" font-size=\"11\">\n";
  int y = 0;
  for (const auto &[tag, n] : r.features) {
    const double share = r.cases ? static_cast<double>(n) / r.cases : 0;
    h << "<text x=\"0\" y=\"" << y + barHeight - 3 << "\">" << escapeHtml(tag)
      << "</text><rect x=\"" << labelWidth << "\" y=\"" << y << "\" width=\""
      << static_cast<int>(share * width) << "\" height=\"" << barHeight
      << "\" fill=\"#4a7fb5\"/><text x=\"" << labelWidth + static_cast<int>(share * width) + 4
      << "\" y=\"" << y + barHeight - 3 << "\">" << n << "</text>\n";
    y += barHeight + 4;
  }
  h << "</svg>\n";
  // The IR the user's passes were given: each op (with its element type)
  // and each pass that changed the IR, with its share of the cases.
  h << "<h2>IR coverage</h2>\n<p>" << r.irCoverage.cases
    << " cases reached the user passes' entry (<code>npufuzz stats</code>).</p>\n";
  auto shares = [&](const char *id, const char *what,
                    const std::map<std::string, uint64_t> &counts) {
    h << "<table id=\"" << id << "\"><tr><th>" << what
      << "</th><th>cases</th><th>share</th></tr>\n";
    for (const auto &[key, n] : counts)
      h << "<tr><td><code>" << escapeHtml(key) << "</code></td><td>" << n << "</td><td>"
        << (r.irCoverage.cases ? 100 * n / r.irCoverage.cases : 0) << " %</td></tr>\n";
    h << "</table>\n";
  };
  shares("ir-ops", "op at the entry", r.irCoverage.ops);
  shares("ir-changed-by", "user pass that changed the IR", r.irCoverage.changedBy);
  // The compiler's own lines and branches, each campaign's growth over
  // its cases and its seconds (docs/compiler-coverage.md).
  h << "<h2>Compiler coverage</h2>\n";
  for (const ReportCampaign &c : r.campaigns) {
    h << "<h3>" << escapeHtml(c.name) << "</h3>\n<p>"
      << escapeHtml(formatCoverageLine(c.compilerCoverage)) << "</p>\n";
    if (c.compilerCoverage.state == "on" && !c.compilerCoverage.growth.empty())
      h << "<div class=\"compiler-coverage\">" << coveragePlotSvg(c.compilerCoverage, false)
        << coveragePlotSvg(c.compilerCoverage, true) << "</div>\n";
  }
  h << "</body></html>\n";
  ok &= writeFileAtomic((fs::path(outDir) / "index.html").string(), h.str());
  if (!ok)
    error = "cannot write the report into " + outDir;
  return ok;
}

} // namespace npufuzz
