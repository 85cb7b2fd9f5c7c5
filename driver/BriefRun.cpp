//===- driver/BriefRun.cpp - A brief script run as its maintainer runs it ===//
#include "driver/BriefRun.h"

#include "ir/FileText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unistd.h>
#include <utility>
#include <vector>

namespace npufuzz {

namespace {
/// A compile of a large kernel by IREE or Inductor takes minutes on a busy
/// machine; a brief that takes longer has hung, which is no output to paste.
constexpr unsigned kBriefSeconds = 900;

bool endsPath(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '"' || c == '\'' || c == ':' || c == ',' ||
         c == ')' || c == '(' || c == '`' || c == ';' || c == '[' || c == ']' || c == '<' ||
         c == '>' || c == '{' || c == '}';
}
} // namespace

std::string withoutMachinePaths(const std::string &text, const std::string &scriptPath,
                                const std::string &shownAs) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    // A path starts at '/' after a delimiter (or the start of a line), and
    // names something: not "//" (a comment, a URL's), not "/ " (a ratio).
    const bool starts = text[at] == '/' &&
                        (at == 0 || endsPath(text[at - 1]) || text[at - 1] == '=') &&
                        at + 1 < text.size() &&
                        (std::isalnum(static_cast<unsigned char>(text[at + 1])) ||
                         text[at + 1] == '_' || text[at + 1] == '.' || text[at + 1] == '~');
    if (!starts) {
      out += text[at++];
      continue;
    }
    size_t end = at;
    while (end < text.size() && !endsPath(text[end]))
      ++end;
    const std::string path = text.substr(at, end - at);
    size_t packages = path.find("site-packages/");
    if (packages == std::string::npos)
      packages = path.find("dist-packages/");
    if (path == scriptPath)
      out += shownAs;
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

std::string versionsLine(const std::string &output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos && space > 0 && space + 1 < line.size() &&
        std::islower(static_cast<unsigned char>(line[0])) &&
        std::isdigit(static_cast<unsigned char>(line[space + 1])) &&
        line.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == space)
      return line;
  }
  return "";
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
  // A Python traceback's first line says what follows, however long.
  const size_t tail = all.size() - (lines - 3);
  const auto traceback =
      std::find_if(all.begin() + 1, all.begin() + tail, [](const std::string &l) {
        return l.rfind("Traceback (most recent call last):", 0) == 0;
      });
  text = all.front() + "\n" + (traceback != all.begin() + tail ? *traceback + "\n" : "") + "...\n";
  for (size_t k = tail; k < all.size(); ++k)
    text += all[k] + "\n";
  return text;
}

namespace {
/// Runs `argv` in a scratch directory that holds `text` as `name` (argv's
/// "%s" is that file, "%t" a file beside it), with `env` added to the
/// environment; what it printed, the file shown by its name.
std::optional<BriefOutcome> runInScratch(const std::string &name, const std::string &text,
                                         std::vector<std::string> argv,
                                         const std::vector<std::string> &env, std::string &error) {
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("brief", dir)) {
    error = "cannot make a directory to run the brief in: " + ec.message();
    return std::nullopt;
  }
  llvm::SmallString<128> path(dir), log(dir), scratch(dir);
  llvm::sys::path::append(path, name);
  llvm::sys::path::append(log, "npufuzz-output.txt");
  llvm::sys::path::append(scratch, "scratch");
  if (!writeRegularFile(path.str().str(), text, error, /*durable=*/false)) {
    llvm::sys::fs::remove_directories(dir);
    return std::nullopt;
  }
  for (std::string &a : argv)
    a = withRunPaths(a, path.str().str(), scratch.str().str());
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::vector<std::string> environment(env);
  for (char **e = environ; *e; ++e)
    environment.emplace_back(*e);
  std::vector<llvm::StringRef> envRefs(environment.begin(), environment.end());
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log),
                                                      llvm::StringRef(log)};
  std::string message;
  bool failed = false;
  const int code = llvm::sys::ExecuteAndWait(argv[0], args, envRefs, redirects, kBriefSeconds, 0,
                                             &message, &failed);
  BriefOutcome outcome;
  outcome.exitCode = code;
  std::string printed, unread;
  if (readFileBytes(log.str().str(), printed, unread))
    outcome.output = withoutMachinePaths(printed, path.str().str(), name);
  llvm::sys::fs::remove_directories(dir);
  // A crash of the compiler inside the script's own process is the bug
  // showing (a segfault of Inductor's or TVM's native code); not starting,
  // or running out of time, is no outcome at all.
  const bool timedOut = llvm::StringRef(message).contains("timed out");
  if (code == -2 && !timedOut) {
    outcome.exitCode = 1;
    outcome.output += "(its process ended by a signal: " + message + ")\n";
    return outcome;
  }
  if (failed || code < 0) {
    error = argv[0] +
            (timedOut ? " ran the brief out of its " + std::to_string(kBriefSeconds) + " s"
                      : std::string(" did not run the brief to its end")) +
            (message.empty() ? std::string() : ": " + message);
    return std::nullopt;
  }
  return outcome;
}
} // namespace

std::optional<BriefOutcome> runBriefScript(const std::string &python, const std::string &script,
                                           std::string &error) {
  return runInScratch("repro.py", script, {python, "-u", "%s"}, {}, error);
}

std::string withRunPaths(std::string command, const std::string &file, const std::string &scratch) {
  for (const auto &[from, to] : {std::pair<std::string, std::string>{"%s", file}, {"%t", scratch}})
    for (size_t at = 0; (at = command.find(from, at)) != std::string::npos; at += to.size())
      command.replace(at, from.size(), to);
  return command;
}

std::string briefRunLine(const std::string &text) {
  const size_t at = text.find("RUN: ");
  if (at == std::string::npos)
    return "";
  const size_t end = text.find('\n', at);
  return text.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5);
}

std::optional<BriefOutcome> runBriefFile(const std::string &name, const std::string &text,
                                         const BriefTools &tools, std::string &error) {
  if (llvm::StringRef(name).ends_with(".py"))
    return runInScratch(name, text, {tools.python, "-u", "%s"}, {}, error);
  const std::string command = briefRunLine(text);
  llvm::ErrorOr<std::string> bash = llvm::sys::findProgramByName("bash");
  if (command.empty() || !bash) {
    error = name + (command.empty() ? " has no RUN: line to run it by" : ": no bash to run it");
    return std::nullopt;
  }
  std::optional<BriefOutcome> outcome = runInScratch(
      name, text, {*bash, "-o", "pipefail", "-c", "cd \"$(dirname %s)\" && " + command},
      {"PTOAS=" + tools.ptoas, "PTO_ISA=" + tools.ptoIsa}, error);
  // A failed RUN line is the bug showing, whatever its code (a crash's
  // signal, FileCheck's 1); a command it names that is not there is not.
  if (outcome && outcome->exitCode != 0)
    outcome->exitCode = outcome->exitCode == 126 || outcome->exitCode == 127 ? 2 : 1;
  return outcome;
}

} // namespace npufuzz
