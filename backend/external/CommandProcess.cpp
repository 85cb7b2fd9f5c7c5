//===- backend/external/CommandProcess.cpp - Starting a command safely ----===//
#include "backend/external/CommandProcess.h"
#include "backend/external/CommandGroups.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace npufuzz {

std::string resolveProgram(const std::string &name) {
  if (name.find('/') != std::string::npos)
    return name;
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return name;
}

void commandEnvironment(const ExternalToolchain &cmd, std::vector<std::string> &variables,
                        std::vector<char *> &pointers) {
  variables.clear();
  for (char **e = environ; *e; ++e) {
    const std::string v = *e;
    if (std::none_of(cmd.environment.begin(), cmd.environment.end(),
                     [&](const auto &kv) { return v.rfind(kv.first + "=", 0) == 0; }))
      variables.push_back(v);
  }
  for (const auto &[name, value] : cmd.environment)
    variables.push_back(name + "=" + value);
  pointers.clear();
  for (std::string &v : variables)
    pointers.push_back(v.data());
  pointers.push_back(nullptr);
}

void enterCommandChild(const ExternalToolchain &cmd) {
  // Own group, so that a timeout also ends the command's children; noted
  // from here too, so that a worker killed before its own note takes it.
  ::setpgid(0, 0);
  CommandGroups::noteRunning(::getpid());
#ifdef __linux__
  // A campaign may SIGKILL this worker; the command must not outlive it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (cmd.addressSpaceBytes) {
    struct rlimit rl = {cmd.addressSpaceBytes, cmd.addressSpaceBytes};
    ::setrlimit(RLIMIT_AS, &rl);
  }
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
}

int execError(int reportFd, pid_t pid) {
  int error = 0;
  ssize_t got = 0;
  while ((got = ::read(reportFd, &error, sizeof error)) < 0 && errno == EINTR) {
  }
  ::close(reportFd);
  if (got != static_cast<ssize_t>(sizeof error))
    return 0;
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return error ? error : EIO;
}

std::string readTail(const std::string &path, size_t max, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > max ? s.substr(s.size() - max) : s;
}

} // namespace npufuzz
