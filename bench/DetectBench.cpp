//===- bench/DetectBench.cpp - Detection power on planted seed bugs -------===//
//
// bench_detect: for each fault of the planted-bug plugin (bench/bugs), runs
// K independent `npufuzz fuzz` campaigns (different --seed-start) with the
// fault's pass in the pipeline of the style it targets, stops each at its
// first finding, and reports whether and how fast the fault was found. The
// unmodified pipelines of those styles run for the full budget: zero
// findings there is part of the result. When `npufuzz reduce` exists, the
// first finding of each fault is reduced and the repro's size reported.
// Results go to a JSON file for nightly charts.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace llvm;

namespace {

cl::opt<unsigned> runs("runs", cl::desc("Campaigns per fault"), cl::init(5));
cl::opt<double> budget("seconds", cl::desc("Time budget per campaign"), cl::init(60));
cl::opt<double> baselineBudget("baseline-seconds",
                               cl::desc("Budget per unmodified campaign (default: --seconds)"),
                               cl::init(0));
cl::opt<unsigned> jobs("jobs", cl::desc("Workers per campaign"), cl::init(2));
cl::opt<uint64_t> seedBase("seed-base", cl::desc("--seed-start of the first run"),
                           cl::init(1000000));
cl::opt<std::string> only("only", cl::desc("Run only faults whose name contains this"));
cl::opt<bool> noBaseline("no-baseline", cl::desc("Skip the unmodified pipelines"));
cl::opt<double> reduceBudget("reduce-seconds", cl::desc("npufuzz reduce --max-time"), cl::init(60));
cl::opt<std::string> jsonOut("json", cl::desc("Results file"), cl::init("bench-detect.json"));
cl::opt<std::string> workDir("work", cl::desc("Campaign directories"),
                             cl::init("/tmp/npufuzz-bench-detect"));
cl::opt<std::string> npufuzzPath("npufuzz", cl::desc("npufuzz binary (default: next to this)"));
cl::opt<std::string> testPluginPath(
    "test-plugin",
    cl::desc("The test plugin, for faults of its passes (default: ../lib from this)"));
cl::opt<std::string> pluginPath("plugin",
                                cl::desc("Planted-bug plugin (default: ../lib from this)"));

/// A planted fault: its pass, the seed report it models, and where it runs.
struct Fault {
  std::string name, seed, style, pipeline;
  bool baseline = false; ///< an unmodified pipeline: runs its whole budget
  std::string policy;    ///< policy text for --policy; empty: the defaults
  std::string stage;     ///< --pass-stage; empty: entry
};

/// The default policy almost never makes a tile with more than 4 non-unit
/// dims (rank 5-6 values are rare and their dims often 1), so the npu
/// style's peel loops go unexercised. This is the tweak that exercises them;
/// its row is reported next to the default one, not instead of it.
const char *const kPeelPolicy = "rank.5=6 rank.6=6 dim.small=12";

/// The plugin of `f`'s pass: the test plugin's passes are npufuzz-test-*.
std::string pluginOf(const Fault &f) {
  return f.pipeline.find("npufuzz-test-") != std::string::npos ? testPluginPath : pluginPath;
}

/// The pipelines name the fault's pass where a compiler would run it: the
/// tensor-style index fault needs elementwise fusion first to bring the
/// cast and the compare into one body, as in seed 000's fused kernel.
std::vector<Fault> faults() {
  const std::string fuse = "func.func(linalg-fuse-elementwise-ops)";
  return {
      {"index-i64-compare", "000", "tensor", fuse + ",func.func(npufuzz-bug-index-i64-compare)",
       false, "", ""},
      {"uninit-validshape", "002", "npu", "func.func(npufuzz-bug-uninit-validshape)", false, "",
       ""},
      {"slice-fusion-assert", "001", "tensor", "func.func(npufuzz-bug-slice-fusion-assert)", false,
       "", ""},
      {"floormod-stride", "003", "npu", "func.func(npufuzz-bug-floormod-stride)", false, "", ""},
      {"unit-dim-collapse", "003", "npu", "func.func(npufuzz-bug-unit-dim-collapse)", false, "",
       ""},
      {"peel-alias", "003", "npu", "func.func(npufuzz-bug-peel-alias)", false, "", ""},
      {"peel-alias+policy", "003", "npu", "func.func(npufuzz-bug-peel-alias)", false, kPeelPolicy,
       ""},
      {"drop-tail", "003", "npu", "func.func(npufuzz-bug-drop-tail)", false, "", ""},
      // Memory errors: each style's loops run one past a row. The tensor
      // style's loops exist from the loops stage on.
      {"loop-overrun", "003", "affine", "func.func(npufuzz-bug-loop-overrun)", false, "", ""},
      {"loop-overrun", "003", "tensor", "func.func(npufuzz-bug-loop-overrun)", false, "", "loops"},
      {"loop-overrun", "003", "npu", "func.func(npufuzz-bug-loop-overrun)", false, "", ""},
      // Reads and writes one element past each row, from the test plugin.
      {"load-past-end", "003", "affine", "func.func(npufuzz-test-load-past-end)", false, "", ""},
      {"load-past-end", "003", "tensor", "func.func(npufuzz-test-load-past-end)", false, "",
       "loops"},
      {"load-past-end", "003", "npu", "func.func(npufuzz-test-load-past-end)", false, "", ""},
      {"store-past-end", "003", "affine", "func.func(npufuzz-test-store-past-end)", false, "", ""},
      {"store-past-end", "003", "tensor", "func.func(npufuzz-test-store-past-end)", false, "",
       "loops"},
      {"store-past-end", "003", "npu", "func.func(npufuzz-test-store-past-end)", false, "", ""},
      // Masks that end inside their buffer (the affine style's masked
      // copy-out of a valid region), from the test plugin.
      {"long-mask", "002", "affine", "func.func(npufuzz-test-long-mask)", false, "", ""},
      {"drop-write-mask", "002", "affine", "func.func(npufuzz-test-drop-write-mask)", false, "",
       ""},
      {"bf16-round-half-away", "004", "affine", "func.func(npufuzz-bug-bf16-round-half-away)",
       false, "", ""},
      {"unmodified", "-", "affine", "O0", true, "", ""},
      {"unmodified", "-", "tensor", fuse, true, "", ""},
      {"unmodified", "-", "npu", "O0", true, "", ""},
  };
}

struct Run {
  uint64_t seedStart = 0;
  bool detected = false;
  uint64_t cases = 0; ///< to the first finding, or all cases when none
  double seconds = 0;
  std::string verdict, signatureId, blamedPass, caseDir;
  /// The finding's lowering seed, which its reduction keeps; none: the
  /// canonical lowering.
  std::optional<uint64_t> loweringSeed;
};

std::optional<json::Value> readJson(const std::string &path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    return std::nullopt;
  Expected<json::Value> v = json::parse((*buf)->getBuffer());
  if (!v) {
    consumeError(v.takeError());
    return std::nullopt;
  }
  return std::move(*v);
}

/// The first complete finding report under DIR/findings (lowest seed).
std::optional<json::Object> firstFinding(const std::string &dir, std::string &caseDir) {
  std::error_code ec;
  std::optional<json::Object> best;
  SmallString<256> findings(dir);
  sys::path::append(findings, "findings");
  for (sys::fs::directory_iterator it(findings, ec), end; !ec && it != end; it.increment(ec)) {
    std::optional<json::Value> v = readJson(it->path() + "/report.json");
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o || !o->getInteger("seed"))
      continue; // not written yet
    if (!best || *o->getInteger("seed") < *best->getInteger("seed")) {
      best = *o;
      caseDir = it->path();
    }
  }
  return best;
}

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// One campaign: polls its directory and stops it at the first finding
/// (unless `f` is a baseline, which runs its whole budget).
Run campaign(const Fault &f, uint64_t seedStart, double seconds, const std::string &dir) {
  sys::fs::remove_directories(dir);
  std::vector<std::string> argv = {npufuzzPath,
                                   "fuzz",
                                   "-o",
                                   dir,
                                   "--style",
                                   f.style,
                                   "--pipeline",
                                   f.pipeline,
                                   "--load-pass-plugin",
                                   pluginOf(f),
                                   "--max-time",
                                   std::to_string(seconds),
                                   "--jobs",
                                   std::to_string(jobs),
                                   "--seed-start",
                                   std::to_string(seedStart),
                                   "--quiet"};
  if (!f.stage.empty()) {
    argv.push_back("--pass-stage");
    argv.push_back(f.stage);
  }
  if (!f.policy.empty()) {
    const std::string policyPath = dir + ".policy";
    std::error_code ec;
    raw_fd_ostream(policyPath, ec) << f.policy << "\n";
    argv.push_back("--policy");
    argv.push_back(policyPath);
  }
  std::vector<StringRef> args(argv.begin(), argv.end());
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""), StringRef("")};
  std::string err;
  Run r;
  r.seedStart = seedStart;
  const double start = now();
  sys::ProcessInfo pi = sys::ExecuteNoWait(npufuzzPath, args, std::nullopt, redirects, 0, &err);
  if (pi.Pid == sys::ProcessInfo::InvalidPid) {
    errs() << "bench_detect: cannot run " << npufuzzPath << ": " << err << "\n";
    return r;
  }
  for (;;) {
    sys::ProcessInfo w = sys::Wait(pi, 0, &err, nullptr, /*Polling=*/true);
    const bool exited = w.Pid == pi.Pid;
    if (!f.baseline) {
      std::string caseDir;
      if (std::optional<json::Object> rep = firstFinding(dir, caseDir)) {
        r.seconds = now() - start;
        r.detected = true;
        r.cases = *rep->getInteger("seed") - seedStart + 1;
        r.verdict = rep->getString("verdict").value_or("").str();
        r.signatureId = rep->getString("signature_id").value_or("").str();
        r.blamedPass = rep->getString("pass").value_or("").str();
        r.caseDir = caseDir;
        if (const json::Value *seed = rep->get("lowering_seed"))
          r.loweringSeed = seed->getAsUINT64();
        if (!exited) {
          // SIGINT is the campaign's own stop request: it reaps its workers.
          ::kill(pi.Pid, SIGINT);
          sys::Wait(pi, 30, &err);
        }
        return r;
      }
    }
    if (exited)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r.seconds = now() - start;
  if (std::optional<json::Value> s = readJson(dir + "/summary.json"))
    if (const json::Object *o = s->getAsObject())
      r.cases = o->getInteger("cases").value_or(0);
  if (f.baseline) {
    std::string caseDir;
    if (std::optional<json::Object> rep = firstFinding(dir, caseDir)) {
      r.detected = true;
      r.verdict = rep->getString("verdict").value_or("").str();
      r.signatureId = rep->getString("signature_id").value_or("").str();
    }
  }
  return r;
}

/// Whether this npufuzz has the `reduce` subcommand.
bool haveReduce() {
  std::vector<StringRef> args = {npufuzzPath, "--help"};
  SmallString<128> out;
  sys::fs::createTemporaryFile("bench-detect-help", "txt", out);
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(out), StringRef("")};
  sys::ExecuteAndWait(npufuzzPath, args, std::nullopt, redirects, 30);
  auto buf = MemoryBuffer::getFile(out);
  sys::fs::remove(out);
  return buf && (*buf)->getBuffer().contains("\n  reduce ");
}

struct Reduced {
  bool ok = false;
  uint64_t ops = 0, elements = 0;
  double seconds = 0;
};

/// Ops (definitions, inputs included) and elements (summed over every
/// value's type) of a case text.
void measureCase(StringRef text, Reduced &r) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (!line.starts_with("%") || !line.contains(" = "))
      continue;
    ++r.ops;
    // Result types follow the last " : ", e.g. `f32[4,2], i64[4,2]`.
    StringRef types = line.rsplit(" : ").second;
    while (true) {
      auto [l, rest] = types.split('[');
      if (rest.empty())
        break;
      auto [dims, after] = rest.split(']');
      uint64_t n = 1;
      SmallVector<StringRef> ds;
      dims.split(ds, ',');
      for (StringRef d : ds) {
        uint64_t v = 0;
        if (!d.trim().getAsInteger(10, v))
          n *= v;
      }
      r.elements += n;
      types = after;
    }
  }
}

Reduced reduce(const Fault &f, const Run &run, const std::string &out) {
  Reduced r;
  sys::fs::remove_directories(out);
  std::vector<std::string> argv = {npufuzzPath,
                                   "reduce",
                                   run.caseDir + "/case.npf",
                                   "-o",
                                   out,
                                   "--style",
                                   f.style,
                                   "--pipeline",
                                   f.pipeline,
                                   "--load-pass-plugin",
                                   pluginOf(f),
                                   "--max-time",
                                   std::to_string(reduceBudget),
                                   "--jobs",
                                   std::to_string(jobs),
                                   "--quiet"};
  if (!f.stage.empty()) {
    argv.push_back("--pass-stage");
    argv.push_back(f.stage);
  }
  if (run.loweringSeed) {
    argv.push_back("--lowering-seed");
    argv.push_back(std::to_string(*run.loweringSeed));
  }
  std::vector<StringRef> args(argv.begin(), argv.end());
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""), StringRef("")};
  const double start = now();
  const int rc = sys::ExecuteAndWait(npufuzzPath, args, std::nullopt, redirects,
                                     static_cast<unsigned>(reduceBudget * 2 + 60));
  r.seconds = now() - start;
  auto buf = MemoryBuffer::getFile(out + "/case.npf");
  if (rc != 0 || !buf)
    return r;
  r.ok = true;
  measureCase((*buf)->getBuffer(), r);
  return r;
}

template <typename T> T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? T() : v[v.size() / 2];
}

std::string fixed(double x, int digits = 1) {
  std::string s;
  raw_string_ostream(s) << format(("%." + std::to_string(digits) + "f").c_str(), x);
  return s;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "npufuzz detection-power benchmark\n");
  SmallString<256> self(sys::fs::getMainExecutable(argv[0], (void *)&main));
  sys::path::remove_filename(self);
  if (npufuzzPath.empty())
    npufuzzPath = (self + "/npufuzz").str();
  if (pluginPath.empty()) {
    SmallString<256> lib(self);
    sys::path::append(lib, "..", "lib", "libnpufuzz_planted_bugs.so");
    pluginPath = lib.str().str();
  }
  if (testPluginPath.empty()) {
    SmallString<256> lib(self);
    sys::path::append(lib, "..", "lib", "libnpufuzz_test_plugin.so");
    testPluginPath = lib.str().str();
  }
  const double baseSeconds = baselineBudget > 0 ? baselineBudget : budget;
  const bool canReduce = haveReduce();
  sys::fs::create_directories(workDir);

  outs() << "bench_detect: K=" << runs << " campaigns per fault, " << fixed(budget, 0)
         << " s budget (unmodified: " << fixed(baseSeconds, 0) << " s), --jobs " << jobs
         << ", reduce: " << (canReduce ? "yes" : "not available") << "\n\n";
  outs() << format("%-21s %-4s %-6s %-4s %-13s %-11s %-9s %-26s %s\n", "fault", "seed", "style",
                   "det", "cases med/max", "sec med/max", "verdict", "signature", "reduced");
  json::Array rows;
  for (const Fault &f : faults()) {
    if (!only.empty() && f.name.find(only) == std::string::npos)
      continue;
    if (f.baseline && noBaseline)
      continue;
    std::vector<Run> rs;
    for (unsigned k = 0; k < runs; ++k) {
      const std::string dir = workDir + "/" + f.name + "-" + f.style + "-" + std::to_string(k);
      rs.push_back(campaign(f, seedBase + k * 1000000ull, f.baseline ? baseSeconds : budget, dir));
    }
    std::vector<uint64_t> cases;
    std::vector<double> secs;
    unsigned detected = 0;
    const Run *first = nullptr;
    for (const Run &r : rs) {
      if (!r.detected)
        continue;
      ++detected;
      cases.push_back(r.cases);
      secs.push_back(r.seconds);
      if (!first)
        first = &r;
    }
    Reduced red;
    if (canReduce && first && !f.baseline)
      red = reduce(f, *first, workDir + "/" + f.name + "-reduced");

    std::string casesText = "-", secsText = "-";
    if (f.baseline) {
      uint64_t total = 0;
      for (const Run &r : rs)
        total += r.cases;
      casesText = std::to_string(total) + " run";
    } else if (detected) {
      casesText = std::to_string(median(cases)) + "/" +
                  std::to_string(*std::max_element(cases.begin(), cases.end()));
      secsText = fixed(median(secs)) + "/" + fixed(*std::max_element(secs.begin(), secs.end()));
    }
    std::string redText = "-";
    if (red.ok)
      redText = std::to_string(red.ops) + " ops, " + std::to_string(red.elements) + " elems, " +
                fixed(red.seconds) + " s";
    outs() << format("%-21s %-4s %-6s %-4s %-13s %-11s %-9s %-26s %s\n", f.name.c_str(),
                     f.seed.c_str(), f.style.c_str(),
                     (std::to_string(detected) + "/" + std::to_string(runs)).c_str(),
                     casesText.c_str(), secsText.c_str(), first ? first->verdict.c_str() : "-",
                     first ? first->signatureId.c_str() : "-", redText.c_str());
    outs().flush();

    json::Array runArray;
    for (const Run &r : rs)
      runArray.push_back(json::Object{{"seed_start", static_cast<int64_t>(r.seedStart)},
                                      {"detected", r.detected},
                                      {"cases", static_cast<int64_t>(r.cases)},
                                      {"seconds", r.seconds},
                                      {"verdict", r.verdict},
                                      {"signature_id", r.signatureId},
                                      {"blamed_pass", r.blamedPass}});
    json::Object row{{"fault", f.name},
                     {"seed_report", f.seed},
                     {"style", f.style},
                     {"pipeline", f.pipeline},
                     {"baseline", f.baseline},
                     {"policy", f.policy.empty() ? "default" : f.policy},
                     {"stage", f.stage.empty() ? "entry" : f.stage},
                     {"runs", std::move(runArray)},
                     {"detected", static_cast<int64_t>(detected)}};
    if (!f.baseline && detected) {
      row["median_cases"] = static_cast<int64_t>(median(cases));
      row["max_cases"] = static_cast<int64_t>(*std::max_element(cases.begin(), cases.end()));
      row["median_seconds"] = median(secs);
      row["max_seconds"] = *std::max_element(secs.begin(), secs.end());
    }
    if (red.ok)
      row["reduced"] = json::Object{{"ops", static_cast<int64_t>(red.ops)},
                                    {"elements", static_cast<int64_t>(red.elements)},
                                    {"seconds", red.seconds}};
    rows.push_back(std::move(row));
  }

  std::error_code ec;
  raw_fd_ostream os(jsonOut, ec);
  if (ec) {
    errs() << "bench_detect: cannot write " << jsonOut << ": " << ec.message() << "\n";
    return 1;
  }
  os << formatv("{0:2}", json::Value(json::Object{{"runs_per_fault", static_cast<int64_t>(runs)},
                                                  {"seconds_per_campaign", budget.getValue()},
                                                  {"baseline_seconds", baseSeconds},
                                                  {"jobs", static_cast<int64_t>(jobs)},
                                                  {"seed_base", static_cast<int64_t>(seedBase)},
                                                  {"reduce_available", canReduce},
                                                  {"rows", std::move(rows)}}))
     << "\n";
  outs() << "\nwrote " << jsonOut << "\n";
  return 0;
}
