//===- driver/Worker.h - A persistent forked worker -------------*- C++ -*-===//
//
// A fork-server worker that serves many requests. It is forked once from the
// initialised parent and answers requests one at a time over a socket, so
// the cost of a fork, and of the copy-on-write faults that warm MLIR state
// takes in a fresh child, is paid once per process rather than once per
// case. Each request still gets its own wall-time limit, CPU backstop and
// stderr, and ends in the same `ChildOutcome` a one-shot `Child` gives: when
// the worker dies or is killed for time, the request in flight is the one
// that did it, and the next request forks a fresh process.
//
// A worker that has served cases carries their effects (heap state, MLIR
// uniquing, JIT engines), so a campaign re-runs a failure from a used worker
// in a fresh one before recording it (see `servedBefore()`), and retires a
// process after a bounded number of requests.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_WORKER_H
#define NPUFUZZ_DRIVER_WORKER_H

#include "driver/Isolation.h"

#include <functional>
#include <string>
#include <sys/types.h>

namespace npufuzz {

class Worker {
public:
  /// Runs in the worker process: a request in, a payload out.
  using Handler = std::function<std::string(const std::string &request)>;

  /// `maxRequests` bounds what one process serves before it is replaced (1
  /// gives a fresh process per request).
  Worker(Handler handler, const IsolationLimits &limits, unsigned maxRequests);
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  /// Starts a request, forking a process if none is alive. Only when idle.
  void start(const std::string &request);
  bool busy() const { return busy_; }
  /// Reads what is available without blocking and kills the process past
  /// the request's deadline. True once the request has ended and
  /// `outcome()` is final.
  bool poll();
  const ChildOutcome &outcome() const { return outcome_; }
  /// How many requests the process that served the last one had completed
  /// before it: 0 means it ran in a fresh process.
  unsigned servedBefore() const { return servedBefore_; }
  /// File descriptors to wait on while busy (-1 if closed).
  int responseFd() const { return socket_; }
  int stderrFd() const { return stderrFd_; }
  /// Kills the process; a request in flight ends as killed.
  void kill();

private:
  bool spawn();
  void serve(int socket);      // the worker process's loop; never returns
  void endProcess();           // kills and reaps the process, if any
  void endRequest(int status); // the process died during a request
  void forgetProcess();        // closes its descriptors; it has been reaped

  Handler handler_;
  IsolationLimits limits_;
  unsigned maxRequests_;
  pid_t pid_ = -1;
  CommandGroups *groups_ = nullptr; ///< the groups of the commands it runs
  int socket_ = -1, stderrFd_ = -1;
  unsigned served_ = 0, servedBefore_ = 0;
  bool busy_ = false;
  isolation::KillReason killed_ = isolation::KillReason::None;
  isolation::TimeoutKill timeoutKill_;
  isolation::LimitWatch watch_;
  std::string response_;
  ChildOutcome outcome_;
};

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_WORKER_H
