//===- driver/IsolationSupport.h - Pieces shared by forked workers -*- C++ -*-===//
//
// What a one-shot child (`Child`) and a persistent worker (`Worker`) both do:
// limit and detach the forked process, and move bytes through pipes without
// blocking the parent. Internal to driver/.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_ISOLATIONSUPPORT_H
#define NPUFUZZ_DRIVER_ISOLATIONSUPPORT_H

#include "driver/Isolation.h"
#include "ir/FileText.h" // writeAll

#include <cstdint>
#include <string>
#include <sys/types.h>

namespace npufuzz {
class CommandGroups;
}

namespace npufuzz::isolation {

/// Monotonic seconds.
double now();

/// `writeAll` for a socket whose reader may be gone: false instead of
/// SIGPIPE.
bool sendAll(int socket, const char *data, size_t size);

/// Reads exactly `size` bytes (blocking). False at end of file or error.
bool readAll(int fd, char *data, size_t size);

/// Drains what `fd` has now into `out` (bytes beyond `limit` are dropped);
/// closes it and sets it to -1 at end of file.
void drain(int &fd, std::string &out, size_t limit);
/// Reads a non-blocking `fd` until every writer has closed it, for at most
/// `seconds`: a process that escaped its group's kill and still holds the
/// write end costs that wait, never a hang. Closes `fd`.
void drainUntilClosed(int &fd, std::string &out, size_t limit, double seconds);
/// How long a dead process's pipes are read for what it left in them.
constexpr double kDrainSeconds = 5;

/// In a freshly forked child: its own process group (a kill takes any
/// grandchildren too), death with the parent `parent`, no core files, the
/// address-space limit, and stderr into `stderrFd`; the commands it starts
/// are noted in `groups`, shared with the parent. Exits if the parent is
/// already gone.
void enterChild(pid_t parent, const IsolationLimits &limits, int stderrFd, CommandGroups *groups);

/// Sets the CPU-time backstop of the calling process to what it has used so
/// far plus twice the wall limit: a worker whose parent was SIGKILLed cannot
/// be timed out, and must still end.
void armCpuBackstop(const IsolationLimits &limits);

/// What a waitpid status means, for an outcome whose payload is settled.
void classifyExit(int status, KillReason killed, ChildOutcome &outcome);

/// Resident memory of process `pid` in bytes (0 if it cannot be read).
uint64_t residentBytes(pid_t pid);

} // namespace npufuzz::isolation

#endif // NPUFUZZ_DRIVER_ISOLATIONSUPPORT_H
