//===- driver/Campaign.cpp - Fuzz campaigns --------------------------------===//
#include "driver/Campaign.h"

#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "driver/ReduceCommand.h"
#include "driver/Worker.h"
#include "generators/CaseGenerator.h"
#include "generators/Features.h"
#include "ir/Text.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <poll.h>
#include <set>

namespace fs = std::filesystem;

namespace npufuzz {

namespace {
volatile std::sig_atomic_t stopRequested = 0;
void onSigint(int) { stopRequested = 1; }

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// What survives a stop: how far the campaign got and its totals.
struct State {
  uint64_t seedStart = 0, shardIndex = 0, shardCount = 1;
  uint64_t next = 0; ///< every seed index below this has completed
  uint64_t totalCases = 0;
  std::map<std::string, uint64_t> verdicts, features;

  std::string json() const {
    llvm::json::Object v, f;
    for (const auto &[k, n] : verdicts)
      v[k] = static_cast<int64_t>(n);
    for (const auto &[k, n] : features)
      f[k] = static_cast<int64_t>(n);
    llvm::json::Object o{{"seed_start", static_cast<int64_t>(seedStart)},
                         {"shard_index", static_cast<int64_t>(shardIndex)},
                         {"shard_count", static_cast<int64_t>(shardCount)},
                         {"next", static_cast<int64_t>(next)},
                         {"total_cases", static_cast<int64_t>(totalCases)},
                         {"verdicts", std::move(v)},
                         {"features", std::move(f)}};
    std::string s;
    llvm::raw_string_ostream os(s);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
    return s;
  }

  /// Loads DIR/state.json if it belongs to the same seed range and shard.
  bool load(const std::string &path) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf)
      return false;
    auto parsed = llvm::json::parse((*buf)->getBuffer());
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return false;
    }
    const llvm::json::Object *o = parsed->getAsObject();
    if (!o || o->getInteger("seed_start").value_or(-1) != static_cast<int64_t>(seedStart) ||
        o->getInteger("shard_index").value_or(-1) != static_cast<int64_t>(shardIndex) ||
        o->getInteger("shard_count").value_or(-1) != static_cast<int64_t>(shardCount))
      return false;
    next = o->getInteger("next").value_or(0);
    totalCases = o->getInteger("total_cases").value_or(0);
    auto counts = [&](const char *key, std::map<std::string, uint64_t> &out) {
      if (const llvm::json::Object *m = o->getObject(key))
        for (const auto &kv : *m)
          out[kv.first.str()] = kv.second.getAsInteger().value_or(0);
    };
    counts("verdicts", verdicts);
    counts("features", features);
    return true;
  }
};

/// A case in flight. It holds its worker's slot until it is recorded, also
/// while a failure from a used worker is re-run in a fresh child.
struct Running {
  uint64_t index = 0, seed = 0;
  Case c;
  Worker *worker = nullptr;
  std::unique_ptr<Child> confirm;
  VerdictKind workerVerdict = VerdictKind::Ok;

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

bool isFinding(VerdictKind v) {
  return v != VerdictKind::Ok && v != VerdictKind::Unsupported;
}

std::vector<FindingSummary> scanFindings(const std::string &outDir) {
  std::vector<FindingSummary> out;
  const fs::path dir = fs::path(outDir) / "findings";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return out;
  for (const auto &e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name[0] == '.')
      continue;
    FindingSummary f;
    f.id = name;
    f.count = findingCount(e.path().string());
    if (auto buf = llvm::MemoryBuffer::getFile((e.path() / "report.json").string())) {
      if (auto parsed = llvm::json::parse((*buf)->getBuffer())) {
        if (const llvm::json::Object *o = parsed->getAsObject()) {
          f.text = o->getString("signature").value_or("").str();
          f.summary = o->getString("summary").value_or("").str();
          f.firstSeed = o->getInteger("seed").value_or(0);
        }
      } else {
        llvm::consumeError(parsed.takeError());
      }
    }
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(),
            [](const FindingSummary &a, const FindingSummary &b) { return a.id < b.id; });
  return out;
}

void writeSummaryJson(const std::string &outDir, const CampaignResult &r) {
  llvm::json::Object v, f;
  for (const auto &[k, n] : r.verdicts)
    v[k] = static_cast<int64_t>(n);
  for (const auto &[k, n] : r.features)
    f[k] = static_cast<int64_t>(n);
  llvm::json::Array findings;
  for (const FindingSummary &x : r.findings)
    findings.push_back(llvm::json::Object{{"id", x.id},
                                          {"signature", x.text},
                                          {"count", static_cast<int64_t>(x.count)},
                                          {"first_seed", static_cast<int64_t>(x.firstSeed)},
                                          {"summary", x.summary}});
  llvm::json::Object o{{"cases", static_cast<int64_t>(r.cases)},
                       {"total_cases", static_cast<int64_t>(r.totalCases)},
                       {"seconds", r.seconds},
                       {"cases_per_second", r.seconds > 0 ? r.cases / r.seconds : 0.0},
                       {"verdicts", std::move(v)},
                       {"features", std::move(f)},
                       {"findings", std::move(findings)},
                       {"new_findings", static_cast<int64_t>(r.newFindings)},
                       {"history_dependent", static_cast<int64_t>(r.historyDependent)},
                       {"interrupted", r.interrupted}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  writeFileAtomic((fs::path(outDir) / "summary.json").string(), s);
}
} // namespace

void requestCampaignStop() { stopRequested = 1; }

CampaignResult runCampaign(const CampaignOptions &options, MlirJit &jit) {
  CampaignResult result;
  std::error_code ec;
  fs::create_directories(fs::path(options.outDir) / "findings", ec);
  if (ec) {
    result.error = "cannot create " + options.outDir + ": " + ec.message();
    return result;
  }
  const std::string statePath = (fs::path(options.outDir) / "state.json").string();
  State state;
  state.seedStart = options.seedStart;
  state.shardIndex = options.shardIndex;
  state.shardCount = options.shardCount;
  state.load(statePath);

  stopRequested = 0;
  auto previousHandler = std::signal(SIGINT, onSigint);
  const auto start = Clock::now();
  auto lastReport = start;
  std::vector<Running> running;
  std::set<uint64_t> completedAhead; // finished indices above the watermark
  std::vector<std::string> newIds;   // signatures first seen in this run
  uint64_t nextIndex = state.next, launched = 0;
  const unsigned jobs = std::max(1u, options.jobs);

  auto progress = [&](bool final) {
    if (!options.progress)
      return;
    const double secs = since(start);
    std::ostringstream line;
    line << "\r[npufuzz] " << result.cases << " cases  " << std::fixed << std::setprecision(1)
         << (secs > 0 ? result.cases / secs : 0.0) << "/s  findings:";
    uint64_t findings = 0;
    for (const auto &[k, n] : result.verdicts)
      if (k != "ok" && k != "unsupported") {
        line << " " << k << "=" << n;
        findings += n;
      }
    if (!findings)
      line << " none";
    const uint64_t unsupported =
        result.verdicts.count("unsupported") ? result.verdicts.at("unsupported") : 0;
    line << "  unsupported " << std::setprecision(1)
         << (result.cases ? 100.0 * unsupported / result.cases : 0.0) << "%  "
         << std::setprecision(0) << secs << " s   ";
    llvm::errs() << line.str() << (final ? "\n" : "");
    llvm::errs().flush();
  };

  // Persistent workers, forked lazily from this initialised process; each
  // builds its case from the seed it is sent.
  const Worker::Handler handler = [&jit, &options](const std::string &request) {
    const Case c = generateCase(std::stoull(request), options.policy);
    return runCaseTask(c, jit, options.config).toJson();
  };
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned k = 0; k < jobs; ++k)
    workers.push_back(std::make_unique<Worker>(handler, options.limits,
                                               options.casesPerWorker));
  auto freeWorker = [&]() -> Worker * {
    for (auto &w : workers)
      if (std::none_of(running.begin(), running.end(),
                       [&](const Running &r) { return r.worker == w.get(); }))
        return w.get();
    return nullptr;
  };

  // Counts a finished case, writes its finding, and advances the resume
  // watermark past every completed index.
  auto record = [&](const Running &r, CaseReport report) {
    const std::string verdict(verdictName(report.result.verdict));
    ++result.verdicts[verdict];
    ++state.verdicts[verdict];
    ++result.cases;
    ++state.totalCases;
    for (const std::string &f : caseFeatures(r.c)) {
      ++result.features[f];
      ++state.features[f];
    }
    if (isFinding(report.result.verdict)) {
      Finding f;
      f.seed = r.seed;
      f.caseText = printCase(r.c);
      MlirKernel kernel;
      std::string unsupported;
      MlirEmitOptions emitOptions;
      emitOptions.style = options.config.style;
      if (emitMlir(r.c, emitOptions, kernel, unsupported))
        f.mlir = kernel.text;
      f.report = std::move(report);
      f.pipeline = options.config.pipeline;
      f.style = std::string(mlirStyleName(options.config.style));
      f.policyPath = options.policyPath;
      std::string error;
      if (recordFinding(options.outDir, f, error)) {
        ++result.newFindings;
        newIds.push_back(f.report.signature.id());
      }
    }
    completedAhead.insert(r.index);
    while (completedAhead.count(state.next))
      completedAhead.erase(state.next++);
  };

  for (;;) {
    const bool mayLaunch = !stopRequested &&
                           (!options.maxCases || launched < options.maxCases) &&
                           (options.maxSeconds <= 0 || since(start) < options.maxSeconds);
    while (mayLaunch && running.size() < jobs &&
           (!options.maxCases || launched < options.maxCases)) {
      Running r;
      r.index = nextIndex++;
      r.seed = options.seedStart + options.shardIndex + r.index * options.shardCount;
      r.c = generateCase(r.seed, options.policy);
      r.worker = freeWorker();
      r.worker->start(std::to_string(r.seed));
      running.push_back(std::move(r));
      ++launched;
    }
    if (running.empty())
      break;
    if (stopRequested)
      for (Running &r : running)
        r.kill();

    std::vector<struct pollfd> fds;
    for (Running &r : running)
      for (int fd : r.fds())
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 50);

    for (size_t i = 0; i < running.size();) {
      Running &r = running[i];
      if (!r.poll()) {
        ++i;
        continue;
      }
      if (!stopRequested && !r.confirm) {
        CaseReport report = reportOf(r.worker->outcome());
        if (isFinding(report.result.verdict) && r.worker->servedBefore() > 0) {
          // The worker had run other cases first. Only what a fresh worker
          // gives is recorded, so that `npufuzz --seed N` reproduces it.
          const std::string request = std::to_string(r.seed);
          r.workerVerdict = report.result.verdict;
          r.confirm = std::make_unique<Child>([&handler, request] { return handler(request); },
                                              options.limits);
          ++i;
          continue;
        }
        record(r, std::move(report));
      } else if (!stopRequested) {
        CaseReport report = reportOf(r.confirm->outcome());
        if (report.result.verdict != r.workerVerdict)
          ++result.historyDependent;
        record(r, std::move(report));
      }
      running.erase(running.begin() + i);
    }
    if (since(lastReport) >= 1.0) {
      lastReport = Clock::now();
      progress(false);
      writeFileAtomic(statePath, state.json());
    }
  }
  workers.clear(); // idle processes hold memory the reducer can use
  // Reduce what is new, unless stopped: each signature's first case, into
  // findings/<id>/reduced/.
  for (const std::string &id : newIds) {
    if (!options.reduce || stopRequested)
      break;
    const fs::path dir = fs::path(options.outDir) / "findings" / id;
    ReduceCommandOptions r;
    r.casePath = (dir / "case.npf").string();
    r.outDir = (dir / "reduced").string();
    r.pipeline = options.config.pipeline;
    r.style = std::string(mlirStyleName(options.config.style));
    r.maxSeconds = options.reduceSeconds;
    r.jobs = jobs;
    r.candidateTimeout = options.limits.wallSeconds;
    r.memoryBytes = options.limits.addressSpaceBytes;
    r.progress = false;
    r.jit = &jit;
    std::ostringstream log;
    if (runReduceCommand(r, log) == 0)
      ++result.reduced;
  }
  std::signal(SIGINT, previousHandler);
  result.interrupted = stopRequested != 0;
  result.seconds = since(start);
  result.totalCases = state.totalCases;
  result.features = state.features;
  result.verdicts = state.verdicts;
  writeFileAtomic(statePath, state.json());
  result.findings = scanFindings(options.outDir);
  writeSummaryJson(options.outDir, result);
  progress(true);
  return result;
}

void printCampaignSummary(const CampaignResult &r, std::ostream &os) {
  os << "cases: " << r.cases << " in " << std::fixed << std::setprecision(1) << r.seconds
     << " s (" << (r.seconds > 0 ? r.cases / r.seconds : 0.0) << " cases/s)";
  if (r.totalCases != r.cases)
    os << ", " << r.totalCases << " in this directory";
  os << (r.interrupted ? "  [interrupted]" : "") << "\nverdicts:";
  for (const auto &[k, n] : r.verdicts)
    os << " " << k << "=" << n;
  os << "\nfindings: " << r.findings.size() << " signatures (" << r.newFindings << " new, "
     << r.reduced << " reduced)\n";
  if (r.historyDependent)
    os << "history-dependent: " << r.historyDependent
       << " failures of a used worker came out differently in a fresh one (the fresh verdict "
          "was recorded)\n";
  if (!r.findings.empty()) {
    os << "  " << std::left << std::setw(34) << "signature" << std::setw(8) << "count"
       << std::setw(12) << "first seed" << "summary\n";
    for (const FindingSummary &f : r.findings)
      os << "  " << std::setw(34) << f.id << std::setw(8) << f.count << std::setw(12)
         << f.firstSeed << f.summary.substr(0, 100) << "\n";
  }
}

} // namespace npufuzz
