//===- driver/Isolation.cpp - Run work in a forked, limited child ---------===//
#include "driver/Isolation.h"
#include "driver/IsolationSupport.h"

#include "backend/external/CommandGroups.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz {

using namespace isolation;

Child::Child(const std::function<std::string()> &work, const IsolationLimits &limits)
    : maxStderr_(limits.maxStderrBytes) {
  // Close-on-exec: a command the child starts, and whatever that command
  // leaves running, must not hold the pipes open after the child is gone.
  int payloadPipe[2], stderrPipe[2];
  if (::pipe2(payloadPipe, O_CLOEXEC) != 0) {
    outcome_.end = ChildOutcome::End::ForkFailed;
    outcome_.stderrText = std::strerror(errno);
    done_ = true;
    return;
  }
  if (::pipe2(stderrPipe, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(payloadPipe[0]);
    ::close(payloadPipe[1]);
    outcome_.end = ChildOutcome::End::ForkFailed;
    outcome_.stderrText = std::strerror(e);
    done_ = true;
    return;
  }
  groups_ = CommandGroups::create();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int e = errno;
    for (int fd : {payloadPipe[0], payloadPipe[1], stderrPipe[0], stderrPipe[1]})
      ::close(fd);
    outcome_.end = ChildOutcome::End::ForkFailed;
    outcome_.stderrText = std::strerror(e);
    done_ = true;
    return;
  }
  if (pid_ == 0) {
    ::close(payloadPipe[0]);
    ::close(stderrPipe[0]);
    enterChild(parent, limits, stderrPipe[1], groups_);
    std::string payload;
    try {
      payload = work();
    } catch (const std::bad_alloc &) {
      ::write(STDERR_FILENO, "npufuzz: out of memory (std::bad_alloc)\n", 40);
      ::_exit(3);
    }
    writeAll(payloadPipe[1], payload.data(), payload.size());
    ::close(payloadPipe[1]);
    ::_exit(0);
  }
  watch_.start(pid_, limits);
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
  CommandGroups::destroy(groups_);
}

void Child::kill() {
  if (pid_ > 0 && !done_) {
    ::kill(-pid_, SIGKILL), ::kill(pid_, SIGKILL);
    if (groups_)
      groups_->killAll();
  }
}

void Child::finish(int status) {
  done_ = true;
  // Whatever it started dies with it (a process that timed out may have
  // died of the SIGABRT alone, before its group got the SIGKILL).
  ::kill(-pid_, SIGKILL);
  if (groups_)
    groups_->killAll();
  outcome_.seconds = now() - watch_.startTime();
  // Collect what is still buffered in the pipes.
  drainUntilClosed(payloadFd_, outcome_.payload, SIZE_MAX, kDrainSeconds);
  drainUntilClosed(stderrFd_, outcome_.stderrText, maxStderr_, kDrainSeconds);
  classifyExit(status, killed_, outcome_);
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
  if (killed_ == KillReason::None)
    killed_ = watch_.check();
  if (killed_ == KillReason::Time)
    timeoutKill_.step(pid_, groups_);
  return false;
}

ChildOutcome runIsolated(const std::function<std::string()> &work, const IsolationLimits &limits) {
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
