//===- ir/FileText.cpp - Read and write whole files, or say why not --------===//
#include "ir/FileText.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npufuzz {

namespace {

/// What a file that is not a regular one is, in words.
const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "is a directory, not a file";
  if (S_ISFIFO(mode))
    return "is a FIFO, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "is a device, not a regular file";
  if (S_ISSOCK(mode))
    return "is a socket, not a regular file";
  return "is not a regular file";
}

/// `path` opened with `flags` (O_CLOEXEC added), and what it is; -1 with
/// `why` when it cannot be opened or stat'ed.
int openAndStat(const std::string &path, int flags, struct stat &st, std::string &why) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  if (::fstat(fd, &st) != 0) {
    why = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}
} // namespace

bool writeAll(int fd, const char *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool isRegularFile(const std::string &path, std::string &error) {
  struct stat st = {};
  if (path.empty()) {
    error = "empty path";
    return false;
  }
  if (::stat(path.c_str(), &st) != 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": " + kindOf(st.st_mode);
    return false;
  }
  return true;
}

bool readFileBytes(const std::string &path, std::string &bytes, std::string &error,
                   size_t maxBytes) {
  bytes.clear();
  auto fail = [&](const std::string &why) {
    error = path + ": " + why;
    return false;
  };
  if (path.empty())
    return fail("empty path");
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  struct stat st = {};
  std::string why;
  const int fd = openAndStat(path, O_RDONLY | O_NONBLOCK, st, why);
  if (fd < 0)
    return fail(why);
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(kindOf(st.st_mode));
  }
  if (static_cast<uint64_t>(st.st_size) > maxBytes) {
    ::close(fd);
    return fail("larger than " + std::to_string(maxBytes) + " bytes");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return fail(std::strerror(e));
    }
    if (n == 0)
      break;
    if (bytes.size() + static_cast<size_t>(n) > maxBytes) {
      ::close(fd);
      return fail("larger than " + std::to_string(maxBytes) + " bytes");
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

namespace {

/// Writes `bytes` to a temporary beside `path` and renames it over `path`,
/// so a reader sees the old file or the new one, never a part. With
/// `durable` the data, then the rename, are synced to disk first.
bool replaceAtomically(const std::string &path, const std::string &bytes, std::string &error,
                       bool durable) {
  // The temporary is named by the pid, so two processes never share one.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](int e) {
    error = path + ": " + std::strerror(e);
    ::unlink(tmp.c_str());
    return false;
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  // Cleared first: a write that stops short without an error leaves errno
  // as it was, and the message must not be some earlier call's.
  errno = 0;
  if (!writeAll(fd, bytes.data(), bytes.size()) || (durable && ::fsync(fd) != 0)) {
    const int e = errno ? errno : EIO;
    ::close(fd);
    return fail(e);
  }
  // Some file systems (NFS) report a full disk only here.
  if (::close(fd) != 0)
    return fail(errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(errno);
  if (!durable)
    return true;
  // The rename itself is durable once the directory is synced.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash ? slash : 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

/// Follows the symlinks `path` ends in to the path of what they lead to, in
/// `target` (which may not exist: a dangling link's target is created).
/// Renaming over `target` replaces the file and keeps the links; the links
/// among the directories need no following, a rename goes through them.
bool followLinks(const std::string &path, std::string &target, std::string &error) {
  target = path;
  // As many links as Linux follows before it gives up with ELOOP.
  for (int hops = 0; hops <= 40; ++hops) {
    struct stat st = {};
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT)
        return true;
      error = path + ": " + std::strerror(errno);
      return false;
    }
    if (!S_ISLNK(st.st_mode))
      return true;
    char buf[4096];
    const ssize_t n = ::readlink(target.c_str(), buf, sizeof buf);
    if (n < 0) {
      error = path + ": " + std::strerror(errno);
      return false;
    }
    if (static_cast<size_t>(n) == sizeof buf) {
      error = path + ": " + std::strerror(ENAMETOOLONG);
      return false;
    }
    const std::string to(buf, static_cast<size_t>(n));
    // A relative link is relative to the directory the link is in.
    const size_t slash = target.rfind('/');
    if ((!to.empty() && to[0] == '/') || slash == std::string::npos)
      target = to;
    else
      target = target.substr(0, slash + 1) + to;
  }
  error = path + ": " + std::strerror(ELOOP);
  return false;
}

/// Writes `bytes` to the character device `path` as a shell's redirection
/// would: opened (never created or replaced), written and closed, each
/// checked.
bool writeDevice(const std::string &path, const std::string &bytes, std::string &error) {
  auto fail = [&](const std::string &why) {
    error = path + ": " + why;
    return false;
  };
  // O_NONBLOCK: a serial line would wait in open() for a carrier, and a
  // FIFO put in the device's place meanwhile would wait for a reader; both
  // fail instead. O_NOCTTY: a terminal does not become npufuzz's.
  struct stat st = {};
  std::string why;
  const int fd = openAndStat(path, O_WRONLY | O_NOCTTY | O_NONBLOCK, st, why);
  if (fd < 0)
    return fail(why);
  if (!S_ISCHR(st.st_mode)) {
    ::close(fd);
    return fail(S_ISREG(st.st_mode) ? "was replaced while being opened" : kindOf(st.st_mode));
  }
  // Written blocking, as any tool writes a terminal: without it a device
  // that is slow to drain would fail with EAGAIN.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  errno = 0;
  if (!writeAll(fd, bytes.data(), bytes.size())) {
    const int e = errno ? errno : EIO;
    ::close(fd);
    return fail(std::strerror(e));
  }
  if (::close(fd) != 0)
    return fail(std::strerror(errno));
  return true;
}

/// What writeRegularFile and writeOutputPath share; with `devices` a
/// character device is written instead of refused.
bool writeThrough(const std::string &path, const std::string &bytes, std::string &error,
                  bool durable, bool devices) {
  if (path.empty()) {
    error = "empty path";
    return false;
  }
  // stat follows every link, /dev/stdout and /proc/self/fd/N included, to
  // what a write to `path` would reach.
  struct stat st = {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  if (exists && devices && S_ISCHR(st.st_mode))
    return writeDevice(path, bytes, error);
  // npufuzz's own stdout (`-o /dev/stdout` with stdout a file, appended to
  // or not): written where stdout writes, as a shell's redirection would,
  // never replaced under it.
  struct stat out = {};
  if (exists && devices && ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev &&
      out.st_ino == st.st_ino) {
    std::fflush(stdout);
    errno = 0;
    if (writeAll(STDOUT_FILENO, bytes.data(), bytes.size()))
      return true;
    error = path + ": " + std::strerror(errno ? errno : EIO);
    return false;
  }
  // Refused before anything opens it: a FIFO would block without a reader,
  // and a rename would put a regular file in place of the node.
  if (exists && !S_ISREG(st.st_mode)) {
    error = path + ": " + kindOf(st.st_mode);
    return false;
  }
  std::string target;
  if (!followLinks(path, target, error))
    return false;
  // What the links lead to must be what stat saw: /proc/self/fd/N of a
  // deleted file reads "/x (deleted)", a path that leads elsewhere or nowhere.
  struct stat at = {};
  if (::lstat(target.c_str(), &at) == 0) {
    if (!S_ISREG(at.st_mode)) {
      error = path + ": " + kindOf(at.st_mode);
      return false;
    }
    if (exists && (at.st_dev != st.st_dev || at.st_ino != st.st_ino)) {
      error = path + ": leads to a file no path names (deleted?)";
      return false;
    }
  } else if (exists) {
    error = path + ": leads to a file no path names (deleted?)";
    return false;
  }
  if (replaceAtomically(target, bytes, error, durable))
    return true;
  if (target != path)
    error = path + " -> " + error;
  return false;
}

} // namespace

bool writeFileAtomically(const std::string &path, const std::string &bytes, std::string &error) {
  return replaceAtomically(path, bytes, error, /*durable=*/true);
}

bool writeRegularFile(const std::string &path, const std::string &bytes, std::string &error,
                      bool durable) {
  return writeThrough(path, bytes, error, durable, /*devices=*/false);
}

bool writeOutputPath(const std::string &path, const std::string &bytes, std::string &error) {
  return writeThrough(path, bytes, error, /*durable=*/true, /*devices=*/true);
}

} // namespace npufuzz
