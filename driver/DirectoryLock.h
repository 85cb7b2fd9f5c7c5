//===- driver/DirectoryLock.h - One writer for a campaign directory -*- C++ -*-===//
//
// A campaign directory has one writer at a time: `fuzz -o D` and
// `merge -o D` hold DIR/lock (an exclusive POSIX record lock) while they write, so a
// second run into the same directory stops at once, naming the holder,
// instead of running the same seeds again and mixing their counts. The
// lock ends with its process, however it ends (kill -9 included): a stale
// lock file never blocks a resume.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_DIRECTORYLOCK_H
#define NPUFUZZ_DRIVER_DIRECTORYLOCK_H

#include <string>

namespace npufuzz {

class DirectoryLock {
public:
  DirectoryLock() = default;
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;

  /// Takes DIR/lock (DIR must exist) for `what` ("fuzz", "merge"), without
  /// waiting. False with `error` naming the holder's pid and command when
  /// another process holds it, or why the lock file cannot be made.
  bool acquire(const std::string &dir, const std::string &what, std::string &error);

private:
  int fd_ = -1;
};

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_DIRECTORYLOCK_H
