//===- backend/mlir/MlirTools.cpp - Drive mlir-opt out of process ---------===//
#include "backend/mlir/MlirTools.h"

#include "backend/mlir/EmitterBase.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <unistd.h>

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
  out.close();
  if (out.has_error()) { // a full disk: said here, not by an abort later
    out.clear_error();
    return false;
  }
  return true;
}

/// The status of a temporary file that could not be written.
BackendRun cannotWrite(BackendRun r) {
  r.status = BackendRun::Status::EnvironmentError;
  r.message = "cannot write a temporary file (a full disk? set TMPDIR to a writable directory)";
  return r;
}

struct ToolResult {
  int exitCode = 0; ///< negative when it did not exit by itself
  std::string stderrText;
  std::string message; ///< why it did not run, or how it died

  /// How a run that did not succeed failed. A tool killed by a signal is a
  /// crash of the compiler under test and one past its time limit a hang,
  /// whatever stage it was in; any other failure is `otherwise`.
  BackendRun::Status failure(BackendRun::Status otherwise) const {
    // llvm::sys::ExecuteAndWait: -2 for a signal or the timeout (with
    // "Child timed out"), -1 when the program could not run: the machine's
    // fault or npufuzz's (a missing tool, a refused fork), never a finding.
    if (exitCode == -1)
      return BackendRun::Status::EnvironmentError;
    if (exitCode != -2)
      return otherwise;
    return llvm::StringRef(message).starts_with("Child timed out") ? BackendRun::Status::TimedOut
                                                                   : BackendRun::Status::Crashed;
  }
};

ToolResult runTool(const std::string &program, const std::vector<std::string> &args,
                   unsigned timeoutSeconds,
                   std::optional<llvm::ArrayRef<llvm::StringRef>> env = std::nullopt) {
  ToolResult r;
  TempFile err(".stderr");
  std::vector<llvm::StringRef> argv = {program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(""),
                                                llvm::StringRef(err.path)};
  std::string errMsg;
  r.exitCode = llvm::sys::ExecuteAndWait(program, argv, env, redirects, timeoutSeconds, 0, &errMsg);
  r.stderrText = readFile(err.path);
  r.message = errMsg;
  return r;
}
/// `@main` for mlir-runner: allocates every kernel buffer, fills it through
/// the kernel I/O runtime, calls the kernel and writes the outputs back.
std::string wrapperMain(const MlirKernel &kernel, const std::vector<TensorData> &inputs,
                        const std::vector<TensorType> &outputTypes) {
  std::string body, decls, callArgs, callTypes, writes, frees;
  std::set<std::string> dtypes;
  int n = 0;
  auto buffer = [&](const TensorType &t, int kind, int index) {
    const std::string e = EmitterBase::elemType(t.dtype), mt = EmitterBase::memrefType(t);
    const std::string a = "%a" + std::to_string(n), u = "%u" + std::to_string(n),
                      i = "%i" + std::to_string(n);
    ++n;
    body += "    " + a + " = memref.alloc() : " + mt + "\n";
    body += "    " + u + " = memref.cast " + a + " : " + mt + " to memref<*x" + e + ">\n";
    body += "    " + i + " = arith.constant " + std::to_string(index) + " : i64\n";
    body += "    func.call @npf_rt_io_" + e + "(%k" + std::to_string(kind) + ", " + i + ", " + u +
            ") : (i64, i64, memref<*x" + e + ">) -> ()\n";
    if (kind == 1)
      writes += "    func.call @npf_rt_io_" + e + "(%k2, " + i + ", " + u +
                ") : (i64, i64, memref<*x" + e + ">) -> ()\n";
    frees += "    memref.dealloc " + a + " : " + mt + "\n";
    dtypes.insert(e);
    callArgs += (callArgs.empty() ? "" : ", ") + a;
    callTypes += (callTypes.empty() ? "" : ", ") + mt;
  };
  for (const KernelArg &arg : kernel.args) {
    if (arg.kind == KernelArg::Kind::Input) {
      buffer(inputs.at(arg.index).type, 0, arg.index);
    } else if (arg.kind == KernelArg::Kind::Output) {
      buffer(outputTypes.at(arg.index), 1, arg.index);
    } else {
      const std::string v = "%v" + std::to_string(n++);
      body += "    " + v + " = arith.constant " + std::to_string(arg.value) + " : index\n";
      callArgs += (callArgs.empty() ? "" : ", ") + v;
      callTypes += (callTypes.empty() ? "" : ", ") + std::string("index");
    }
  }
  for (const std::string &e : dtypes)
    decls += "  func.func private @npf_rt_io_" + e + "(i64, i64, memref<*x" + e +
             ">) attributes {llvm.emit_c_interface}\n";
  return decls +
         "  func.func @main() {\n    %k0 = arith.constant 0 : i64\n"
         "    %k1 = arith.constant 1 : i64\n    %k2 = arith.constant 2 : i64\n" +
         body + "    func.call @" + kernel.entry + "(" + callArgs + ") : (" + callTypes +
         ") -> ()\n" + writes + frees + "    return\n  }\n";
}
} // namespace

bool MlirTool::find(std::string &path, std::string &error) const {
  return find(mlirOpt, path, error);
}

bool MlirTool::find(const std::string &program, std::string &path, std::string &error) const {
  if (llvm::sys::fs::can_execute(program)) {
    path = program;
    return true;
  }
  auto found = llvm::sys::findProgramByName(program);
  if (!found) {
    error = "cannot find '" + program +
            "'; install Debian's mlir-22-tools (bash ci/install-deps.sh) or give its path";
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
    r.status = BackendRun::Status::EnvironmentError;
    return r;
  }
  TempFile in(".mlir"), out(".mlir");
  if (in.path.empty() || out.path.empty() || !writeFile(in.path, text)) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = "cannot write a temporary file (set TMPDIR to a writable directory)";
    return r;
  }
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
    r.status = t.failure(BackendRun::Status::PassFailure);
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
    r.status = BackendRun::Status::EnvironmentError;
    return r;
  }
  std::string current = text;
  // The input itself must verify (the codegen-level check).
  {
    TempFile in(".mlir");
    if (in.path.empty() || !writeFile(in.path, current))
      return cannotWrite(r);
    const ToolResult t =
        runTool(program, {std::string(in.path), "-o", "/dev/null"}, timeoutSeconds);
    if (t.exitCode != 0) {
      r.status = t.failure(BackendRun::Status::VerifierError);
      r.message = t.stderrText + t.message;
      return r;
    }
  }
  for (size_t i = 0; i < elements.size(); ++i) {
    TempFile in(".mlir"), out(".mlir");
    if (in.path.empty() || out.path.empty() || !writeFile(in.path, current))
      return cannotWrite(r);
    std::vector<std::string> args;
    for (const std::string &p : passPlugins)
      args.push_back("--load-pass-plugin=" + p);
    args.insert(args.end(),
                {"--verify-each=false", "--pass-pipeline=builtin.module(" + elements[i] + ")",
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
    r.status = pass.exitCode != 0 ? pass.failure(BackendRun::Status::PassFailure)
                                  : verify.failure(BackendRun::Status::VerifierError);
    r.message =
        pass.exitCode != 0 ? pass.stderrText + pass.message : verify.stderrText + verify.message;
    r.passIndex = static_cast<int>(i);
    r.passName = elements[i];
    r.irBeforePass = current;
    r.irAfterPass = after;
    return r;
  }
  r.mlir = current;
  return r;
}

BackendRun MlirTool::run(const MlirKernel &kernel, const std::vector<std::string> &elements,
                         const std::vector<TensorData> &inputs,
                         const std::vector<TensorType> &outputTypes, uint32_t poison) const {
  BackendRun r;
  r.mlir = kernel.text;
  std::string runner;
  if (!find(mlirRunner, runner, r.message)) {
    r.status = BackendRun::Status::EnvironmentError;
    return r;
  }
  // The kernel module with @main inserted before its closing brace.
  const size_t close = kernel.text.rfind('}');
  const std::string text = kernel.text.substr(0, close) + wrapperMain(kernel, inputs, outputTypes) +
                           kernel.text.substr(close);
  BackendRun lowered = transform(text, elements);
  if (!lowered.ok()) {
    lowered.mlir = kernel.text;
    return lowered;
  }
  llvm::SmallString<128> io;
  if (llvm::sys::fs::createUniqueDirectory("npufuzz-io", io)) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = "cannot create a temporary directory (set TMPDIR to a writable directory)";
    return r;
  }
  auto file = [&](const std::string &name) { return (io + "/" + name).str(); };
  bool written = true;
  for (size_t i = 0; i < inputs.size(); ++i)
    written &= writeFile(llvm::SmallString<128>(file("in" + std::to_string(i) + ".bin")),
                         std::string(inputs[i].bytes.begin(), inputs[i].bytes.end()));
  for (size_t k = 0; k < outputTypes.size(); ++k) {
    const TensorData init = TensorData::filled(outputTypes[k], poison);
    written &= writeFile(llvm::SmallString<128>(file("out" + std::to_string(k) + ".init.bin")),
                         std::string(init.bytes.begin(), init.bytes.end()));
  }
  TempFile module(".mlir");
  written &= !module.path.empty() && writeFile(module.path, lowered.mlir);
  if (!written) {
    llvm::sys::fs::remove_directories(io);
    return cannotWrite(r);
  }
  // The same fixed rounding behaviour as the in-process JIT: no bf16
  // convert instructions (they flush denormals).
  const std::string libs = runtimeLibrary + "," NPUFUZZ_MLIR_C_RUNNER_UTILS;
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    env.push_back(*e);
  env.push_back("NPUFUZZ_IO_DIR=" + std::string(io));
  std::vector<llvm::StringRef> envRefs(env.begin(), env.end());
  const ToolResult t =
      runTool(runner,
              {std::string(module.path), "-e", "main", "-entry-point-result=void",
               "-shared-libs=" + libs, "-O0", "--mattr=-avx512bf16,-avxneconvert,-amx-bf16"},
              timeoutSeconds, llvm::ArrayRef<llvm::StringRef>(envRefs));
  if (t.exitCode != 0) {
    r.status = t.failure(BackendRun::Status::RuntimeError);
    r.message = t.stderrText + t.message;
  } else {
    for (size_t k = 0; k < outputTypes.size(); ++k) {
      TensorData d;
      d.type = outputTypes[k];
      const std::string bytes =
          readFile(llvm::SmallString<128>(file("out" + std::to_string(k) + ".bin")));
      d.bytes.assign(bytes.begin(), bytes.end());
      if (d.bytes.size() != static_cast<size_t>(d.numElements()) * d.elementBytes()) {
        r.status = BackendRun::Status::RuntimeError;
        r.message = "output " + std::to_string(k) + " has the wrong size";
      }
      r.outputs.push_back(std::move(d));
    }
  }
  std::error_code ec;
  llvm::sys::fs::remove_directories(io);
  return r;
}

} // namespace npufuzz
