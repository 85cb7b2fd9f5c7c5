//===- ir/FileText.cpp - Read and write whole files, or say why not --------===//
#include "ir/FileText.h"

#include <cerrno>
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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st = {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return fail(std::strerror(e));
  }
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

bool writeFileAtomically(const std::string &path, const std::string &bytes, std::string &error) {
  // The temporary is named by the pid, so two processes never share one.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const std::string &what, int e) {
    error = what + ": " + std::strerror(e);
    ::unlink(tmp.c_str());
    return false;
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  if (!writeAll(fd, bytes.data(), bytes.size()) || ::fsync(fd) != 0) {
    const int e = errno ? errno : EIO;
    ::close(fd);
    return fail(path, e);
  }
  if (::close(fd) != 0)
    return fail(path, errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(path, errno);
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

} // namespace npufuzz
