//===- backend/external/CommandGroups.cpp - Commands' groups, for the parent ===//
#include "backend/external/CommandGroups.h"

#include <csignal>
#include <sys/mman.h>

namespace npufuzz {

namespace {
/// This process's table: set in a forked isolated process, else none.
CommandGroups *current = nullptr;
} // namespace

CommandGroups *CommandGroups::create() {
  void *p = ::mmap(nullptr, sizeof(CommandGroups), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  // Zero-filled: no group in any slot.
  return p == MAP_FAILED ? nullptr : static_cast<CommandGroups *>(p);
}

void CommandGroups::destroy(CommandGroups *groups) {
  if (groups)
    ::munmap(groups, sizeof(CommandGroups));
}

void CommandGroups::useInThisProcess(CommandGroups *groups) { current = groups; }

CommandGroups *CommandGroups::inThisProcess() { return current; }

void CommandGroups::noteRunning(pid_t pgid) {
  if (!current || pgid <= 0)
    return;
  for (volatile pid_t &slot : current->slots_)
    if (slot == 0) {
      slot = pgid;
      return;
    }
  // More commands at once than slots: the group's own limit still ends it.
}

void CommandGroups::noteEnded(pid_t pgid) {
  if (!current || pgid <= 0)
    return;
  for (volatile pid_t &slot : current->slots_)
    if (slot == pgid)
      slot = 0;
}

bool CommandGroups::anyRunning() const {
  for (const volatile pid_t &slot : slots_)
    if (slot > 0)
      return true;
  return false;
}

void CommandGroups::killAll() {
  for (volatile pid_t &slot : slots_) {
    const pid_t pgid = slot;
    if (pgid > 0)
      ::kill(-pgid, SIGKILL);
    slot = 0;
  }
}

} // namespace npufuzz
