//===- driver/IsolationSupport.cpp - Pieces shared by forked workers ------===//
#include "driver/IsolationSupport.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz::isolation {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
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

bool writeAll(int fd, const char *data, size_t size) {
  return transferAll([&](size_t done) { return ::write(fd, data + done, size - done); }, size);
}

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

void enterChild(pid_t parent, const IsolationLimits &limits, int stderrFd) {
  ::setpgid(0, 0);
  // A worker must not outlive its campaign: a SIGKILLed parent cannot
  // enforce the time limit.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
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
  cpu.rlim_cur = std::min<rlim_t>(
      used + static_cast<rlim_t>(std::ceil(2 * limits.wallSeconds)) + 1, cpu.rlim_max);
  ::setrlimit(RLIMIT_CPU, &cpu);
}

void classifyExit(int status, bool killedForTime, ChildOutcome &outcome) {
  if (killedForTime) {
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

} // namespace npufuzz::isolation
