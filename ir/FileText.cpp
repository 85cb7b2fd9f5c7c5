//===- ir/FileText.cpp - Read a whole input file, or say why not ----------===//
#include "ir/FileText.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npufuzz {

bool readFileBytes(const std::string &path, std::string &bytes, std::string &error,
                   size_t maxBytes) {
  bytes.clear();
  auto fail = [&](const std::string &why) {
    error = path + ": " + why;
    return false;
  };
  if (path.empty())
    return fail("empty path");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st = {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return fail(std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fail("is a directory, not a file");
  }
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

} // namespace npufuzz
