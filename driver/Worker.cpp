//===- driver/Worker.cpp - A persistent forked worker ---------------------===//
//
// Requests and responses travel over one socket pair as frames: an 8-byte
// length, then the bytes. Stderr is a pipe; whatever the worker wrote there
// while serving a request is in the pipe before its response is on the
// socket, so draining the pipe after a response gives that request's stderr
// and nothing else.
//
//===----------------------------------------------------------------------===//
#include "driver/Worker.h"

#include "driver/IsolationSupport.h"

#include "backend/external/CommandGroups.h"

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz {

using namespace isolation;

Worker::Worker(Handler handler, const IsolationLimits &limits, unsigned maxRequests)
    : handler_(std::move(handler)), limits_(limits), maxRequests_(maxRequests ? maxRequests : 1) {}

Worker::~Worker() { endProcess(); }

bool Worker::spawn() {
  int sv[2], err[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return false;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return false;
  }
  groups_ = CommandGroups::create();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    for (int fd : {sv[0], sv[1], err[0], err[1]})
      ::close(fd);
    pid_ = -1;
    CommandGroups::destroy(groups_);
    groups_ = nullptr;
    return false;
  }
  if (pid_ == 0) {
    ::close(sv[0]);
    ::close(err[0]);
    enterChild(parent, limits_, err[1], groups_);
    serve(sv[1]);
  }
  ::close(sv[1]);
  ::close(err[1]);
  socket_ = sv[0];
  stderrFd_ = err[0];
  ::fcntl(stderrFd_, F_SETFL, O_NONBLOCK);
  served_ = 0;
  return true;
}

void Worker::serve(int socket) {
  for (;;) {
    uint64_t size = 0;
    if (!readAll(socket, reinterpret_cast<char *>(&size), sizeof size))
      ::_exit(0); // the parent closed the socket: retired
    std::string request(size, '\0');
    if (!readAll(socket, request.data(), size))
      ::_exit(0);
    armCpuBackstop(limits_);
    std::string response;
    try {
      response = handler_(request);
    } catch (const std::bad_alloc &) {
      static const char message[] = "npufuzz: out of memory (std::bad_alloc)\n";
      ::write(STDERR_FILENO, message, sizeof message - 1);
      ::_exit(3);
    }
    size = response.size();
    if (!writeAll(socket, reinterpret_cast<const char *>(&size), sizeof size) ||
        !writeAll(socket, response.data(), response.size()))
      ::_exit(0);
  }
}

void Worker::start(const std::string &request) {
  outcome_ = ChildOutcome();
  response_.clear();
  killed_ = KillReason::None;
  timeoutKill_.reset();
  busy_ = true;
  // One frame: the length, then the request.
  const uint64_t size = request.size();
  std::string frame(reinterpret_cast<const char *>(&size), sizeof size);
  frame += request;
  // An idle process can only have gone away if something killed it; then
  // one retry in a fresh process.
  int why = EAGAIN; // what refused the process, for the message
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (pid_ < 0 && !spawn()) {
      why = errno;
      break;
    }
    std::string stray; // nothing belongs to this request yet
    if (stderrFd_ >= 0)
      drain(stderrFd_, stray, 0);
    servedBefore_ = served_;
    watch_.start(pid_, limits_);
    if (sendAll(socket_, frame.data(), frame.size()))
      return;
    why = errno;
    endProcess();
  }
  outcome_.end = ChildOutcome::End::ForkFailed;
  outcome_.stderrText = std::strerror(why);
  busy_ = false;
}

bool Worker::poll() {
  if (!busy_)
    return true;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::recv(socket_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      response_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    break; // drained, or closed: a dying process is reaped below
  }
  if (stderrFd_ >= 0)
    drain(stderrFd_, outcome_.stderrText, limits_.maxStderrBytes);
  uint64_t size = 0;
  // Past the deadline the answer no longer counts: the process is being
  // ended (SIGABRT, then SIGKILL), and its death is the outcome.
  if (response_.size() >= sizeof size && killed_ == KillReason::None) {
    std::memcpy(&size, response_.data(), sizeof size);
    if (response_.size() - sizeof size >= size) {
      outcome_.payload = response_.substr(sizeof size, size);
      outcome_.end = ChildOutcome::End::Returned;
      outcome_.seconds = now() - watch_.startTime();
      if (stderrFd_ >= 0)
        drain(stderrFd_, outcome_.stderrText, limits_.maxStderrBytes);
      busy_ = false;
      if (++served_ >= maxRequests_)
        endProcess();
      return true;
    }
  }
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    endRequest(status);
    return true;
  }
  if (killed_ == KillReason::None)
    killed_ = watch_.check();
  if (killed_ == KillReason::Time)
    timeoutKill_.step(pid_, groups_);
  return false;
}

void Worker::endRequest(int status) {
  outcome_.seconds = now() - watch_.startTime();
  // The process is gone: take down what it started, then collect the rest
  // of its stderr.
  ::kill(-pid_, SIGKILL);
  if (groups_)
    groups_->killAll();
  drainUntilClosed(stderrFd_, outcome_.stderrText, limits_.maxStderrBytes, kDrainSeconds);
  classifyExit(status, killed_, outcome_);
  // Exiting with status 0 mid-request is not an answer.
  if (outcome_.end == ChildOutcome::End::Returned) {
    outcome_.end = ChildOutcome::End::Exited;
    outcome_.exitCode = 0;
  }
  forgetProcess();
  busy_ = false;
}

void Worker::kill() {
  if (pid_ > 0)
    ::kill(-pid_, SIGKILL), ::kill(pid_, SIGKILL);
  if (groups_)
    groups_->killAll();
}

void Worker::endProcess() {
  if (pid_ > 0) {
    kill();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  forgetProcess();
}

void Worker::forgetProcess() {
  pid_ = -1;
  if (socket_ >= 0)
    ::close(socket_);
  if (stderrFd_ >= 0)
    ::close(stderrFd_);
  socket_ = stderrFd_ = -1;
  served_ = 0;
  CommandGroups::destroy(groups_);
  groups_ = nullptr;
}

} // namespace npufuzz
