//===- backend/external/CommandGroups.h - Commands' groups, for the parent -===//
//
// A command runs in a process group of its own, so that its limit ends the
// command and whatever it started. The process that starts it may itself be
// killed first (a worker at its case limit, or when npufuzz stops); the
// command's group must not outlive it. So the groups a process has running
// are kept in a table that the process which forked it shares (an anonymous
// shared mapping made before the fork): that parent kills them with the
// process, and a process whose parent dies kills them itself on its way out.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EXTERNAL_COMMANDGROUPS_H
#define NPUFUZZ_BACKEND_EXTERNAL_COMMANDGROUPS_H

#include <sys/types.h>

namespace npufuzz {

/// The table of one isolated process's running command groups.
class CommandGroups {
public:
  /// A table in memory shared with processes forked after this; null when
  /// the mapping is refused (then there is nothing to kill).
  static CommandGroups *create();
  static void destroy(CommandGroups *groups);

  /// In the forked process: the table its commands are noted in.
  static void useInThisProcess(CommandGroups *groups);
  /// The group `pgid` runs, or has ended (a no-op without a table).
  static void noteRunning(pid_t pgid);
  static void noteEnded(pid_t pgid);
  /// This process's table (none outside an isolated process).
  static CommandGroups *inThisProcess();

  /// SIGKILLs every group in the table and empties it. Async-signal-safe.
  void killAll();
  /// Whether some group is noted running: a process out of time is then
  /// waiting on a command (or a persistent adapter), not stuck in its own
  /// code.
  bool anyRunning() const;

private:
  static constexpr int kSlots = 16;
  volatile pid_t slots_[kSlots];
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EXTERNAL_COMMANDGROUPS_H
