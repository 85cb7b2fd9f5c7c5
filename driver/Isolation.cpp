//===- driver/Isolation.cpp - Run work in a forked, limited child ---------===//
#include "driver/Isolation.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz {

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Writes all of `data` to `fd`, retrying on EINTR and short writes.
void writeAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += static_cast<size_t>(n);
  }
}

/// Drains what `fd` has now into `out` (up to `limit` bytes kept); closes and
/// sets fd to -1 at end of file.
void drain(int &fd, std::string &out, size_t limit) {
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
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
} // namespace

Child::Child(const std::function<std::string()> &work, const IsolationLimits &limits)
    : maxStderr_(limits.maxStderrBytes) {
  start_ = now();
  deadline_ = start_ + limits.wallSeconds;
  int payloadPipe[2], stderrPipe[2];
  if (::pipe(payloadPipe) != 0) {
    outcome_.end = ChildOutcome::End::ForkFailed;
    done_ = true;
    return;
  }
  if (::pipe(stderrPipe) != 0) {
    ::close(payloadPipe[0]);
    ::close(payloadPipe[1]);
    outcome_.end = ChildOutcome::End::ForkFailed;
    done_ = true;
    return;
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    for (int fd : {payloadPipe[0], payloadPipe[1], stderrPipe[0], stderrPipe[1]})
      ::close(fd);
    outcome_.end = ChildOutcome::End::ForkFailed;
    done_ = true;
    return;
  }
  if (pid_ == 0) {
    // Child: own process group (so a kill takes any grandchildren too),
    // limits, stderr into the pipe, run, hand back the payload.
    ::setpgid(0, 0);
    // A worker must not outlive its campaign (a SIGKILLed parent cannot
    // enforce the time limit): die with the parent, and stop after twice
    // the wall limit of CPU time whatever happens.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(1);
    const rlim_t cpuSeconds = static_cast<rlim_t>(2 * limits.wallSeconds) + 1;
    struct rlimit cpu = {cpuSeconds, cpuSeconds + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::close(payloadPipe[0]);
    ::close(stderrPipe[0]);
    ::dup2(stderrPipe[1], STDERR_FILENO);
    ::close(stderrPipe[1]);
    if (limits.addressSpaceBytes) {
      struct rlimit rl = {limits.addressSpaceBytes, limits.addressSpaceBytes};
      ::setrlimit(RLIMIT_AS, &rl);
    }
    struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    std::string payload;
    try {
      payload = work();
    } catch (const std::bad_alloc &) {
      ::write(STDERR_FILENO, "npufuzz: out of memory (std::bad_alloc)\n", 40);
      ::_exit(3);
    }
    writeAll(payloadPipe[1], payload);
    ::close(payloadPipe[1]);
    ::_exit(0);
  }
  ::close(payloadPipe[1]);
  ::close(stderrPipe[1]);
  payloadFd_ = payloadPipe[0];
  stderrFd_ = stderrPipe[0];
  ::fcntl(payloadFd_, F_SETFL, O_NONBLOCK);
  ::fcntl(stderrFd_, F_SETFL, O_NONBLOCK);
}

Child::~Child() {
  if (!done_) {
    kill();
    while (!poll()) {
    }
  }
  if (payloadFd_ >= 0)
    ::close(payloadFd_);
  if (stderrFd_ >= 0)
    ::close(stderrFd_);
}

void Child::kill() {
  if (pid_ > 0 && !done_)
    ::kill(-pid_, SIGKILL), ::kill(pid_, SIGKILL);
}

void Child::finish(int status) {
  done_ = true;
  outcome_.seconds = now() - start_;
  // Collect what is still buffered in the pipes.
  if (payloadFd_ >= 0) {
    ::fcntl(payloadFd_, F_SETFL, 0);
    drain(payloadFd_, outcome_.payload, SIZE_MAX);
  }
  if (stderrFd_ >= 0) {
    ::fcntl(stderrFd_, F_SETFL, 0);
    drain(stderrFd_, outcome_.stderrText, maxStderr_);
  }
  if (killedForTime_) {
    outcome_.end = ChildOutcome::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome_.end = ChildOutcome::End::Signalled;
    outcome_.signal = WTERMSIG(status);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome_.end = ChildOutcome::End::Returned;
  } else {
    outcome_.end = ChildOutcome::End::Exited;
    outcome_.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
}

bool Child::poll() {
  if (done_)
    return true;
  if (payloadFd_ >= 0)
    drain(payloadFd_, outcome_.payload, SIZE_MAX);
  if (stderrFd_ >= 0)
    drain(stderrFd_, outcome_.stderrText, maxStderr_);
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    finish(status);
    return true;
  }
  if (now() > deadline_ && !killedForTime_) {
    killedForTime_ = true;
    kill();
  }
  return false;
}

ChildOutcome runIsolated(const std::function<std::string()> &work,
                         const IsolationLimits &limits) {
  Child child(work, limits);
  while (!child.poll()) {
    struct pollfd fds[2];
    int n = 0;
    for (int fd : {child.payloadFd(), child.stderrFd()})
      if (fd >= 0)
        fds[n++] = {fd, POLLIN, 0};
    ::poll(fds, n, 20);
  }
  return child.outcome();
}

} // namespace npufuzz
