//===- driver/DirectoryLock.cpp - One writer for a campaign directory -----===//
#include "driver/DirectoryLock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace npufuzz {

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the flock
}

bool DirectoryLock::acquire(const std::string &dir, const std::string &what, std::string &error) {
  const std::string path = dir + "/lock";
  // A POSIX record lock belongs to this process alone: forked workers and
  // the tools they run do not inherit it, so it ends the moment this
  // process does, whatever its children still do. (Close-on-exec besides.)
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  struct flock whole = {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;
  if (::fcntl(fd, F_SETLK, &whole) != 0) {
    const int e = errno;
    char holder[256] = {};
    const ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
    ::close(fd);
    std::string who = n > 0 ? std::string(holder, static_cast<size_t>(n)) : std::string();
    while (!who.empty() && (who.back() == '\n' || who.back() == ' '))
      who.pop_back();
    if (e == EAGAIN || e == EACCES)
      error = dir + " is in use by another npufuzz (" + (who.empty() ? "pid unknown" : who) +
              "); wait for it to end, or give another -o directory";
    else
      error = "cannot lock " + path + ": " + std::strerror(e);
    return false;
  }
  const std::string me = "pid " + std::to_string(::getpid()) + ", npufuzz " + what + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  fd_ = fd;
  return true;
}

} // namespace npufuzz
