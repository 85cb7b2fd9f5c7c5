//===- backend/mlir/MlirTools.cpp - Drive mlir-opt out of process ---------===//
#include "backend/mlir/MlirTools.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace npufuzz {

namespace {
/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(const char *suffix) {
    if (llvm::sys::fs::createTemporaryFile("npufuzz", suffix, path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

std::string readFile(const llvm::SmallString<128> &path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

bool writeFile(const llvm::SmallString<128> &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return false;
  out << text;
  return true;
}

struct ToolResult {
  int exitCode = 0; ///< -1 when it crashed or timed out
  std::string stderrText;
  std::string message; ///< why it did not run, or how it died
};

ToolResult runTool(const std::string &program, const std::vector<std::string> &args,
                   unsigned timeoutSeconds) {
  ToolResult r;
  TempFile err(".stderr");
  std::vector<llvm::StringRef> argv = {program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(""),
                                                llvm::StringRef(err.path)};
  std::string errMsg;
  r.exitCode = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                         timeoutSeconds, 0, &errMsg);
  r.stderrText = readFile(err.path);
  r.message = errMsg;
  return r;
}
} // namespace

bool MlirTool::find(std::string &path, std::string &error) const {
  if (llvm::sys::fs::can_execute(mlirOpt)) {
    path = mlirOpt;
    return true;
  }
  auto found = llvm::sys::findProgramByName(mlirOpt);
  if (!found) {
    error = "cannot find '" + mlirOpt +
            "'; install Debian's mlir-22-tools (bash ci/install-deps.sh) or pass --opt PATH";
    return false;
  }
  path = *found;
  return true;
}

BackendRun MlirTool::transform(const std::string &text,
                               const std::vector<std::string> &elements) const {
  BackendRun r;
  std::string program;
  if (!find(program, r.message)) {
    r.status = BackendRun::Status::CompileError;
    return r;
  }
  TempFile in(".mlir"), out(".mlir");
  writeFile(in.path, text);
  std::string body;
  for (size_t i = 0; i < elements.size(); ++i)
    body += (i ? "," : "") + elements[i];
  std::vector<std::string> args;
  for (const std::string &p : passPlugins)
    args.push_back("--load-pass-plugin=" + p);
  args.push_back("--pass-pipeline=builtin.module(" + body + ")");
  args.push_back(std::string(in.path));
  args.push_back("-o");
  args.push_back(std::string(out.path));
  const ToolResult t = runTool(program, args, timeoutSeconds);
  if (t.exitCode != 0) {
    r.status = BackendRun::Status::PassFailure;
    r.message = t.stderrText + t.message;
    return r;
  }
  r.mlir = readFile(out.path);
  return r;
}

BackendRun MlirTool::verifyPipeline(const std::string &text,
                                    const std::vector<std::string> &elements) const {
  BackendRun r;
  std::string program;
  if (!find(program, r.message)) {
    r.status = BackendRun::Status::CompileError;
    return r;
  }
  std::string current = text;
  // The input itself must verify (the codegen-level check).
  {
    TempFile in(".mlir");
    writeFile(in.path, current);
    const ToolResult t = runTool(program, {std::string(in.path), "-o", "/dev/null"},
                                 timeoutSeconds);
    if (t.exitCode != 0) {
      r.status = BackendRun::Status::VerifierError;
      r.message = t.stderrText + t.message;
      return r;
    }
  }
  for (size_t i = 0; i < elements.size(); ++i) {
    TempFile in(".mlir"), out(".mlir");
    writeFile(in.path, current);
    std::vector<std::string> args;
    for (const std::string &p : passPlugins)
      args.push_back("--load-pass-plugin=" + p);
    args.insert(args.end(), {"--verify-each=false", "--pass-pipeline=builtin.module(" +
                                                        elements[i] + ")",
                             std::string(in.path), "-o", std::string(out.path)});
    const ToolResult pass = runTool(program, args, timeoutSeconds);
    const std::string after = readFile(out.path);
    ToolResult verify;
    if (pass.exitCode == 0)
      verify = runTool(program, {std::string(out.path), "-o", "/dev/null"}, timeoutSeconds);
    if (pass.exitCode == 0 && verify.exitCode == 0) {
      current = after;
      continue;
    }
    r.status = pass.exitCode != 0 ? BackendRun::Status::PassFailure
                                  : BackendRun::Status::VerifierError;
    r.message = pass.exitCode != 0 ? pass.stderrText + pass.message
                                   : verify.stderrText + verify.message;
    r.passIndex = static_cast<int>(i);
    r.passName = elements[i];
    r.irBeforePass = current;
    r.irAfterPass = after;
    return r;
  }
  r.mlir = current;
  return r;
}

} // namespace npufuzz
