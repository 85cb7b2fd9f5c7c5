//===- driver/Findings.cpp - Finding directories, written atomically ------===//
#include "driver/Findings.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace npufuzz {

std::string reproCommand(const Finding &f) {
  std::string cmd = "npufuzz --seed " + std::to_string(f.seed) + " --pipeline '" + f.pipeline +
                    "' --style " + f.style;
  if (!f.policyPath.empty())
    cmd += " --policy '" + f.policyPath + "'";
  return cmd;
}

bool writeFileAtomic(const std::string &path, const std::string &text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !out.flush())
      return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

namespace {
bool appendLine(const fs::path &path, const std::string &line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0)
    return false;
  const std::string l = line + "\n";
  const bool ok = ::write(fd, l.data(), l.size()) == static_cast<ssize_t>(l.size());
  ::close(fd);
  return ok;
}

std::string reportJson(const Finding &f) {
  const TaskResult &r = f.report.result;
  llvm::json::Object o{
      {"seed", static_cast<int64_t>(f.seed)},
      {"verdict", std::string(verdictName(r.verdict))},
      {"signature", f.report.signature.text()},
      {"signature_id", f.report.signature.id()},
      {"summary", r.summary},
      {"pass", r.passName},
      {"pass_index", r.passIndex},
      {"where", f.report.signature.where},
      {"pipeline", f.pipeline},
      {"style", f.style},
      {"repro", reproCommand(f)},
      {"seconds", f.report.seconds},
  };
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}
} // namespace

uint64_t findingCount(const std::string &findingDir) {
  std::ifstream in(fs::path(findingDir) / "seeds.txt");
  uint64_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += !line.empty();
  return n;
}

bool recordFinding(const std::string &outDir, const Finding &f, std::string &error) {
  const fs::path findings = fs::path(outDir) / "findings";
  const fs::path final = findings / f.report.signature.id();
  std::error_code ec;
  fs::create_directories(findings, ec);
  if (fs::exists(final)) {
    appendLine(final / "seeds.txt", std::to_string(f.seed));
    return false;
  }
  const fs::path tmp = findings / (".tmp-" + f.report.signature.id() + "-" +
                                   std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) {
    error = "cannot create " + tmp.string() + ": " + ec.message();
    return false;
  }
  auto put = [&](const char *name, const std::string &text) {
    std::ofstream(tmp / name, std::ios::binary) << text;
  };
  put("case.npf", f.caseText);
  put("kernel.mlir", f.mlir);
  put("stderr.txt", f.report.stderrText);
  put("report.json", reportJson(f));
  put("repro.sh", "#!/bin/sh\n# " + f.report.signature.text() + "\n" + reproCommand(f) +
                      "\n# or: npufuzz run case.npf --pipeline '" + f.pipeline + "' --style " +
                      f.style + "\n");
  put("seeds.txt", std::to_string(f.seed) + "\n");
  fs::rename(tmp, final, ec);
  if (ec) {
    // Another worker or shard won the race: keep theirs, add our seed.
    fs::remove_all(tmp, ec);
    appendLine(final / "seeds.txt", std::to_string(f.seed));
    return false;
  }
  return true;
}

size_t mergeFindings(const std::string &outDir, const std::vector<std::string> &inputs,
                     std::string &error) {
  const fs::path target = fs::path(outDir) / "findings";
  std::error_code ec;
  fs::create_directories(target, ec);
  for (const std::string &in : inputs) {
    const fs::path src = fs::path(in) / "findings";
    if (!fs::is_directory(src)) {
      error = in + " has no findings directory";
      continue;
    }
    std::vector<fs::path> dirs;
    for (const auto &e : fs::directory_iterator(src))
      if (e.is_directory() && e.path().filename().string()[0] != '.')
        dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path &d : dirs) {
      const fs::path dst = target / d.filename();
      if (!fs::exists(dst)) {
        const fs::path tmp = target / (".tmp-merge-" + d.filename().string());
        fs::remove_all(tmp, ec);
        fs::copy(d, tmp, fs::copy_options::recursive, ec);
        fs::rename(tmp, dst, ec);
        continue;
      }
      // Same signature: union of seeds.
      std::set<std::string> seen;
      std::ifstream have(dst / "seeds.txt");
      for (std::string l; std::getline(have, l);)
        seen.insert(l);
      std::ifstream add(d / "seeds.txt");
      for (std::string l; std::getline(add, l);)
        if (!l.empty() && seen.insert(l).second)
          appendLine(dst / "seeds.txt", l);
    }
  }
  size_t n = 0;
  for (const auto &e : fs::directory_iterator(target))
    n += e.is_directory() && e.path().filename().string()[0] != '.';
  return n;
}

} // namespace npufuzz
