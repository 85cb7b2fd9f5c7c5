//===- driver/CompilerCoverage.cpp - Lines and branches of the compiler ---===//
#include "driver/CompilerCoverage.h"

#include "ir/FileText.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace npufuzz {

namespace fs = std::filesystem;

namespace {

constexpr const char *kTotalsFile = "compiler-coverage.json";
/// Growth points kept: past this, every other one is dropped (the first
/// and the newest stay), so that a long campaign's curve stays a few KB.
constexpr size_t kMaxGrowthPoints = 256;

llvm::json::Array stringsJson(const std::vector<std::string> &v) { return llvm::json::Array(v); }

bool readStrings(const llvm::json::Object &o, const char *key, std::vector<std::string> &out) {
  const llvm::json::Array *a = o.getArray(key);
  if (!a)
    return true;
  for (const llvm::json::Value &v : *a) {
    const auto s = v.getAsString();
    if (!s)
      return false;
    out.push_back(s->str());
  }
  return true;
}

/// {"file": {"lines": [..], "branches": [[a, b], ..]}} into `lines` and
/// `branches`, each file's lists as they are.
template <typename Lines, typename Branches>
bool readFiles(const llvm::json::Object *files, Lines &&addLine, Branches &&addBranch,
               std::string &error) {
  if (!files)
    return true;
  // llvm::json::Object is a hash map: its files are read in sorted order
  // so that nothing downstream sees the table's order.
  std::vector<std::string> names;
  for (const auto &kv : *files)
    names.push_back(kv.first.str());
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    const llvm::json::Object *f = files->getObject(name);
    if (!f) {
      error = "file " + name + " is not an object";
      return false;
    }
    if (const llvm::json::Array *a = f->getArray("lines"))
      for (const llvm::json::Value &v : *a) {
        const auto n = v.getAsInteger();
        if (!n) {
          error = "a line of " + name + " is not an integer";
          return false;
        }
        addLine(name, *n);
      }
    if (const llvm::json::Array *a = f->getArray("branches"))
      for (const llvm::json::Value &v : *a) {
        const llvm::json::Array *arc = v.getAsArray();
        const auto from = arc && arc->size() == 2 ? (*arc)[0].getAsInteger() : std::nullopt;
        const auto to = arc && arc->size() == 2 ? (*arc)[1].getAsInteger() : std::nullopt;
        if (!from || !to) {
          error = "a branch of " + name + " is not a pair of integers";
          return false;
        }
        addBranch(name, *from, *to);
      }
  }
  return true;
}

/// The `growth` points `[cases, seconds, lines, branches]` of `o`.
std::vector<CoveragePoint> readGrowth(const llvm::json::Object &o) {
  std::vector<CoveragePoint> growth;
  if (const llvm::json::Array *g = o.getArray("growth"))
    for (const llvm::json::Value &v : *g)
      if (const llvm::json::Array *p = v.getAsArray(); p && p->size() == 4)
        growth.push_back({static_cast<uint64_t>((*p)[0].getAsInteger().value_or(0)),
                          (*p)[1].getAsNumber().value_or(0),
                          static_cast<uint64_t>((*p)[2].getAsInteger().value_or(0)),
                          static_cast<uint64_t>((*p)[3].getAsInteger().value_or(0))});
  return growth;
}

llvm::json::Object
filesJson(const std::map<std::string, std::vector<int64_t>> &lines,
          const std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> &branches) {
  llvm::json::Object files;
  for (const auto &[name, ls] : lines)
    files[name] = llvm::json::Object{{"lines", llvm::json::Array(ls)}};
  for (const auto &[name, bs] : branches) {
    llvm::json::Array arcs;
    for (const auto &[from, to] : bs)
      arcs.push_back(llvm::json::Array{from, to});
    llvm::json::Value &file = files[name];
    if (!file.getAsObject())
      file = llvm::json::Object{};
    (*file.getAsObject())["branches"] = std::move(arcs);
  }
  return files;
}

} // namespace

uint64_t CaseCoverage::lineCount() const {
  uint64_t n = 0;
  for (const auto &kv : lines)
    n += kv.second.size();
  return n;
}

uint64_t CaseCoverage::branchCount() const {
  uint64_t n = 0;
  for (const auto &kv : branches)
    n += kv.second.size();
  return n;
}

bool CaseCoverage::parse(const std::string &text, CaseCoverage &out, std::string &error) {
  out = CaseCoverage();
  if (text.empty())
    return true;
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "compiler-coverage.json is not JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) {
    error = "compiler-coverage.json is not an object";
    return false;
  }
  return fromJson(*o, out, error);
}

bool CaseCoverage::fromJson(const llvm::json::Object &o, CaseCoverage &out, std::string &error) {
  out = CaseCoverage();
  out.tool = o.getString("tool").value_or("").str();
  out.off = o.getString("off").value_or("").str();
  if (out.tool.empty() && out.off.empty()) {
    error = "compiler coverage names neither its tool nor why it is off";
    return false;
  }
  if (!readStrings(o, "packages", out.packages)) {
    error = "compiler coverage's packages are not strings";
    return false;
  }
  return readFiles(
      o.getObject("files"), [&](const std::string &f, int64_t l) { out.lines[f].push_back(l); },
      [&](const std::string &f, int64_t a, int64_t b) { out.branches[f].push_back({a, b}); },
      error);
}

llvm::json::Object CaseCoverage::toJson() const {
  llvm::json::Object o;
  if (!tool.empty())
    o["tool"] = tool;
  if (!off.empty())
    o["off"] = off;
  o["packages"] = stringsJson(packages);
  o["files"] = filesJson(lines, branches);
  return o;
}

namespace {
/// Inserts each file's lines (or branches) of `from` into `into`; how many
/// were not there.
template <typename Into, typename From> uint64_t insertAll(Into &into, const From &from) {
  uint64_t fresh = 0;
  for (const auto &[file, reached] : from)
    for (const auto &r : reached)
      fresh += into[file].insert(r).second;
  return fresh;
}
} // namespace

uint64_t CoverageTotals::joinCase(const CaseCoverage &c) {
  if (tool_.empty()) {
    tool_ = c.tool;
    packages_ = c.packages;
  }
  const uint64_t before = lineCount_ + branchCount_;
  lineCount_ += insertAll(lines_, c.lines);
  branchCount_ += insertAll(branches_, c.branches);
  return lineCount_ + branchCount_ - before;
}

bool CoverageTotals::measuredElseNoteOff(const CaseCoverage &c) {
  if (!c.measured() && !c.off.empty() && measured_ == 0)
    off_ = c.off;
  return c.measured();
}

uint64_t CoverageTotals::add(const CaseCoverage &c, double seconds) {
  if (!measuredElseNoteOff(c))
    return 0;
  off_.clear();
  const uint64_t fresh = joinCase(c);
  ++measured_;
  noteGrowth(seconds);
  return fresh;
}

uint64_t CoverageTotals::addRead(const CaseCoverage &c, double seconds) {
  if (!measuredElseNoteOff(c))
    return 0;
  const uint64_t fresh = joinCase(c);
  if (fresh)
    noteGrowth(seconds);
  return fresh;
}

void CoverageTotals::joinSets(const CoverageTotals &other) {
  if (!other.measured_) {
    if (!measured_ && off_.empty())
      off_ = other.off_;
    return;
  }
  off_.clear();
  if (tool_.empty()) {
    tool_ = other.tool_;
    packages_ = other.packages_;
  }
  lineCount_ += insertAll(lines_, other.lines_);
  branchCount_ += insertAll(branches_, other.branches_);
}

void CoverageTotals::absorb(const CoverageTotals &other) {
  joinSets(other);
  measured_ += other.measured_;
}

void CoverageTotals::mergeInput(const std::string &key, const CoverageTotals &input) {
  // Cases these totals held before any input was recorded (not a merge's
  // file) stay counted, under a key no directory has.
  if (inputCases_.empty() && measured_)
    inputCases_[""] = measured_;
  joinSets(input);
  inputCases_[key] = input.measured_;
  measured_ = 0;
  for (const auto &kv : inputCases_)
    measured_ += kv.second;
  growth_.clear();
}

void CoverageTotals::noteGrowth(double seconds) {
  // A point per case while the curve is short; then it is thinned.
  growth_.push_back({measured_, seconds, lineCount_, branchCount_});
  if (growth_.size() > kMaxGrowthPoints) {
    std::vector<CoveragePoint> kept;
    for (size_t i = 0; i < growth_.size(); ++i)
      if (i % 2 == 0 || i + 1 == growth_.size())
        kept.push_back(growth_[i]);
    growth_ = std::move(kept);
  }
}

bool CoverageTotals::load(const std::string &campaignDir, std::string &error) {
  *this = CoverageTotals();
  const std::string path = (fs::path(campaignDir) / kTotalsFile).string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    return true;
  std::string text;
  if (!readFileBytes(path, text, error))
    return false;
  auto parsed = llvm::json::parse(text);
  const llvm::json::Object *o = parsed ? parsed->getAsObject() : nullptr;
  if (!o) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    error = path + " is not a JSON object";
    return false;
  }
  tool_ = o->getString("tool").value_or("").str();
  off_ = o->getString("off").value_or("").str();
  measured_ = static_cast<uint64_t>(o->getInteger("cases").value_or(0));
  if (!readStrings(*o, "packages", packages_) ||
      !readFiles(
          o->getObject("files"), [&](const std::string &f, int64_t l) { lines_[f].insert(l); },
          [&](const std::string &f, int64_t a, int64_t b) { branches_[f].insert({a, b}); },
          error)) {
    error = path + ": " + (error.empty() ? "packages are not strings" : error);
    return false;
  }
  for (const auto &kv : lines_)
    lineCount_ += kv.second.size();
  for (const auto &kv : branches_)
    branchCount_ += kv.second.size();
  growth_ = readGrowth(*o);
  if (const llvm::json::Value *inputs = o->get("merged_inputs")) {
    const llvm::json::Object *each = inputs->getAsObject();
    if (!each) {
      error = path + ": merged_inputs is not an object";
      return false;
    }
    for (const auto &[key, cases] : *each) {
      const std::optional<int64_t> n = cases.getAsInteger();
      if (!n || *n < 0) {
        error = path + ": merged_inputs holds a count that is not a case count";
        return false;
      }
      inputCases_[key.str()] = static_cast<uint64_t>(*n);
    }
  }
  return true;
}

namespace {
llvm::json::Array growthJson(const std::vector<CoveragePoint> &growth) {
  llvm::json::Array g;
  for (const CoveragePoint &p : growth)
    g.push_back(llvm::json::Array{p.cases, p.seconds, p.lines, p.branches});
  return g;
}
} // namespace

bool CoverageTotals::save(const std::string &campaignDir, std::string &error) const {
  std::map<std::string, std::vector<int64_t>> lines;
  for (const auto &[f, ls] : lines_)
    lines[f].assign(ls.begin(), ls.end());
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> branches;
  for (const auto &[f, bs] : branches_)
    branches[f].assign(bs.begin(), bs.end());
  llvm::json::Object o{{"tool", tool_},
                       {"off", off_},
                       {"packages", stringsJson(packages_)},
                       {"cases", measured_},
                       {"growth", growthJson(growth_)},
                       {"files", filesJson(lines, branches)}};
  if (!inputCases_.empty()) {
    llvm::json::Object inputs;
    for (const auto &[key, cases] : inputCases_)
      inputs[key] = cases;
    o["merged_inputs"] = std::move(inputs);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(o)) << "\n";
  return writeFileAtomically((fs::path(campaignDir) / kTotalsFile).string(), text, error);
}

CoverageSummary CoverageTotals::summary() const {
  CoverageSummary s;
  s.state = measured_ ? "on" : off_.empty() ? "not-measured" : "off";
  s.tool = tool_;
  s.off = off_;
  s.packages = packages_;
  s.cases = measured_;
  s.lines = lineCount_;
  s.branches = branchCount_;
  s.growth = growth_;
  return s;
}

llvm::json::Object coverageSummaryJson(const CoverageSummary &s) {
  llvm::json::Object o{{"state", s.state},
                       {"tool", s.tool},
                       {"packages", stringsJson(s.packages)},
                       {"cases", s.cases},
                       {"lines", s.lines},
                       {"branches", s.branches},
                       {"growth", growthJson(s.growth)}};
  if (!s.off.empty())
    o["why_off"] = s.off;
  return o;
}

CoverageSummary coverageSummaryFromJson(const llvm::json::Object *o) {
  CoverageSummary s;
  if (!o)
    return s;
  s.state = o->getString("state").value_or("not-measured").str();
  s.tool = o->getString("tool").value_or("").str();
  s.off = o->getString("why_off").value_or("").str();
  readStrings(*o, "packages", s.packages);
  s.cases = static_cast<uint64_t>(o->getInteger("cases").value_or(0));
  s.lines = static_cast<uint64_t>(o->getInteger("lines").value_or(0));
  s.branches = static_cast<uint64_t>(o->getInteger("branches").value_or(0));
  s.growth = readGrowth(*o);
  return s;
}

std::string formatCoverageLine(const CoverageSummary &s) {
  if (s.state == "off")
    return "compiler coverage: off (" + s.off + ")";
  if (s.state != "on")
    return "compiler coverage: not measured";
  std::string packages;
  for (const std::string &p : s.packages)
    packages += (packages.empty() ? "" : ", ") + p;
  return "compiler coverage (" + packages + ", " + s.tool + "): " + std::to_string(s.lines) +
         " lines, " + std::to_string(s.branches) + " branches over " + std::to_string(s.cases) +
         " cases";
}

std::string coveragePlotSvg(const CoverageSummary &s, bool overSeconds) {
  constexpr double kWidth = 480, kHeight = 240, kLeft = 60, kBottom = 30, kTop = 10, kRight = 10;
  double maxX = 0, maxY = 1;
  for (const CoveragePoint &p : s.growth) {
    maxX = std::max(maxX, overSeconds ? p.seconds : static_cast<double>(p.cases));
    maxY = std::max(maxY, static_cast<double>(std::max(p.lines, p.branches)));
  }
  maxX = std::max(maxX, 1.0);
  auto x = [&](const CoveragePoint &p) {
    return kLeft + (kWidth - kLeft - kRight) * (overSeconds ? p.seconds : p.cases) / maxX;
  };
  auto y = [&](double v) { return kHeight - kBottom - (kHeight - kBottom - kTop) * v / maxY; };
  auto polyline = [&](bool branches, const char *colour) {
    std::string points;
    char buffer[64];
    for (const CoveragePoint &p : s.growth) {
      std::snprintf(buffer, sizeof buffer, "%.1f,%.1f ", x(p),
                    y(static_cast<double>(branches ? p.branches : p.lines)));
      points += buffer;
    }
    return "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" points=\"" + points +
           "\"/>";
  };
  char axis[512];
  std::snprintf(axis, sizeof axis,
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>"
                "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%.0f</text>"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.0f %s</text>"
                "<text x=\"2\" y=\"%.0f\" font-size=\"11\">0</text>",
                kLeft, kHeight - kBottom, kWidth - kRight, kHeight - kBottom, kLeft, kTop, kLeft,
                kHeight - kBottom, 2.0, kTop + 10, maxY, kWidth - kRight, kHeight - 8, maxX,
                overSeconds ? "s" : "cases", kHeight - kBottom);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(kWidth)) +
         "\" height=\"" + std::to_string(int(kHeight)) + "\">" + axis + polyline(false, "#1f77b4") +
         polyline(true, "#d62728") +
         "<text x=\"70\" y=\"24\" font-size=\"11\" fill=\"#1f77b4\">lines</text>"
         "<text x=\"110\" y=\"24\" font-size=\"11\" fill=\"#d62728\">branches</text></svg>";
}

} // namespace npufuzz
