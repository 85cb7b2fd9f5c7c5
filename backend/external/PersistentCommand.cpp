//===- backend/external/PersistentCommand.cpp - One adapter, many cases ---===//
#include "backend/external/PersistentCommand.h"

#include "backend/external/CommandGroups.h"
#include "backend/external/CommandProcess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;

size_t fileSize(const std::string &path) {
  struct stat st = {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}
} // namespace

PersistentCommand::~PersistentCommand() { stop(); }

PersistentCommand &workerPersistentCommand() {
  static PersistentCommand command;
  return command;
}

void PersistentCommand::forgetInherited() {
  if (toChild_ >= 0)
    ::close(toChild_);
  if (fromChild_ >= 0)
    ::close(fromChild_);
  if (logFd_ >= 0)
    ::close(logFd_);
  logFd_ = -1;
  pid_ = owner_ = -1;
  toChild_ = fromChild_ = -1;
  stderrPath_.clear();
  pending_.clear();
  served_ = 0;
}

void PersistentCommand::stop() {
  if (pid_ > 0 && owner_ != ::getpid())
    forgetInherited();
  if (pid_ > 0) {
    // End of file on stdin asks it to finish; the group kill makes sure.
    if (toChild_ >= 0)
      ::close(toChild_);
    toChild_ = -1;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    CommandGroups::noteEnded(pid_);
  }
  if (toChild_ >= 0)
    ::close(toChild_);
  if (fromChild_ >= 0)
    ::close(fromChild_);
  if (logFd_ >= 0)
    ::close(logFd_);
  logFd_ = -1;
  pid_ = -1;
  toChild_ = fromChild_ = -1;
  stderrPath_.clear();
  pending_.clear();
  served_ = 0;
}

bool PersistentCommand::start(const ExternalToolchain &cmd, std::string &error) {
  stop();
  if (cmd.argv.empty()) {
    error = "empty external command";
    return false;
  }
  std::error_code ec;
  const std::filesystem::path parent = cmd.workDir.empty()
                                           ? std::filesystem::temp_directory_path(ec)
                                           : std::filesystem::path(cmd.workDir);
  std::string pattern = (parent / "npufuzz-adapter-XXXXXX.log").string();
  const int errFd = parent.empty() ? -1 : ::mkstemps(pattern.data(), 4);
  if (errFd < 0) {
    error = "cannot create the adapter's log under " +
            (parent.empty() ? std::string("the temporary directory") : parent.string()) + ": " +
            std::strerror(errno) + " (set TMPDIR to a writable directory)";
    return false;
  }
  // Unlinked at once, read through its descriptor: a worker that ends
  // without stop() (killed, or _exit at its last case) leaves no file
  // behind in the temporary directory.
  ::unlink(pattern.c_str());
  ::fcntl(errFd, F_SETFD, FD_CLOEXEC);
  logFd_ = errFd;
  stderrPath_ = "/proc/self/fd/" + std::to_string(errFd);
  // stdin is a socket so that writing to a command that died is an error
  // (MSG_NOSIGNAL), not a SIGPIPE that would take this worker down.
  // execReport: the child's errno when its exec fails; closed by a
  // successful exec, so start() knows at once whether the command runs.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, execReport[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
      ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(execReport, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], execReport[0], execReport[1], errFd})
      if (fd >= 0)
        ::close(fd);
    logFd_ = -1;
    stderrPath_.clear();
    return false;
  }
  const std::string program = resolveProgram(cmd.argv[0]);
  std::vector<char *> args;
  for (const std::string &a : cmd.argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> variables;
  std::vector<char *> envp;
  commandEnvironment(cmd, variables, envp);
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork failed: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], execReport[0], execReport[1], errFd})
      ::close(fd);
    logFd_ = -1;
    stderrPath_.clear();
    return false;
  }
  if (pid == 0) {
    ::close(execReport[0]);
    enterCommandChild(cmd);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(errFd, 2);
    ::execve(program.c_str(), args.data(), envp.data());
    const int e = errno;
    (void)!::write(execReport[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  CommandGroups::noteRunning(pid);
  ::close(in[0]);
  ::close(out[1]);
  ::close(execReport[1]);
  if (const int execErrno = execError(execReport[0], pid)) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(logFd_);
    logFd_ = -1;
    stderrPath_.clear();
    error = "cannot execute " + program + ": " + std::strerror(execErrno);
    CommandGroups::noteEnded(pid);
    return false;
  }
  pid_ = pid;
  owner_ = ::getpid();
  saidReady_ = false;
  toChild_ = in[1];
  fromChild_ = out[0];
  argv_ = cmd.argv;
  ++started_;
  return true;
}

std::string PersistentCommand::stderrSince(size_t offset) const {
  return stderrPath_.empty() ? std::string() : readTail(stderrPath_, 64 << 10, offset);
}

CommandEnd PersistentCommand::run(const ExternalToolchain &cmd, const std::string &dir) {
  CommandEnd end;
  const auto began = Clock::now();
  if (pid_ > 0 && owner_ != ::getpid())
    forgetInherited();
  if (pid_ > 0 && (argv_ != cmd.argv || served_ >= std::max(1u, cmd.casesPerProcess)))
    stop();
  // What the process printed before this case belongs to earlier cases; a
  // process started for this case has printed nothing of theirs (its log
  // is new), so all of it is this case's, whenever it was written.
  size_t logOffset = 0;
  const bool startedForThisCase = pid_ < 0;
  if (pid_ < 0) {
    std::string error;
    if (!start(cmd, error)) {
      end.kind = CommandEnd::Kind::SpawnFailed;
      end.stderrText = error;
      return end;
    }
  } else {
    logOffset = fileSize(stderrPath_);
  }
  const std::string line = dir + "\n";
  bool sent = true;
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = ::send(toChild_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      sent = false; // it is gone: see below how
      break;
    }
    done += static_cast<size_t>(n);
  }
  // Wait for one answer line, the end of the process, or the deadline. A
  // process started for this case has its start allowance on top of the
  // case's limit; once it says `ready`, the case has its limit from then on,
  // so that however slow the start was on a busy machine, it never eats
  // into the case's own time.
  auto deadline = began + std::chrono::seconds(cmd.timeoutSeconds +
                                               (startedForThisCase ? cmd.startSeconds : 0));
  std::string answer;
  bool closed = !sent;
  while (!closed) {
    const size_t eol = pending_.find('\n');
    if (eol != std::string::npos) {
      answer = pending_.substr(0, eol);
      pending_.erase(0, eol + 1);
      if (!saidReady_ && answer == kPersistentReadyLine) {
        saidReady_ = true;
        if (startedForThisCase) {
          const auto now = Clock::now();
          end.startSeconds = std::chrono::duration<double>(now - began).count();
          deadline = now + std::chrono::seconds(cmd.timeoutSeconds);
        }
        continue;
      }
      // An adapter that answers without saying `ready` first is of the
      // older protocol: its answer counts, and `ready` is no longer taken.
      saidReady_ = true;
      break;
    }
    int waitMs = 100;
    if (cmd.timeoutSeconds) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        stop();
        end.kind = CommandEnd::Kind::TimedOut;
        end.seconds = std::chrono::duration<double>(Clock::now() - began).count();
        return end;
      }
      waitMs = static_cast<int>(std::min<long long>(left, 100));
    }
    struct pollfd pfd = {fromChild_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, waitMs);
    if (r < 0 && errno != EINTR)
      closed = true;
    if (r <= 0)
      continue;
    char buf[4096];
    const ssize_t n = ::read(fromChild_, buf, sizeof buf);
    if (n > 0)
      pending_.append(buf, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      closed = true;
  }
  end.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  if (closed) {
    // The process died during this case: reap it and say how, with what it
    // printed meanwhile.
    end.stderrText = stderrSince(logOffset);
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    const pid_t dead = pid_;
    pid_ = -1; // reaped: stop() must not wait for it
    ::kill(-dead, SIGKILL);
    CommandGroups::noteEnded(dead);
    stop();
    if (r == dead && WIFSIGNALED(status)) {
      end.kind = CommandEnd::Kind::Signalled;
      end.signal = WTERMSIG(status);
    } else {
      end.kind = CommandEnd::Kind::Exited;
      end.exitCode = r == dead && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
      // Exiting, even with 0, instead of answering is not success.
      if (end.exitCode == 0)
        end.exitCode = 1;
      end.stderrText += "\nnpufuzz: the persistent command exited without answering";
    }
    return end;
  }
  ++served_;
  int code = 0;
  if (std::sscanf(answer.c_str(), "done %d", &code) != 1) {
    // Its log first: stop() closes it.
    end.stderrText = "npufuzz: the persistent command answered '" + answer.substr(0, 200) +
                     "', not 'done N'\n" + stderrSince(logOffset);
    stop(); // out of step: it cannot be trusted with the next case
    end.kind = CommandEnd::Kind::ProtocolError;
    end.exitCode = 1;
    return end;
  }
  end.kind = CommandEnd::Kind::Exited;
  end.exitCode = code;
  // The case's own diagnostics, then anything the process printed meanwhile.
  end.stderrText = readTail(dir + "/stderr.txt", cmd.maxStderrBytes) + stderrSince(logOffset);
  return end;
}

} // namespace npufuzz
