//===- backend/external/PersistentCommand.h - One adapter, many cases -*- C++ -*-===//
//
// The persistent form of the external protocol (docs/external-backends.md):
// the command starts once and serves case after case, so that what it pays
// at start-up (a Python interpreter importing torch: seconds) is paid once
// per process rather than once per case, as in AFL++'s persistent mode and
// libFuzzer's fork mode. npufuzz writes one case directory per line on the
// command's stdin; the command answers each with one line `done N` on its
// stdout, N being the exit status a one-shot run would have had, after
// writing the outputs and the case's diagnostics (DIR/stderr.txt) as a
// one-shot run would. The end of a case maps to the same verdicts.
//
// A command may first say `ready` on a line of its own, once its start-up
// is done (the case loop of tools/adapters/ does, after importing its
// compiler): how long the start took is then measured (CommandEnd::
// startSeconds), the start is limited by the start allowance on top of the
// case's limit, and the case's own limit counts from `ready`. A command that
// never says it is timed as one whose start and first case share the
// allowance and the limit.
//
// A command that dies mid-case, or does not answer within the time limit, ends
// that case (crash or hang) and is started afresh for the next one; after
// `casesPerProcess` cases it is replaced, so state it accumulates is bounded.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EXTERNAL_PERSISTENTCOMMAND_H
#define NPUFUZZ_BACKEND_EXTERNAL_PERSISTENTCOMMAND_H

#include "backend/external/ExternalBackend.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace npufuzz {

class PersistentCommand {
public:
  PersistentCommand() = default;
  ~PersistentCommand();
  PersistentCommand(const PersistentCommand &) = delete;
  PersistentCommand &operator=(const PersistentCommand &) = delete;

  /// Runs the case in `dir` on the command `cmd.argv` (started, or
  /// restarted, as needed). The end is that of a one-shot run: exited with
  /// the answered status and DIR/stderr.txt, or signalled, timed out or
  /// not started, with what the process printed during this case.
  CommandEnd run(const ExternalToolchain &cmd, const std::string &dir);

  /// Cases the current process has served (0: none running).
  unsigned served() const { return served_; }
  /// Processes started so far.
  unsigned started() const { return started_; }

  /// Ends the process, if any (it sees end of file on stdin, then is
  /// killed).
  void stop();

private:
  bool start(const ExternalToolchain &cmd, std::string &error);
  /// In a process forked from the one that started the command (a
  /// campaign's worker forked after a case ran in the parent), the state is
  /// the parent's: its process, pipes and log. Two processes writing cases
  /// into one adapter would read each other's answers, so the child lets go
  /// of them, killing and removing nothing, and starts its own.
  void forgetInherited();
  std::string stderrSince(size_t offset) const;

  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  pid_t owner_ = -1; ///< the process that started pid_
  int toChild_ = -1, fromChild_ = -1;
  int logFd_ = -1;         ///< the process's own stderr, an unlinked file
  std::string stderrPath_; ///< that file, read through /proc/self/fd
  std::string pending_;    ///< bytes read past the last answer line
  bool saidReady_ = false; ///< the process said `ready`, or answered a case
  unsigned served_ = 0, started_ = 0;
};

/// The process-wide persistent command of this worker process.
PersistentCommand &workerPersistentCommand();

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EXTERNAL_PERSISTENTCOMMAND_H
