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

#include <cstddef>
#include <optional>
#include <string>

namespace npufuzz {

/// What one run of a brief script gave.
struct BriefOutcome {
  /// 1: the bug shows (a crash of the compiler in the script's process
  /// too); 0: it does not; 2: the machine's fault.
  int exitCode = -1;
  std::string output; ///< stdout and stderr, the machine's paths scrubbed
};

/// Runs `script` (a Python script's text) with `python`, unbuffered (its
/// versions line comes first); none, with the reason in `error`, when it
/// cannot start or does not end within its time.
std::optional<BriefOutcome> runBriefScript(const std::string &python, const std::string &script,
                                           std::string &error);

/// What a committed brief runs with: the compiler's Python for a Python
/// script; ptoas and pto-isa's include directory for one built on pto-isa
/// (its RUN line reads them as $PTOAS and $PTO_ISA).
struct BriefTools {
  std::string python, ptoas, ptoIsa;
};

/// The command of the first `RUN:` line of `text`, as lit writes it (%s the
/// file, %t a scratch file); empty when there is none.
std::string briefRunLine(const std::string &text);

/// `command` with lit's %s as `file` and %t as `scratch`.
std::string withRunPaths(std::string command, const std::string &file, const std::string &scratch);

/// Runs the brief `text`, named `name` (its extension says how): a `.py`
/// with `tools.python`, anything else by its RUN line with bash and
/// pipefail, whose failure is 1 (the bug shows) and a command not found 2.
std::optional<BriefOutcome> runBriefFile(const std::string &name, const std::string &text,
                                         const BriefTools &tools, std::string &error);

/// `text` without the machine's paths: a path into a Python install keeps
/// what follows `site-packages/` (or `dist-packages/`), the script itself is
/// `shownAs`, any other absolute path keeps its file name. "//" (a comment,
/// a URL's) and "/ " (a division) are no paths.
std::string withoutMachinePaths(const std::string &text, const std::string &scriptPath,
                                const std::string &shownAs = "repro.py");

/// The line of `output` that names the versions a brief ran with ("torch
/// 2.15.0 tvm 0.27.0"): its first of a name and a version number; empty
/// when there is none.
std::string versionsLine(const std::string &output);

/// At most `lines` lines of `output`: its first (the versions the script
/// prints) and its last ones (an error's message ends a traceback).
std::string outputExcerpt(const std::string &output, size_t lines);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_BRIEFRUN_H
