//===- driver/Isolation.h - Run work in a forked, limited child -*- C++ -*-===//
//
// Fork-server style: the parent initialises once (MLIR registries, the JIT's
// target) and forks children to do the work, so that a segfault, abort, LLVM
// fatal error, endless loop or memory blow-up in the compiler under test ends
// only that child. The parent gets the child's payload, or how it died, and
// what it printed on stderr. A `Child` runs one piece of work in a fresh
// fork; `Worker` (driver/Worker.h) serves many from one.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_ISOLATION_H
#define NPUFUZZ_DRIVER_ISOLATION_H

#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>

namespace npufuzz {

class CommandGroups;

struct IsolationLimits {
  /// Killed (SIGKILL) after this, unless its memory is still growing
  /// towards the limit (see isolation::LimitWatch).
  double wallSeconds = 30;
  /// RLIMIT_AS of the child; 0: none.
  uint64_t addressSpaceBytes = 8ull << 30;
  /// CPU seconds a request may use (RLIMIT_CPU, a backstop for a child
  /// the parent cannot watch); 0: twice the wall limit.
  double cpuSeconds = 0;
  size_t maxStderrBytes = 64 << 10; ///< stderr kept (the tail beyond is dropped)
};

namespace isolation {

/// Why the parent killed a child, if it did.
enum class KillReason : uint8_t { None, Time };

/// The time and memory limits of one piece of work, enforced from the
/// parent. Memory is watched as well as limited by RLIMIT_AS: filling memory
/// is slow on a fresh machine (first-touch page faults), so a blow-up can
/// still be growing when the wall limit passes. A process that reached a
/// new peak of resident memory within the last second is therefore given
/// grace past its deadline, up to max(wall, 10 s) more, to reach the memory
/// limit (RLIMIT_AS) and end as an oom rather than a hang.
class LimitWatch {
public:
  void start(pid_t pid, const IsolationLimits &limits);
  /// Samples memory; says whether the process must be killed now.
  KillReason check();
  double startTime() const { return start_; }
  uint64_t peakBytes() const { return peak_; }

private:
  pid_t pid_ = -1;
  double start_ = 0, deadline_ = 0, graceEnd_ = 0, lastGrowth_ = 0;
  uint64_t peak_ = 0;
};

/// Ends a process that ran out of time in two steps: SIGABRT first, so that
/// LLVM's signal handler prints its stack and what the in-process MLIR run
/// was doing (a pass that loops forever is named like one that crashes);
/// SIGKILL to its whole group once it has had `kDumpGraceSeconds` to do so.
/// A process waiting on a command (one is noted in `groups`) is stopped on
/// purpose, for the command's time: SIGKILL at once, with no crash report
/// of npufuzz's own stack on its stderr.
class TimeoutKill {
public:
  static constexpr double kDumpGraceSeconds = 3;
  /// Call on every poll past the deadline; kills the group when due.
  void step(pid_t pid, const CommandGroups *groups);
  void reset() { abortedAt_ = 0; }

private:
  double abortedAt_ = 0;
};

} // namespace isolation

struct ChildOutcome {
  enum class End : uint8_t {
    Returned,  ///< the work returned; `payload` holds its result
    Signalled, ///< died from `signal` (abort, segfault, ...)
    Exited,    ///< exited with `exitCode` without returning a payload
    TimedOut,  ///< killed after the wall-time limit
    ForkFailed,
  };
  End end = End::Returned;
  int signal = 0;
  int exitCode = 0;
  std::string payload;
  std::string stderrText;
  double seconds = 0;
};

/// A running child; poll it until done.
class Child {
public:
  /// Forks and runs `work` in the child; its return value is the payload.
  Child(const std::function<std::string()> &work, const IsolationLimits &limits);
  ~Child();
  Child(const Child &) = delete;
  Child &operator=(const Child &) = delete;

  /// Reads what is available without blocking; kills the child past its
  /// deadline. True once the child has ended and `outcome()` is final.
  bool poll();
  /// The file descriptors to wait on (payload and stderr pipes; -1 if closed).
  int payloadFd() const { return payloadFd_; }
  int stderrFd() const { return stderrFd_; }
  const ChildOutcome &outcome() const { return outcome_; }
  /// Kills the child now (used when a campaign stops).
  void kill();

private:
  void finish(int status);
  int pid_ = -1;
  CommandGroups *groups_ = nullptr; ///< the groups of the commands it runs
  int payloadFd_ = -1, stderrFd_ = -1;
  size_t maxStderr_ = 0;
  bool done_ = false;
  isolation::KillReason killed_ = isolation::KillReason::None;
  isolation::TimeoutKill timeoutKill_;
  isolation::LimitWatch watch_;
  ChildOutcome outcome_;
};

/// Runs `work` in a child and waits for it.
ChildOutcome runIsolated(const std::function<std::string()> &work, const IsolationLimits &limits);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_ISOLATION_H
