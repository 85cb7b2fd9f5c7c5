//===- driver/Findings.cpp - Finding directories, written atomically ------===//
#include "driver/Findings.h"

#include "driver/JsonFile.h"
#include "driver/ReduceCommand.h"
#include "ir/FileText.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace npufuzz {

std::string shellQuote(const std::string &text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=:,+@%") == std::string::npos)
    return text;
  std::string out = "'";
  for (char ch : text)
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

namespace {
/// The flags that pick where the case runs: backend, its set-up, plugins.
std::string backendArgs(const Finding &f) {
  std::string args;
  if (f.backend != "mlir-jit")
    args += " --backend " + shellQuote(f.backend);
  for (const std::string &flag : f.backendFlags)
    args += " " + shellQuote(flag);
  for (const std::string &p : f.passPlugins)
    args += " --load-pass-plugin " + shellQuote(p);
  return args;
}

/// `npufuzz run CASE` with the finding's pipeline, style and backend.
std::string runCaseCommand(const Finding &f, const std::string &casePath) {
  return "npufuzz run " + casePath + " --pipeline " + shellQuote(f.pipeline) + " --style " +
         f.style + backendArgs(f);
}
} // namespace

std::string reproCommand(const Finding &f) {
  // A mutant is its case.npf: no seed rebuilds it (the line names the file
  // beside the script, or in the directory it is run from).
  if (f.mutant)
    return runCaseCommand(f, "\"$(dirname \"$0\")/case.npf\"");
  std::string cmd = "npufuzz --seed " + std::to_string(f.seed) + " --pipeline " +
                    shellQuote(f.pipeline) + " --style " + f.style;
  if (!f.policyPath.empty())
    cmd += " --policy " + shellQuote(f.policyPath);
  if (f.canonicalLowering)
    cmd += " --canonical-lowering";
  if (f.stage != "entry")
    cmd += " --pass-stage " + f.stage;
  return cmd + backendArgs(f);
}

bool writeFileAtomic(const std::string &path, const std::string &text) {
  std::string error;
  return writeFileAtomically(path, text, error);
}

namespace {
bool appendLine(const fs::path &path, const std::string &line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0)
    return false;
  const std::string l = line + "\n";
  struct stat before = {};
  ::fstat(fd, &before);
  const bool ok = ::write(fd, l.data(), l.size()) == static_cast<ssize_t>(l.size());
  if (!ok) // a part of a line would join the next seed's: take it back
    (void)!::ftruncate(fd, before.st_size);
  ::close(fd);
  return ok;
}

/// Lists `seed` in dir/seeds.txt unless it is there already, and how it
/// showed its root (`symptom`, CaseVerdict::symptom, when it has one) in
/// dir/symptoms.txt, that first: a seed listed has its symptom. False (with
/// `error`) when a line cannot be written.
bool appendSeed(const fs::path &dir, uint64_t seed, bool mutant, const std::string &symptom,
                SeedLedger *ledger, std::string &error) {
  SeedLedger once; // without a campaign's ledger: read the file this time
  if ((ledger ? *ledger : once).listed(dir.string(), seed))
    return true;
  for (const auto &[file, line] :
       {std::pair{"symptoms.txt", symptom.empty() ? "" : std::to_string(seed) + " " + symptom},
        std::pair{"seeds.txt", std::to_string(seed) + (mutant ? " mutant" : "")}})
    if (!line.empty() && !appendLine(dir / file, line)) {
      error = "cannot write " + (dir / file).string() + ": " + std::strerror(errno);
      return false;
    }
  return true;
}

/// The forms the finding's kernel was lowered with (its style's points).
std::string loweringText(const Finding &f) {
  MlirStyle style;
  if (!parseMlirStyle(f.style, style))
    return "";
  return (f.loweringSeed ? LoweringPlan::draw(*f.loweringSeed) : LoweringPlan::canonical())
      .str(style);
}

std::string reportJson(const Finding &f) {
  const TaskResult &r = f.report.result;
  llvm::json::Object o{
      {"seed", static_cast<int64_t>(f.seed)},
      {"verdict", std::string(verdictName(r.verdict))},
      {"signature", f.signature().text()},
      {"signature_id", f.signature().id()},
      // What the first case failed with; the root cause is what of it
      // generalisation showed the failure needs.
      {"case_signature", f.report.signature.text()},
      {"case_signature_id", f.report.signature.id()},
      {"summary", r.summary},
      // Rooted at an op (CaseVerdict::rootedAtOp): how this case showed it.
      {"symptom", r.symptom},
      {"pass", r.passName},
      {"pass_index", r.passIndex},
      {"exposed_by", r.exposedBy},
      {"pass_warnings", r.passWarnings},
      {"where", f.report.signature.where},
      {"pipeline", f.pipeline},
      {"pass_stage", f.stage},
      {"style", f.style},
      {"lowering_seed",
       f.loweringSeed ? llvm::json::Value(*f.loweringSeed) : llvm::json::Value(nullptr)},
      {"lowering", loweringText(f)},
      {"backend", f.backend},
      {"repro", reproCommand(f)},
      // A guided campaign's mutant: what it was mutated from; `seed` then
      // names the campaign case, which no `npufuzz --seed` rebuilds.
      {"mutant", f.mutant ? llvm::json::Value(f.how) : llvm::json::Value(nullptr)},
      {"seconds", f.report.seconds},
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}
} // namespace

std::optional<llvm::json::Value> readJsonFile(const std::string &path) {
  std::string error;
  return readJsonFile(path, error);
}

std::optional<llvm::json::Value> readJsonFile(const std::string &path, std::string &error) {
  std::string text; // a FIFO or device in a campaign directory: not read
  if (!readFileBytes(path, text, error, 64u << 20))
    return std::nullopt;
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    error = llvm::toString(parsed.takeError());
    return std::nullopt;
  }
  return std::move(*parsed);
}

bool checkCampaignDir(const std::string &dir, std::string &error) {
  std::error_code ec;
  const fs::path d(dir);
  if (!fs::exists(d, ec)) {
    error = dir + ": no such directory";
    return false;
  }
  if (!fs::is_directory(d, ec)) {
    error = dir + ": not a directory (a campaign directory is what 'npufuzz fuzz -o' writes)";
    return false;
  }
  const bool hasSummary = fs::exists(d / "summary.json", ec);
  if (!hasSummary && !fs::is_directory(d / "findings", ec)) {
    error = dir + ": not a campaign directory (no summary.json and no findings/)";
    return false;
  }
  if (hasSummary) {
    auto summary = readJsonFile((d / "summary.json").string());
    if (!summary || !summary->getAsObject()) {
      error = (d / "summary.json").string() + ": not a campaign summary (invalid JSON)";
      return false;
    }
  }
  return true;
}

bool readFindingReport(const std::string &findingDir, FindingReport &out, std::string &error) {
  const fs::path path = fs::path(findingDir) / "report.json";
  auto report = readJsonFile(path.string());
  const llvm::json::Object *o = report ? report->getAsObject() : nullptr;
  if (!o || !o->getString("signature_id") || !o->getString("signature")) {
    error = path.string() + ": not a finding report (missing, invalid JSON or no signature)";
    return false;
  }
  out.signatureId = o->getString("signature_id")->str();
  if (out.signatureId != fs::path(findingDir).filename().string()) {
    error =
        path.string() + ": its signature_id " + out.signatureId + " is not the directory's name";
    return false;
  }
  out.signature = o->getString("signature")->str();
  out.summary = o->getString("summary").value_or("").str();
  out.repro = o->getString("repro").value_or("").str();
  out.backend = o->getString("backend").value_or("mlir-jit").str();
  out.firstSeed = o->getInteger("seed").value_or(0);
  return true;
}

namespace {
/// The non-empty lines of a finding's list (seeds.txt, symptoms.txt): none
/// when it is not a regular file (a symlink to /dev/zero is not read
/// forever). Not capped: a common finding of a long campaign lists millions
/// of seeds.
std::vector<std::string> listLines(const fs::path &path) {
  std::vector<std::string> lines;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      lines.push_back(line);
  return lines;
}
} // namespace

uint64_t findingCount(const std::string &findingDir) {
  return listLines(fs::path(findingDir) / "seeds.txt").size() +
         listLines(fs::path(findingDir) / "classified.txt").size();
}

std::set<uint64_t> &SeedLedger::seedsOf(const std::string &findingDir) {
  auto [it, fresh] = seeds_.try_emplace(findingDir);
  if (fresh)
    for (const char *list : {"seeds.txt", "classified.txt"})
      for (const std::string &line : listLines(fs::path(findingDir) / list))
        it->second.insert(std::strtoull(line.c_str(), nullptr, 10));
  return it->second;
}

bool SeedLedger::listed(const std::string &findingDir, uint64_t seed) {
  return !seedsOf(findingDir).insert(seed).second;
}

void SeedLedger::add(const std::string &findingDir, uint64_t seed) {
  seedsOf(findingDir).insert(seed);
}

bool listClassified(const std::string &findingDir, uint64_t seed, const std::string &seen,
                    SeedLedger &ledger, std::string &error) {
  if (ledger.listed(findingDir, seed))
    return true; // a case a kill cut off after it was listed, run again
  const fs::path path = fs::path(findingDir) / "classified.txt";
  if (appendLine(path, std::to_string(seed) + " " + seen))
    return true;
  error = "cannot write " + path.string() + ": " + std::strerror(errno);
  return false;
}

bool recordFinding(const std::string &outDir, const Finding &f, std::string &error,
                   SeedLedger *ledger) {
  const fs::path findings = fs::path(outDir) / "findings";
  const fs::path final = findings / f.signature().id();
  std::error_code ec;
  fs::create_directories(findings, ec);
  if (fs::exists(final, ec)) {
    appendSeed(final, f.seed, f.mutant, f.report.result.symptom, ledger, error);
    return false;
  }
  const fs::path tmp = findings / (".tmp-" + f.signature().id() + "-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) {
    error = "cannot create " + tmp.string() + ": " + ec.message();
    return false;
  }
  bool ok = true;
  std::string why;
  auto put = [&](const std::string &name, const std::string &text) {
    if (ok)
      ok = writeFileAtomically((tmp / name).string(), text, why);
  };
  // The case with how it failed: `npufuzz run case.npf`, `reduce` and
  // `replay` lower it with its lowering seed and pass stage from this line.
  Expectation expect;
  expect.verdict = f.report.result.verdict;
  expect.signatureId = f.report.signature.id();
  expect.pipeline = f.pipeline;
  expect.style = f.style;
  expect.loweringSeed = f.loweringSeed;
  if (!parsePassStage(f.stage, expect.stage))
    expect.stage = PassStage::Entry;
  put("case.npf", expectationLine(expect) + "\n" + f.caseText);
  put("kernel.mlir", f.mlir);
  put("stderr.txt", f.report.stderrText);
  if (!f.report.result.details.empty())
    put("details.txt", f.report.result.details);
  put("report.json", reportJson(f));
  for (const auto &[name, text] : f.extraFiles)
    put(name.c_str(), text);
  const std::string runLine = runCaseCommand(f, "case.npf");
  put("repro.sh",
      "#!/bin/sh\n# " + f.signature().text() + "\n" +
          (f.mutant ? "# a guided campaign's mutant (" + f.how + "): its case is case.npf\n" : "") +
          reproCommand(f) + (f.mutant ? "" : "\n# or: " + runLine) + "\n");
  put("seeds.txt", std::to_string(f.seed) + (f.mutant ? " mutant" : "") + "\n");
  // How each case of a root found by op blame showed it (a wrong value, an
  // assertion, an uninitialised read downstream): one line a seed.
  if (!f.report.result.symptom.empty())
    put("symptoms.txt", std::to_string(f.seed) + " " + f.report.result.symptom + "\n");
  if (!ok) {
    error = "cannot write the files of " + final.string() + ": " + why;
    fs::remove_all(tmp, ec);
    return false;
  }
  fs::rename(tmp, final, ec);
  if (ec) {
    const std::error_code renameError = ec;
    fs::remove_all(tmp, ec);
    std::error_code missing;
    if (!fs::is_directory(final, missing)) {
      error =
          "cannot rename " + tmp.string() + " to " + final.string() + ": " + renameError.message();
      return false;
    }
    // Another worker or shard won the race: keep theirs, add our seed.
    appendSeed(final, f.seed, f.mutant, f.report.result.symptom, ledger, error);
    return false;
  }
  if (ledger)
    ledger->add(final.string(), f.seed);
  return true;
}

void readFindingBucket(const std::string &findingDir, std::string &bucket, std::string &key,
                       ReducedFacts *facts) {
  bucket = fs::path(findingDir).filename().string();
  key.clear();
  if (facts)
    *facts = {};
  if (auto reduced = readJsonFile((fs::path(findingDir) / "reduced" / "report.json").string()))
    if (const llvm::json::Object *o = reduced->getAsObject())
      if (auto id = o->getString("bucket")) {
        bucket = id->str();
        key = o->getString("bucket_key").value_or("").str();
        if (facts) {
          auto text = [&](const char *field) { return o->getString(field).value_or("").str(); };
          *facts = {text("skeleton_id"), text("exposed_signature"), text("exposed_signature_id")};
        }
      }
}

size_t mergeFindings(const std::string &outDir, const std::vector<std::string> &inputs,
                     std::string &error) {
  const fs::path target = fs::path(outDir) / "findings";
  std::error_code ec;
  if (fs::exists(outDir, ec) && !fs::is_directory(outDir, ec)) {
    error = outDir + ": exists and is not a directory";
    return 0;
  }
  fs::create_directories(target, ec);
  if (ec) {
    error = "cannot create " + target.string() + ": " + ec.message();
    return 0;
  }
  auto note = [&](const std::string &e) {
    if (error.empty())
      error = e;
  };
  for (const std::string &in : inputs) {
    std::string why;
    if (!checkCampaignDir(in, why)) {
      note(why);
      continue;
    }
    const fs::path src = fs::path(in) / "findings";
    if (!fs::is_directory(src, ec))
      continue; // a campaign that found nothing
    std::vector<fs::path> dirs;
    for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec) && it->path().filename().string()[0] != '.')
        dirs.push_back(it->path());
    if (ec) {
      note("cannot list " + src.string() + ": " + ec.message());
      continue;
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path &d : dirs) {
      FindingReport report;
      if (!readFindingReport(d.string(), report, why)) {
        note(why);
        continue;
      }
      const fs::path dst = target / d.filename();
      if (!fs::exists(dst, ec)) {
        const fs::path tmp = target / (".tmp-merge-" + d.filename().string());
        fs::remove_all(tmp, ec);
        fs::copy(d, tmp, fs::copy_options::recursive, ec);
        if (!ec)
          fs::rename(tmp, dst, ec);
        if (ec) {
          note("cannot copy " + d.string() + " into " + target.string() + ": " + ec.message());
          fs::remove_all(tmp, ec);
        }
        continue;
      }
      // Same signature: union of seeds, of how they showed it, and of the
      // cases filed under it unconfirmed.
      for (const char *file : {"symptoms.txt", "seeds.txt", "classified.txt"}) {
        const std::vector<std::string> have = listLines(dst / file);
        std::set<std::string> seen(have.begin(), have.end());
        for (const std::string &l : listLines(d / file))
          if (seen.insert(l).second && !appendLine(dst / file, l))
            note("cannot write " + (dst / file).string());
      }
    }
  }
  size_t n = 0;
  for (fs::directory_iterator it(target, ec), end; !ec && it != end; it.increment(ec))
    n += it->is_directory(ec) && it->path().filename().string()[0] != '.';
  return n;
}

} // namespace npufuzz
