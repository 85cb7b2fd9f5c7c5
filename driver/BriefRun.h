//===- driver/BriefRun.h - A brief script run as its maintainer runs it -*- C++ -*-===//
//
// A report pastes what its brief script really prints (driver/IssueReport.h):
// the script is run once with its compiler's Python, as a maintainer would
// run it, and what it prints is kept without the paths of the machine it ran
// on. The same runs tell which of the finding's switches the bug needs: each
// one is left at the compiler's default in turn, and stays so when the bug
// still shows.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_BRIEFRUN_H
#define NPUFUZZ_DRIVER_BRIEFRUN_H

#include <optional>
#include <string>

namespace npufuzz {

/// What one run of a brief script gave.
struct BriefOutcome {
  int exitCode = -1;  ///< 1: the bug shows; 0: it does not; 2: the machine's fault
  std::string output; ///< stdout and stderr, the machine's paths scrubbed
};

/// Runs `script` (a Python script's text) with `python`; none, with the
/// reason in `error`, when it cannot start or does not end within its time.
std::optional<BriefOutcome> runBriefScript(const std::string &python, const std::string &script,
                                           std::string &error);

/// `text` without the machine's paths: a path into a Python install keeps
/// what follows `site-packages/`, the script itself is `repro.py`, any other
/// absolute path keeps its file name.
std::string withoutMachinePaths(const std::string &text, const std::string &scriptPath);

/// At most `lines` lines of `output`: its first (the versions the script
/// prints) and its last ones (an error's message ends a traceback).
std::string outputExcerpt(const std::string &output, size_t lines);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_BRIEFRUN_H
