//===- driver/BriefRun.cpp - A brief script run as its maintainer runs it ===//
#include "driver/BriefRun.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace npufuzz {

namespace {
/// A compile of a large kernel by IREE or Inductor takes minutes on a busy
/// machine; a brief that takes longer has hung, which is no output to paste.
constexpr unsigned kBriefSeconds = 900;

bool endsPath(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '"' || c == '\'' || c == ':' || c == ',' ||
         c == ')' || c == '(' || c == '`' || c == ';';
}
} // namespace

std::string withoutMachinePaths(const std::string &text, const std::string &scriptPath) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    // A path starts at '/' after a delimiter (or the start of a line).
    const bool starts =
        text[at] == '/' && (at == 0 || endsPath(text[at - 1]) || text[at - 1] == '=');
    if (!starts) {
      out += text[at++];
      continue;
    }
    size_t end = at;
    while (end < text.size() && !endsPath(text[end]))
      ++end;
    const std::string path = text.substr(at, end - at);
    const size_t packages = path.find("site-packages/");
    if (path == scriptPath)
      out += "repro.py";
    else if (packages != std::string::npos)
      out += path.substr(packages);
    else if (path.find('/', 1) == std::string::npos)
      out += path; // "/" or "/x": not a machine's directory
    else
      out += llvm::sys::path::filename(path).str();
    at = end;
  }
  return out;
}

std::string outputExcerpt(const std::string &output, size_t lines) {
  std::vector<std::string> all;
  size_t from = 0;
  while (from < output.size()) {
    size_t end = output.find('\n', from);
    if (end == std::string::npos)
      end = output.size();
    all.push_back(output.substr(from, end - from));
    from = end + 1;
  }
  while (!all.empty() && all.back().find_first_not_of(" \t") == std::string::npos)
    all.pop_back();
  std::string text;
  if (all.size() <= lines || lines < 3) {
    for (const std::string &l : all)
      text += l + "\n";
    return text;
  }
  text = all.front() + "\n...\n";
  for (size_t k = all.size() - (lines - 2); k < all.size(); ++k)
    text += all[k] + "\n";
  return text;
}

std::optional<BriefOutcome> runBriefScript(const std::string &python, const std::string &script,
                                           std::string &error) {
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("npufuzz-brief", dir)) {
    error = "cannot make a directory to run the brief in: " + ec.message();
    return std::nullopt;
  }
  llvm::SmallString<128> path(dir), log(dir);
  llvm::sys::path::append(path, "repro.py");
  llvm::sys::path::append(log, "output.txt");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      error = std::string(path.str()) + ": " + ec.message();
      return std::nullopt;
    }
    os << script;
  }
  const std::string pythonPath = python;
  const std::string scriptPath = path.str().str();
  const llvm::StringRef args[] = {pythonPath, scriptPath};
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log),
                                                      llvm::StringRef(log)};
  std::string message;
  bool failed = false;
  const int code = llvm::sys::ExecuteAndWait(pythonPath, args, std::nullopt, redirects,
                                             kBriefSeconds, 0, &message, &failed);
  BriefOutcome outcome;
  outcome.exitCode = code;
  if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text = llvm::MemoryBuffer::getFile(log))
    outcome.output = withoutMachinePaths((*text)->getBuffer().str(), scriptPath);
  llvm::sys::fs::remove_directories(dir);
  if (failed || code < 0) {
    error = python + " did not run the brief to its end" +
            (message.empty() ? std::string() : ": " + message);
    return std::nullopt;
  }
  return outcome;
}

} // namespace npufuzz
