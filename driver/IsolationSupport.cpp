//===- driver/IsolationSupport.cpp - Pieces shared by forked workers ------===//
#include "driver/IsolationSupport.h"

#include "backend/external/CommandGroups.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz::isolation {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
/// Moves `size` bytes with `step` (a read or a write), retrying on EINTR and
/// partial transfers. False at end of file or on an error.
template <typename Step> bool transferAll(Step step, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = step(done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}
} // namespace

bool sendAll(int socket, const char *data, size_t size) {
  return transferAll(
      [&](size_t done) { return ::send(socket, data + done, size - done, MSG_NOSIGNAL); }, size);
}

bool readAll(int fd, char *data, size_t size) {
  return transferAll([&](size_t done) { return ::read(fd, data + done, size - done); }, size);
}

void drain(int &fd, std::string &out, size_t limit) {
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (out.size() < limit)
        out.append(buf, std::min(static_cast<size_t>(n), limit - out.size()));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    ::close(fd);
    fd = -1;
    return;
  }
}

void drainUntilClosed(int &fd, std::string &out, size_t limit, double seconds) {
  const double until = now() + seconds;
  while (fd >= 0) {
    drain(fd, out, limit); // closes fd at end of file
    const double left = until - now();
    if (fd < 0 || left <= 0)
      break;
    struct pollfd p = {fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::ceil(left * 1000)));
  }
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

namespace {
/// A worker whose parent died (npufuzz killed, or stopped without reaping
/// it) takes its commands' groups with it, then dies of the signal.
void onParentDeath(int sig) {
  if (CommandGroups *groups = CommandGroups::inThisProcess())
    groups->killAll();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
} // namespace

void enterChild(pid_t parent, const IsolationLimits &limits, int stderrFd, CommandGroups *groups) {
  ::setpgid(0, 0);
  // A worker must not outlive its campaign: a SIGKILLed parent cannot
  // enforce the time limit. SIGTERM, not SIGKILL, so that the commands it
  // runs in groups of their own end with it.
  CommandGroups::useInThisProcess(groups);
  ::signal(SIGTERM, onParentDeath);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent)
    ::_exit(1);
  ::dup2(stderrFd, STDERR_FILENO);
  ::close(stderrFd);
  if (limits.addressSpaceBytes) {
    struct rlimit rl = {limits.addressSpaceBytes, limits.addressSpaceBytes};
    ::setrlimit(RLIMIT_AS, &rl);
  }
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  armCpuBackstop(limits);
}

void armCpuBackstop(const IsolationLimits &limits) {
  struct rusage usage = {};
  ::getrusage(RUSAGE_SELF, &usage);
  const rlim_t used = static_cast<rlim_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec);
  struct rlimit cpu = {};
  ::getrlimit(RLIMIT_CPU, &cpu);
  const double budget = limits.cpuSeconds > 0 ? limits.cpuSeconds : 2 * limits.wallSeconds;
  cpu.rlim_cur = std::min<rlim_t>(used + static_cast<rlim_t>(std::ceil(budget)) + 1, cpu.rlim_max);
  ::setrlimit(RLIMIT_CPU, &cpu);
}

void TimeoutKill::step(pid_t pid, const CommandGroups *groups) {
  if (pid <= 0)
    return;
  if (abortedAt_ == 0 && groups && groups->anyRunning()) {
    // The command's time ran out, not npufuzz's: no stack of its own to
    // show (the caller kills the command's groups when it reaps the process).
    abortedAt_ = now();
    ::kill(-pid, SIGKILL), ::kill(pid, SIGKILL);
    return;
  }
  if (abortedAt_ == 0) {
    abortedAt_ = now();
    ::kill(pid, SIGABRT);
    return;
  }
  if (now() - abortedAt_ >= kDumpGraceSeconds)
    ::kill(-pid, SIGKILL), ::kill(pid, SIGKILL);
}

void classifyExit(int status, KillReason killed, ChildOutcome &outcome) {
  if (killed == KillReason::Time) {
    outcome.end = ChildOutcome::End::TimedOut;
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    // The CPU backstop of armCpuBackstop: out of time, not a crash.
    outcome.end = ChildOutcome::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.end = ChildOutcome::End::Signalled;
    outcome.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.end = ChildOutcome::End::Returned;
  } else {
    outcome.end = ChildOutcome::End::Exited;
    outcome.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
}

uint64_t residentBytes(pid_t pid) {
  // /proc/PID/statm: size resident shared text lib data dt, in pages.
  const std::string path = "/proc/" + std::to_string(pid) + "/statm";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2)
    return 0;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return resident * page;
}

void LimitWatch::start(pid_t pid, const IsolationLimits &limits) {
  pid_ = pid;
  start_ = lastGrowth_ = now();
  deadline_ = start_ + limits.wallSeconds;
  graceEnd_ = deadline_ + std::max(limits.wallSeconds, 10.0);
  // A persistent worker already holds what earlier requests left; only
  // growth beyond that counts.
  peak_ = residentBytes(pid);
}

KillReason LimitWatch::check() {
  const double t = now();
  // Growth matters only in the last second before the deadline and after
  // it: a case that ends sooner costs no /proc reads.
  if (t < deadline_ - 1.0)
    return KillReason::None;
  const uint64_t rss = residentBytes(pid_);
  // Growth is a new peak by more than noise (a page or two of stack).
  if (rss > peak_ + (1u << 20)) {
    peak_ = rss;
    lastGrowth_ = t;
  }
  if (t <= deadline_)
    return KillReason::None;
  const bool growing = t - lastGrowth_ < 1.0;
  return growing && t < graceEnd_ ? KillReason::None : KillReason::Time;
}

} // namespace npufuzz::isolation
