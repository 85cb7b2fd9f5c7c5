//===- backend/pto/CaseDir.cpp - A run's directory -------------------------===//
#include "backend/pto/CaseDir.h"

#include <cstdlib>

namespace npufuzz {

namespace fs = std::filesystem;

fs::path workParent(const PtoToolchain &t) {
  std::error_code ec;
  return t.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(t.workDir);
}

CaseDir::CaseDir(const PtoToolchain &t, const std::string &prefix, const std::string &under)
    : ptoIsa(t.ptoIsa), keep(t.keepCaseDir) {
  const fs::path parent = under.empty() ? workParent(t) : fs::path(under);
  std::string pattern = (parent / (prefix + "-XXXXXX")).string();
  if (!parent.empty() && ::mkdtemp(pattern.data()))
    dir = pattern;
}

CaseDir::~CaseDir() {
  std::error_code ec;
  if (!dir.empty() && !keep)
    fs::remove_all(dir, ec);
}

BackendRun &CaseDir::finish(BackendRun &r) const {
  auto replaceAll = [&](const std::string &from, const std::string &to) {
    for (size_t at = r.message.find(from); !from.empty() && at != std::string::npos;
         at = r.message.find(from, at + to.size()))
      r.message.replace(at, from.size(), to);
  };
  replaceAll(dir + "/", "");
  if (!ptoIsa.empty()) {
    replaceAll(fs::path(ptoIsa).lexically_normal().string() + "/", "pto-isa/");
    replaceAll(ptoIsa + "/", "pto-isa/");
  }
  return r;
}

} // namespace npufuzz
