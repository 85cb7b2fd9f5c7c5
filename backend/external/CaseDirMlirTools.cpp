//===- backend/external/CaseDirMlirTools.cpp - The mlir-tools adapter -----===//
#include "backend/external/CaseDirMlirTools.h"

#include "backend/external/ExternalBackend.h"
#include "ir/FileText.h"
#include "ir/Npy.h"
#include "ir/Storage.h"
#include "ir/TypeRules.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace npufuzz {

namespace {
BackendRun failed(BackendRun::Status s, const std::string &message) {
  BackendRun r;
  r.status = s;
  r.message = message;
  return r;
}

/// A manifest tensor entry as a type.
bool tensorType(const llvm::json::Object &o, TensorType &t) {
  const std::optional<DType> d = parseDType(o.getString("dtype").value_or(""));
  const llvm::json::Array *shape = o.getArray("shape");
  if (!d || !shape)
    return false;
  t.dtype = *d;
  for (const llvm::json::Value &n : *shape) {
    const std::optional<int64_t> dim = n.getAsInteger();
    if (!dim)
      return false;
    t.shape.push_back(*dim);
  }
  std::string error;
  if (!checkShape(t.shape, error))
    return false;
  if (const llvm::json::Object *v = o.getObject("valid_shape")) {
    t.valid = ValidShape{v->getInteger("rows").value_or(0), v->getInteger("cols").value_or(0),
                         v->getBoolean("dynamic").value_or(false)};
    // A valid shape covers the tile's last two dims, within them.
    const size_t rank = t.shape.size();
    if (rank < 2 || t.valid->rows < 0 || t.valid->cols < 0 || t.valid->rows > t.shape[rank - 2] ||
        t.valid->cols > t.shape[rank - 1])
      return false;
  }
  return true;
}

/// The top-level parameters of `@entry` in `text`: "(%a: memref<..>, ...)"
/// split at the commas outside brackets; -1 when there is no such function.
int entryParameterCount(const std::string &text, const std::string &entry) {
  size_t at = std::string::npos;
  for (const char *prefix : {"func.func @", "func.func private @", "func.func public @"})
    if (at == std::string::npos)
      if ((at = text.find(prefix + entry + "(")) != std::string::npos)
        at += std::string(prefix).size() + entry.size() + 1;
  if (at == std::string::npos)
    return -1;
  int depth = 0, count = 0;
  bool any = false;
  for (; at < text.size(); ++at) {
    const char ch = text[at];
    if (ch == '(' || ch == '<' || ch == '[' || ch == '{')
      ++depth;
    else if (ch == '>' && at > 0 && text[at - 1] == '-')
      continue; // the arrow of an affine map in a layout, no bracket
    else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0)
      --depth;
    else if (ch == ')')
      return any ? count + 1 : 0;
    else if (ch == ',' && depth == 0)
      ++count;
    else if (ch != ' ' && ch != '\n')
      any = true;
  }
  return -1;
}
} // namespace

BackendRun runCaseDirectoryWithMlirTools(const std::string &dir, const MlirTool &tool) {
  std::string manifestText, readError;
  if (!readFileBytes(dir + "/manifest.json", manifestText, readError, 16u << 20))
    return failed(BackendRun::Status::EnvironmentError, "cannot read " + readError);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(manifestText);
  if (!parsed) {
    const std::string why = llvm::toString(parsed.takeError());
    return failed(BackendRun::Status::RuntimeError, "manifest.json: " + why);
  }
  const llvm::json::Object *m = parsed->getAsObject();
  const llvm::json::Object *files = m ? m->getObject("files") : nullptr;
  const llvm::json::Object *mlir = m ? m->getObject("mlir") : nullptr;
  if (!files || !mlir || !m->getArray("inputs") || !m->getArray("outputs"))
    return failed(BackendRun::Status::RuntimeError,
                  "manifest.json lacks files/mlir/inputs/outputs");
  if (!files->getString("mlir"))
    return failed(BackendRun::Status::Unsupported, "no kernel.mlir in the case directory");
  MlirKernel kernel;
  if (!readFileBytes(dir + "/kernel.mlir", kernel.text, readError, 64u << 20))
    return failed(BackendRun::Status::EnvironmentError, "cannot read " + readError);
  kernel.entry = mlir->getString("entry").value_or("npf_kernel").str();
  std::vector<std::string> pipeline;
  if (const llvm::json::Array *passes = mlir->getArray("pipeline"))
    for (const llvm::json::Value &p : *passes)
      pipeline.push_back(p.getAsString().value_or("").str());
  if (const llvm::json::Array *args = mlir->getArray("args"))
    for (const llvm::json::Value &a : *args) {
      const llvm::json::Object *o = a.getAsObject();
      if (!o)
        continue;
      KernelArg k;
      const llvm::StringRef kind = o->getString("kind").value_or("");
      k.kind = kind == "input"    ? KernelArg::Kind::Input
               : kind == "output" ? KernelArg::Kind::Output
                                  : KernelArg::Kind::ValidDim;
      k.index = static_cast<int>(o->getInteger(kind == "valid_dim" ? "op" : "index").value_or(0));
      k.dim = static_cast<int>(o->getInteger("dim").value_or(0));
      k.value = o->getInteger("value").value_or(0);
      kernel.args.push_back(k);
    }

  std::vector<TensorData> inputs;
  for (const llvm::json::Value &v : *m->getArray("inputs")) {
    const llvm::json::Object *o = v.getAsObject();
    TensorType type;
    RefTensor t;
    std::string error;
    if (!o || !tensorType(*o, type) ||
        !readNpy(dir + "/" + o->getString("file").value_or("").str(), type.dtype, t, error))
      return failed(BackendRun::Status::RuntimeError, "bad input in manifest.json: " + error);
    // The kernel reads as many elements as the manifest says: a file of
    // another shape would be read past its end.
    if (t.type.shape != type.shape)
      return failed(BackendRun::Status::RuntimeError,
                    "input " + o->getString("file").value_or("").str() +
                        " has another shape than manifest.json gives it");
    t.type = type;
    inputs.push_back(toTensorData(t));
  }
  std::vector<TensorType> outputTypes;
  std::vector<std::string> outputFiles;
  for (const llvm::json::Value &v : *m->getArray("outputs")) {
    const llvm::json::Object *o = v.getAsObject();
    TensorType type;
    if (!o || !tensorType(*o, type))
      return failed(BackendRun::Status::RuntimeError, "bad output in manifest.json");
    outputTypes.push_back(type);
    outputFiles.push_back(o->getString("file").value_or("").str());
  }
  // Every argument names a tensor the manifest has, each input and output
  // once, and the kernel's signature takes exactly these arguments.
  std::vector<int> inputUses(inputs.size()), outputUses(outputTypes.size());
  for (const KernelArg &k : kernel.args) {
    const bool input = k.kind == KernelArg::Kind::Input;
    const bool output = k.kind == KernelArg::Kind::Output;
    const size_t n = input ? inputs.size() : outputTypes.size();
    if ((input || output) && (k.index < 0 || static_cast<size_t>(k.index) >= n))
      return failed(BackendRun::Status::RuntimeError,
                    std::string("manifest.json: an ") + (input ? "input" : "output") +
                        " argument names tensor " + std::to_string(k.index) + " of " +
                        std::to_string(n));
    if (input)
      ++inputUses[k.index];
    if (output)
      ++outputUses[k.index];
    if (k.kind == KernelArg::Kind::ValidDim && k.dim != 0 && k.dim != 1)
      return failed(BackendRun::Status::RuntimeError,
                    "manifest.json: a valid_dim argument has dim " + std::to_string(k.dim));
  }
  for (const std::vector<int> *uses : {&inputUses, &outputUses})
    for (int u : *uses)
      if (u != 1)
        return failed(BackendRun::Status::RuntimeError,
                      "manifest.json: every input and output is one argument of the kernel");
  const int params = entryParameterCount(kernel.text, kernel.entry);
  if (params != static_cast<int>(kernel.args.size()))
    return failed(BackendRun::Status::RuntimeError,
                  "manifest.json gives " + std::to_string(kernel.args.size()) +
                      " arguments, and kernel.mlir's @" + kernel.entry +
                      (params < 0 ? " is not there" : " takes " + std::to_string(params)));
  BackendRun r = tool.run(kernel, pipeline, inputs, outputTypes, 0xFFFFFFFFu);
  for (size_t k = 0; r.ok() && k < r.outputs.size(); ++k) {
    std::string error;
    // An output that cannot be written (a full disk, a FIFO in its place)
    // is the adapter's environment (exit 80), not a verdict on the kernel.
    if (!writeNpy(dir + "/" + outputFiles[k], fromTensorData(r.outputs[k]), error))
      return failed(BackendRun::Status::EnvironmentError, error);
  }
  return r;
}

int adapterExitCode(const BackendRun &run) {
  switch (run.status) {
  case BackendRun::Status::Ok: return 0;
  case BackendRun::Status::Unsupported: return kExternalExitUnsupported;
  case BackendRun::Status::VerifierError:
  case BackendRun::Status::PassFailure:
  case BackendRun::Status::CompileError: return kExternalExitCompileError;
  case BackendRun::Status::SimulatorFault: return kExternalExitSimulatorFault;
  case BackendRun::Status::EnvironmentError: return kExternalExitEnvironment;
  case BackendRun::Status::OutOfBoundsWrite: return kExternalExitOutOfBoundsWrite;
  case BackendRun::Status::OutOfBoundsRead: return kExternalExitOutOfBoundsRead;
  case BackendRun::Status::RuntimeError:
  case BackendRun::Status::Crashed:
  case BackendRun::Status::TimedOut:
  case BackendRun::Status::OutOfMemory:
  case BackendRun::Status::ContractGap:
  case BackendRun::Status::UninitializedRead: return 1;
  }
  return 1;
}

} // namespace npufuzz
