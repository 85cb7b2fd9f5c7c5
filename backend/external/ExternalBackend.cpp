//===- backend/external/ExternalBackend.cpp - Any toolchain via files -----===//
#include "backend/external/ExternalBackend.h"

#include "backend/MemoryError.h"
#include "backend/emit/PtoEmitter.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/external/CommandGroups.h"
#include "backend/external/CommandProcess.h"
#include "backend/external/PersistentCommand.h"
#include "ir/FileText.h"
#include "ir/Npy.h"
#include "ir/Storage.h"
#include "ir/Text.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace npufuzz {

namespace {
namespace fs = std::filesystem;

bool writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += ch;
    else if (ch == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else
      out += ch;
  }
  return out + "\"";
}

std::string jsonInts(const std::vector<int64_t> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string valueName(const Case &c, ValueId v) {
  return c.values[v].name.empty() ? std::to_string(v) : c.values[v].name;
}

std::string tensorJson(const Case &c, ValueId v, const std::string &file) {
  const TensorType &t = c.typeOf(v);
  std::string valid = "null";
  if (t.valid)
    valid = "{\"rows\": " + std::to_string(t.valid->rows) +
            ", \"cols\": " + std::to_string(t.valid->cols) +
            ", \"dynamic\": " + (t.valid->dynamic ? "true" : "false") + "}";
  return "{\"name\": " + jsonString(valueName(c, v)) + ", \"file\": " + jsonString(file) +
         ", \"dtype\": " + jsonString(std::string(dtypeName(t.dtype))) +
         ", \"npy_descr\": " + jsonString(std::string(npyDescr(t.dtype))) +
         ", \"shape\": " + jsonInts(t.shape) + ", \"valid_shape\": " + valid + "}";
}

std::string kernelArgJson(const KernelArg &a) {
  switch (a.kind) {
  case KernelArg::Kind::Input:
    return "{\"kind\": \"input\", \"index\": " + std::to_string(a.index) + "}";
  case KernelArg::Kind::Output:
    return "{\"kind\": \"output\", \"index\": " + std::to_string(a.index) + "}";
  case KernelArg::Kind::ValidDim: break;
  }
  return "{\"kind\": \"valid_dim\", \"op\": " + std::to_string(a.index) +
         ", \"dim\": " + std::to_string(a.dim) + ", \"value\": " + std::to_string(a.value) + "}";
}

/// The first line of `text` containing `needle`, trimmed; empty if none.
std::string lineWith(const std::string &text, const std::string &needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos)
    return "";
  const size_t begin = text.rfind('\n', at);
  const size_t end = text.find('\n', at);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end == std::string::npos ? std::string::npos
                                              : end - (begin == std::string::npos ? 0 : begin + 1));
}

/// The exception line of the last Python traceback ("ValueError: ..."):
/// the first non-indented line after the last "Traceback" header.
std::string pythonException(const std::string &text) {
  const size_t tb = text.rfind("Traceback (most recent call last):");
  if (tb == std::string::npos)
    return "";
  std::stringstream lines(text.substr(tb));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line))
    if (!line.empty() && line[0] != ' ')
      return line;
  return "";
}

/// The first line of an assertion failure (`Assertion `x' failed.`).
std::string assertionLine(const std::string &text) {
  for (size_t at = text.find("Assertion "); at != std::string::npos;
       at = text.find("Assertion ", at + 1)) {
    const std::string line = lineWith(text.substr(at), "Assertion ");
    if (line.find(" failed") != std::string::npos)
      return line;
  }
  return "";
}

/// An MLIR-style diagnostic (`file:3:5: error: ...`).
std::string diagnosticLine(const std::string &text) {
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("error: ", 0) == 0 || line.find(": error: ") != std::string::npos)
      return line;
  return "";
}
} // namespace

/// A command's details.txt is kept with a finding: a traceback and a
/// kernel's generated code, not a dump of everything.
constexpr size_t kMaxDetailsBytes = 4 << 20;
/// What an adapter asked for its compiler's coverage writes
/// (tools/adapters/compiler_coverage.py).
constexpr const char *kCompilerCoverageFile = "compiler-coverage.json";

CommandEnd runCommand(const ExternalToolchain &cmd, const std::vector<std::string> &argv,
                      const std::string &stdoutPath, const std::string &stderrPath) {
  CommandEnd end;
  if (argv.empty()) {
    end.kind = CommandEnd::Kind::SpawnFailed;
    end.stderrText = "empty external command";
    return end;
  }
  // Everything the child needs is built before fork.
  const std::string program = resolveProgram(argv[0]);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> variables;
  std::vector<char *> envp;
  commandEnvironment(cmd, variables, envp);
  const auto start = std::chrono::steady_clock::now();
  // The child reports a failed exec through a close-on-exec pipe: the
  // parent reads nothing when the exec succeeded and the child's errno when
  // it did not, whatever the command later prints or exits with.
  int execReport[2] = {-1, -1};
  if (::pipe2(execReport, O_CLOEXEC) != 0) {
    end.kind = CommandEnd::Kind::SpawnFailed;
    end.stderrText = std::string("cannot make a pipe: ") + std::strerror(errno);
    return end;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    end.kind = CommandEnd::Kind::SpawnFailed;
    end.stderrText = std::string("fork failed: ") + std::strerror(errno);
    ::close(execReport[0]);
    ::close(execReport[1]);
    return end;
  }
  if (pid == 0) {
    ::close(execReport[0]);
    enterCommandChild(cmd);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(stderrPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in >= 0)
      ::dup2(in, 0);
    if (out >= 0)
      ::dup2(out, 1);
    if (err >= 0)
      ::dup2(err, 2);
    if (in < 0 || out < 0 || err < 0) {
      const int e = errno;
      (void)!::write(execReport[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execve(program.c_str(), args.data(), envp.data());
    const int e = errno;
    (void)!::write(execReport[1], &e, sizeof e);
    const char msg[] = "npufuzz: cannot execute the external command\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(execReport[1]);
  ::setpgid(pid, pid); // also from here: no race with the child's own call
  CommandGroups::noteRunning(pid);
  if (const int execErrno = execError(execReport[0], pid)) {
    CommandGroups::noteEnded(pid);
    end.kind = CommandEnd::Kind::SpawnFailed;
    end.stderrText = "cannot execute " + program + ": " + std::strerror(execErrno);
    return end;
  }
  const auto deadline = start + std::chrono::seconds(cmd.timeoutSeconds);
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR))
      break;
    if (cmd.timeoutSeconds && std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      end.kind = CommandEnd::Kind::TimedOut;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL); // leftover grandchildren of the group
  CommandGroups::noteEnded(pid);
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  end.stderrText = readTail(stderrPath, cmd.maxStderrBytes);
  if (end.kind == CommandEnd::Kind::TimedOut)
    return end;
  if (WIFSIGNALED(status)) {
    end.kind = CommandEnd::Kind::Signalled;
    end.signal = WTERMSIG(status);
  } else {
    end.exitCode = WEXITSTATUS(status);
  }
  return end;
}

namespace {
/// The signal an end died of: its own, or a child's that a shell or Python
/// wrapper reported as exit 128 + N; 0 for none.
int endSignal(const CommandEnd &end) {
  if (end.kind == CommandEnd::Kind::Signalled)
    return end.signal;
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode > 128 && end.exitCode < 160)
    return end.exitCode - 128;
  return 0;
}
} // namespace

bool endedInMemoryError(const CommandEnd &end) {
  const int signal = endSignal(end);
  return signal != 0 && diedOfMemoryError(signal, end.stderrText);
}

BackendRun::Status classifyEnd(const CommandEnd &end, std::string &message) {
  using Status = BackendRun::Status;
  const std::string &err = end.stderrText;
  auto withHeadline = [&](Status s, const std::string &headline) {
    message = headline + "\n" + err;
    return s;
  };
  // npufuzz's environment, not the command's fault: never a finding.
  if (end.kind == CommandEnd::Kind::SpawnFailed)
    return withHeadline(Status::EnvironmentError,
                        "cannot start the external command: " + err.substr(0, err.find('\n')));
  if (end.kind == CommandEnd::Kind::TimedOut)
    return withHeadline(Status::TimedOut, "external command exceeded its time limit");
  // An adapter out of its protocol says nothing of the compiler it drives.
  if (end.kind == CommandEnd::Kind::ProtocolError) {
    std::string first = err.substr(0, err.find('\n'));
    if (first.rfind("npufuzz: ", 0) == 0)
      first.erase(0, 9);
    return withHeadline(Status::EnvironmentError, "external command out of protocol: " + first);
  }

  const std::string assertion = assertionLine(err);
  std::string sanitizer = lineWith(err, "ERROR: AddressSanitizer");
  if (sanitizer.empty())
    sanitizer = lineWith(err, "runtime error: ");
  const std::string exception = pythonException(err);
  // RLIMIT_AS shows up as allocation failures, not as a signal of its own.
  if (exception.rfind("MemoryError", 0) == 0 || err.find("std::bad_alloc") != std::string::npos ||
      err.find("out of memory") != std::string::npos ||
      err.find("Cannot allocate memory") != std::string::npos)
    return withHeadline(Status::OutOfMemory, "external command ran out of memory");
  if (!assertion.empty())
    return withHeadline(Status::Crashed, assertion);
  if (!sanitizer.empty())
    return withHeadline(Status::Crashed, sanitizer);
  // A memory error is one crash whichever way it showed (backend/MemoryError.h).
  if (endedInMemoryError(end))
    return withHeadline(Status::Crashed, "external command died of a memory error (signal " +
                                             std::to_string(endSignal(end)) + ")");
  if (end.kind == CommandEnd::Kind::Signalled)
    return withHeadline(Status::Crashed, "external command killed by signal " +
                                             std::to_string(end.signal) + " (" +
                                             strsignal(end.signal) + ")");
  if (end.exitCode == 127 && err.find("npufuzz: cannot execute") != std::string::npos)
    return withHeadline(Status::EnvironmentError, "cannot execute the external command");
  if (end.exitCode == kExternalExitUnsupported || exception.rfind("NotImplementedError", 0) == 0) {
    std::string reason = exception.empty() ? err.substr(0, err.find('\n')) : exception;
    return withHeadline(Status::Unsupported, reason.empty() ? "unsupported" : reason);
  }
  if (end.exitCode == kExternalExitEnvironment)
    return withHeadline(Status::EnvironmentError, "the external command could not run the case: " +
                                                      err.substr(0, err.find('\n')));
  if (end.exitCode == kExternalExitSimulatorFault)
    return withHeadline(Status::SimulatorFault, err.substr(0, err.find('\n')));
  if (end.exitCode == kExternalExitOutOfBoundsWrite)
    return withHeadline(Status::OutOfBoundsWrite, err.substr(0, err.find('\n')));
  if (end.exitCode == kExternalExitOutOfBoundsRead)
    return withHeadline(Status::OutOfBoundsRead, err.substr(0, err.find('\n')));
  const std::string diagnostic = diagnosticLine(err);
  if (end.exitCode == kExternalExitCompileError || !diagnostic.empty())
    return withHeadline(Status::CompileError,
                        diagnostic.empty() ? err.substr(0, err.find('\n')) : diagnostic);
  if (!exception.empty())
    return withHeadline(Status::RuntimeError, "python: " + exception);
  // A shell or Python wrapper reports a child's signal N as 128 + N.
  if (const int signal = endSignal(end); signal != 0)
    return withHeadline(Status::Crashed, "external command exited with " +
                                             std::to_string(end.exitCode) + " (signal " +
                                             std::to_string(signal) + ")");
  return withHeadline(Status::RuntimeError,
                      "external command exited with status " + std::to_string(end.exitCode));
}

bool writeCaseDirectory(const std::string &dir, const Case &c, const MlirKernel &kernel,
                        const std::vector<std::string> &pipeline,
                        const std::vector<TensorData> &inputs, std::string &error,
                        const std::vector<std::pair<std::string, bool>> &switches,
                        PyTorchForm form) {
  auto file = [&](const std::string &name) { return dir + "/" + name; };
  bool ok = writeText(file("case.npf"), printCase(c));
  std::string files = "\"case\": \"case.npf\"", refused;
  auto program = [&](const char *key, const char *name, bool emitted, const std::string &text,
                     const std::string &reason) {
    if (emitted) {
      ok &= writeText(file(name), text);
      files += std::string(", \"") + key + "\": \"" + name + "\"";
    } else {
      refused +=
          std::string(refused.empty() ? "" : ", ") + "\"" + key + "\": " + jsonString(reason);
    }
  };
  program("mlir", "kernel.mlir", !kernel.text.empty(), kernel.text,
          "the MLIR emitter cannot express the case");
  std::string text, reason;
  bool emitted = emitPyTorch(c, text, reason, form);
  program("pytorch", "program.py", emitted, text, reason);
  text.clear(), reason.clear();
  emitted = emitPto(c, text, reason);
  program("pto", "kernel.pto", emitted, text, reason);

  std::string ins, outs, args, passes;
  const std::vector<size_t> weights = weightInputs(c);
  size_t k = 0;
  for (const Op &op : c.ops) {
    if (op.kind != OpKind::Input)
      continue;
    const std::string name = "in" + std::to_string(k) + ".npy";
    if (k >= inputs.size() || !writeNpy(file(name), fromTensorData(inputs[k]), error))
      return error = error.empty() ? "too few inputs" : error, false;
    std::string json = tensorJson(c, op.results[0], name);
    // What a model would hold as a parameter (the Inductor adapter's
    // freezing switch makes it one).
    if (std::find(weights.begin(), weights.end(), k) != weights.end())
      json.insert(json.size() - 1, ", \"weight\": true");
    ins += std::string(k ? ",\n    " : "") + json;
    ++k;
  }
  for (size_t o = 0; o < c.outputs.size(); ++o)
    outs += std::string(o ? ",\n    " : "") +
            tensorJson(c, c.outputs[o], "out" + std::to_string(o) + ".npy");
  for (size_t a = 0; a < kernel.args.size(); ++a)
    args += std::string(a ? ", " : "") + kernelArgJson(kernel.args[a]);
  for (size_t p = 0; p < pipeline.size(); ++p)
    passes += std::string(p ? ", " : "") + jsonString(pipeline[p]);
  std::string switchList;
  for (size_t w = 0; w < switches.size(); ++w)
    switchList += std::string(w ? ", " : "") + jsonString(switches[w].first) + ": " +
                  (switches[w].second ? "true" : "false");
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(caseHash(c)));
  const std::string manifest =
      "{\n  \"protocol\": \"npufuzz-external\",\n  \"version\": 1,\n"
      "  \"case_hash\": \"" +
      std::string(hash) +
      "\",\n"
      "  \"files\": {" +
      files +
      "},\n"
      "  \"unsupported\": {" +
      refused +
      "},\n"
      "  \"inputs\": [\n    " +
      ins +
      "\n  ],\n"
      "  \"outputs\": [\n    " +
      outs +
      "\n  ],\n"
      "  \"mlir\": {\"entry\": " +
      jsonString(kernel.entry) + ", \"pipeline\": [" + passes + "], \"args\": [" + args +
      "], \"returns_outputs\": " + (kernel.returnsOutputs ? "true" : "false") +
      "},\n  \"switches\": {" + switchList + "}\n}\n";
  ok &= writeText(file("manifest.json"), manifest);
  if (!ok)
    error = "cannot write the case directory " + dir;
  return ok;
}

bool compilerCoverageAsked() {
  const char *v = std::getenv(kCompilerCoverageVariable);
  return v && std::string(v) == "on";
}

void readCompilerCoverage(const std::string &dir, BackendRun &r) {
  // Parsed by the driver (driver/CompilerCoverage.h); a file that cannot be
  // read turns the coverage off for the case, never the case into a finding.
  const std::string path = dir + "/" + kCompilerCoverageFile;
  std::error_code ec;
  std::string unread;
  if (fs::exists(path, ec) && !readFileBytes(path, r.compilerCoverage, unread))
    r.compilerCoverage =
        "{\"off\": \"cannot read the adapter's " + std::string(kCompilerCoverageFile) + "\"}";
}

BackendRun runExternal(const ExternalToolchain &cmd, const Case &c, const MlirKernel &kernel,
                       const std::vector<std::string> &pipeline,
                       const std::vector<TensorData> &inputs) {
  BackendRun r;
  r.mlir = kernel.text;
  std::error_code ec;
  const fs::path parent = cmd.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(cmd.workDir);
  fs::create_directories(parent, ec);
  std::string pattern = (parent / "npufuzz-ext-XXXXXX").string();
  if (parent.empty() || !::mkdtemp(pattern.data())) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = "cannot create a case directory under " +
                (parent.empty() ? std::string("the temporary directory") : parent.string()) + ": " +
                std::strerror(errno) + " (set TMPDIR to a writable directory)";
    return r;
  }
  const std::string dir = pattern;
  std::string error;
  if (!writeCaseDirectory(dir, c, kernel, pipeline, inputs, error, cmd.switches)) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = error;
  } else {
    std::vector<std::string> argv;
    for (std::string a : cmd.argv) {
      for (size_t at = a.find("{dir}"); at != std::string::npos;
           at = a.find("{dir}", at + dir.size()))
        a.replace(at, 5, dir);
      argv.push_back(std::move(a));
    }
    const CommandEnd end = cmd.persistent
                               ? workerPersistentCommand().run(cmd, dir)
                               : runCommand(cmd, argv, dir + "/stdout.txt", dir + "/stderr.txt");
    // What the command keeps for a finding (a traceback, the code its
    // compiler generated): apart from the message, so that nothing in it
    // is taken for the run's diagnostic or signature.
    std::string unread;
    if (!readFileBytes(dir + "/details.txt", r.details, unread, kMaxDetailsBytes))
      r.details.clear();
    readCompilerCoverage(dir, r);
    r.executeSeconds = end.seconds;
    r.startSeconds = end.startSeconds;
    if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
      r.status = classifyEnd(end, r.message);
      // The command said it had started the compiled program: a crash
      // from then on is the program's, which op blame traces to an op.
      r.failedRunning = r.status == BackendRun::Status::Crashed &&
                        fs::exists(dir + "/" + kExternalRunningMarker, ec);
      r.memoryError = r.status == BackendRun::Status::Crashed && endedInMemoryError(end);
    } else {
      for (size_t o = 0; o < c.outputs.size() && r.ok(); ++o) {
        const TensorType &type = c.typeOf(c.outputs[o]);
        const std::string name = "out" + std::to_string(o) + ".npy";
        RefTensor t;
        std::string why;
        if (!fs::exists(dir + "/" + name))
          why = "was not written";
        else if (!readNpy(dir + "/" + name, type.dtype, t, why))
          why = "is malformed: " + why;
        else if (t.type.shape != type.shape)
          why = "has shape " + TensorType{type.dtype, t.type.shape, std::nullopt}.str() +
                ", expected " + type.str();
        if (!why.empty()) {
          r.status = BackendRun::Status::RuntimeError;
          r.message = "protocol: " + name + " " + why + "\n" + end.stderrText;
          break;
        }
        t.type = type;
        r.outputs.push_back(toTensorData(t));
      }
    }
  }
  if (!cmd.keepCaseDir)
    fs::remove_all(dir, ec);
  return r;
}

} // namespace npufuzz
