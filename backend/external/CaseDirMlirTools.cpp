//===- backend/external/CaseDirMlirTools.cpp - The mlir-tools adapter -----===//
#include "backend/external/CaseDirMlirTools.h"

#include "backend/external/ExternalBackend.h"
#include "ir/Npy.h"
#include "ir/Storage.h"

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
  for (const llvm::json::Value &n : *shape)
    t.shape.push_back(n.getAsInteger().value_or(0));
  if (const llvm::json::Object *v = o.getObject("valid_shape"))
    t.valid = ValidShape{v->getInteger("rows").value_or(0), v->getInteger("cols").value_or(0),
                         v->getBoolean("dynamic").value_or(false)};
  return true;
}
} // namespace

BackendRun runCaseDirectoryWithMlirTools(const std::string &dir, const MlirTool &tool) {
  auto manifestText = llvm::MemoryBuffer::getFile(dir + "/manifest.json");
  if (!manifestText)
    return failed(BackendRun::Status::RuntimeError, "cannot read " + dir + "/manifest.json");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse((*manifestText)->getBuffer());
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
  auto kernelText = llvm::MemoryBuffer::getFile(dir + "/kernel.mlir");
  if (!kernelText)
    return failed(BackendRun::Status::RuntimeError, "cannot read kernel.mlir");

  MlirKernel kernel;
  kernel.text = (*kernelText)->getBuffer().str();
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
  BackendRun r = tool.run(kernel, pipeline, inputs, outputTypes, 0xFFFFFFFFu);
  for (size_t k = 0; r.ok() && k < r.outputs.size(); ++k) {
    std::string error;
    if (!writeNpy(dir + "/" + outputFiles[k], fromTensorData(r.outputs[k]), error))
      return failed(BackendRun::Status::RuntimeError, error);
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
  default: return 1;
  }
}

} // namespace npufuzz
