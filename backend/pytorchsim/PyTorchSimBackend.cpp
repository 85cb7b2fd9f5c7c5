//===- backend/pytorchsim/PyTorchSimBackend.cpp - PyTorchSim's code generation under test -===//
#include "backend/pytorchsim/PyTorchSimBackend.h"

#include "backend/emit/PyTorchEmitter.h"
#include "backend/external/ExternalBackend.h"
#include "backend/external/PersistentCommand.h"
#include "backend/pytorchsim/KernelDmas.h"
#include "backend/pytorchsim/NpuModel.h"
#include "ir/FileText.h"

#include "llvm/Support/JSON.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;

/// What the adapter writes of a run is small; a larger file is not its.
constexpr size_t kMaxRecordBytes = 64 << 20;

ExternalToolchain adapterCommand(const PyTorchSimToolchain &t) {
  ExternalToolchain cmd;
  cmd.argv = {t.python, t.adapter, "--pytorchsim", t.checkout};
  cmd.persistent = true;
  cmd.timeoutSeconds = t.timeoutSeconds;
  // Its first case sets PyTorchSim up, instrumenting its code generation
  // when its coverage is measured (driver/CompilerCoverage.h).
  cmd.startSeconds = t.timeoutSeconds;
  // torch with its CUDA libraries maps far more than it touches.
  cmd.addressSpaceBytes = 0;
  cmd.environment.push_back(kFixedPythonHashSeed);
  // Master v1.1.0's torch_openreg, which `import torch` loads, reads the
  // checkout from it (and fails without it).
  cmd.environment.push_back({"TORCHSIM_DIR", t.checkout});
  return cmd;
}

std::string firstLineOf(const std::string &text) { return text.substr(0, text.find('\n')); }

int64_t integer(const llvm::json::Object &o, llvm::StringRef key, bool &ok) {
  const std::optional<int64_t> v = o.getInteger(key);
  ok &= v.has_value();
  return v.value_or(0);
}

std::vector<int64_t> integers(const llvm::json::Object &o, llvm::StringRef key, bool &ok) {
  std::vector<int64_t> out;
  const llvm::json::Array *a = o.getArray(key);
  ok &= a != nullptr;
  for (size_t i = 0; a && i < a->size(); ++i) {
    const std::optional<int64_t> v = (*a)[i].getAsInteger();
    ok &= v.has_value();
    out.push_back(v.value_or(0));
  }
  return out;
}
} // namespace

std::string defaultPyTorchSimAdapter() {
  if (const char *env = std::getenv("NPUFUZZ_PYTORCHSIM_ADAPTER"); env && *env)
    return env;
  return NPUFUZZ_PYTORCHSIM_ADAPTER;
}

bool checkPyTorchSimToolchain(const PyTorchSimToolchain &t, std::string &version,
                              std::string &error) {
  std::error_code ec;
  if (!fs::is_regular_file(t.adapter, ec)) {
    error = "the PyTorchSim adapter " + t.adapter +
            " is missing (set $NPUFUZZ_PYTORCHSIM_ADAPTER); see docs/toolchains.md#pytorchsim";
    return false;
  }
  std::string pattern = (fs::temp_directory_path(ec) / "npufuzz-pytorchsim-check-XXXXXX").string();
  if (ec || !::mkdtemp(pattern.data())) {
    error = "no scratch directory for PyTorchSim's canary (set TMPDIR to a writable directory)";
    return false;
  }
  ExternalToolchain cmd = adapterCommand(t);
  cmd.argv.push_back("--check");
  // The first setup may build PyTorchSim's npu extension (about 40 s).
  cmd.timeoutSeconds = 600;
  const CommandEnd end = runCommand(cmd, cmd.argv, pattern + "/out", pattern + "/err");
  std::string out, err, why;
  readFileBytes(pattern + "/out", out, why, 1 << 20);
  readFileBytes(pattern + "/err", err, why, 1 << 20);
  fs::remove_all(pattern, ec);
  version = firstLineOf(out);
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0 &&
      version.rfind("pytorchsim ", 0) == 0)
    return true;
  std::string said;
  if (const size_t at = err.find("npufuzz pytorchsim adapter:"); at != std::string::npos)
    said = firstLineOf(err.substr(at));
  if (said.empty()) {
    std::string message;
    classifyEnd(end, message);
    said = firstLineOf(message);
  }
  error = "pytorchsim " + t.checkout + " with " + t.python + " failed its canary (" + said +
          "); see docs/toolchains.md#pytorchsim";
  return false;
}

namespace {

/// The program's outputs from the model of PyTorchSim's NPU (NpuModel.h):
/// the storages set up as the program had them (its inputs' bytes; every
/// other storage, as torch.empty leaves it, the poison fill), the calls run,
/// each returned view read. When the model cannot, the values are not
/// computed and `valuesWhyNot` says why.
void computeValues(const std::vector<KernelDmas> &kernels, const std::vector<std::string> &files,
                   const std::vector<NpuModelCall> &calls, const llvm::json::Array *fallbacks,
                   const std::vector<TensorData> &inputs,
                   const std::vector<TensorType> &outputTypes, BackendRun &run) {
  const DmaTrace &trace = run.dmaTrace;
  run.valuesComputed = false;
  std::string &why = run.valuesWhyNot;
  if (fallbacks && !fallbacks->empty()) {
    why = "the program also runs " + fallbacks->front().getAsString().value_or("?").str() +
          ", which the model does not";
    return;
  }
  if (trace.outputs.size() != outputTypes.size()) {
    why = "the program returns " + std::to_string(trace.outputs.size()) + " views for " +
          std::to_string(outputTypes.size()) + " outputs";
    return;
  }
  std::vector<std::vector<uint8_t>> storages;
  for (const DmaTrace::Storage &s : trace.storages) {
    std::vector<uint8_t> bytes(static_cast<size_t>(std::max<int64_t>(s.bytes, 0)));
    fillPattern(bytes.data(), bytes.size(), kPyTorchSimModelFill);
    if (s.role == DmaTrace::Storage::Role::Input) {
      if (s.index < 0 || static_cast<size_t>(s.index) >= inputs.size() ||
          inputs[s.index].bytes.size() != bytes.size()) {
        why = "an input's storage is not the input npufuzz gave";
        return;
      }
      bytes = inputs[s.index].bytes;
    }
    storages.push_back(std::move(bytes));
  }
  if (!runOnNpuModel(kernels, files, calls, storages, why))
    return;
  std::vector<TensorData> outputs;
  for (size_t k = 0; k < outputTypes.size(); ++k) {
    const DmaTrace::View &view = trace.outputs[k];
    TensorData t;
    t.type = outputTypes[k];
    const int64_t n = t.numElements();
    int64_t viewElements = 1;
    for (int64_t d : view.shape)
      viewElements *= d;
    const unsigned bytes = t.elementBytes();
    if (viewElements != n || view.elementBytes != bytes) {
      why = "output " + std::to_string(k) + " is a view of another size or element";
      return;
    }
    t.bytes.resize(static_cast<size_t>(n) * bytes);
    const std::vector<uint8_t> &storage = storages[view.storage];
    std::vector<int64_t> at(view.shape.size(), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t element = 0;
      for (size_t d = 0; d < at.size(); ++d)
        element += at[d] * view.strides[d];
      const int64_t byte = view.byteOffset + element * bytes;
      if (byte < 0 || byte + bytes > static_cast<int64_t>(storage.size())) {
        why = "output " + std::to_string(k) + " is a view past its storage";
        return;
      }
      std::memcpy(t.bytes.data() + e * bytes, storage.data() + byte, bytes);
      for (size_t d = at.size(); d-- > 0;)
        if (++at[d] < view.shape[d])
          break;
        else
          at[d] = 0;
    }
    outputs.push_back(std::move(t));
  }
  run.outputs = std::move(outputs);
  run.valuesComputed = true;
  // Each lane sums its share and the shares are then summed: float sums in
  // another order than the program's.
  run.floatSumsReassociated = true;
}

} // namespace

bool readPyTorchSimRun(const std::string &dir, BackendRun &run, std::string &error,
                       const std::vector<TensorData> *inputs,
                       const std::vector<TensorType> *outputTypes) {
  std::string text;
  if (!readFileBytes(dir + "/pytorchsim.json", text, error, kMaxRecordBytes))
    return false;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "pytorchsim.json does not parse: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *record = parsed->getAsObject();
  const llvm::json::Array *kernels = record ? record->getArray("kernels") : nullptr;
  const llvm::json::Array *storages = record ? record->getArray("storages") : nullptr;
  const llvm::json::Array *calls = record ? record->getArray("calls") : nullptr;
  const llvm::json::Array *outputs = record ? record->getArray("outputs") : nullptr;
  if (!kernels || !storages || !calls || !outputs) {
    error = "pytorchsim.json lacks kernels, storages, calls or outputs";
    return false;
  }
  DmaTrace &trace = run.dmaTrace;
  trace = DmaTrace();
  bool ok = true;
  for (const llvm::json::Value &v : *storages) {
    const llvm::json::Object *s = v.getAsObject();
    if (!s) {
      ok = false;
      break;
    }
    DmaTrace::Storage storage;
    const std::optional<llvm::StringRef> role = s->getString("role");
    storage.role = role == "input"    ? DmaTrace::Storage::Role::Input
                   : role == "output" ? DmaTrace::Storage::Role::Output
                                      : DmaTrace::Storage::Role::Temporary;
    storage.index = static_cast<int>(integer(*s, "index", ok));
    storage.bytes = integer(*s, "bytes", ok);
    trace.storages.push_back(storage);
  }
  // Each kernel judged once, however often it is called.
  std::vector<KernelDmas> judged;
  std::vector<std::string> files;
  for (const llvm::json::Value &v : *kernels) {
    const llvm::json::Object *k = v.getAsObject();
    const std::optional<llvm::StringRef> file = k ? k->getString("file") : std::nullopt;
    if (!file || file->contains('/')) {
      error = "pytorchsim.json names a kernel file it should not";
      return false;
    }
    std::string source;
    if (!readFileBytes(dir + "/" + file->str(), source, error, kMaxRecordBytes))
      return false;
    files.push_back(file->str());
    // What Inductor asked of each DMA (the adapter's `dmas`): an ask that
    // does not read is not judged, and says so.
    std::vector<DmaAsk> asks;
    if (const llvm::json::Array *dmas = k->getArray("dmas"))
      for (const llvm::json::Value &a : *dmas) {
        const llvm::json::Object *o = a.getAsObject();
        if (!o)
          continue;
        DmaAsk ask;
        ask.code = o->getString("code").value_or("").str();
        ask.buffer = o->getString("buffer").value_or("").str();
        ask.why = o->getString("why").value_or("").str();
        std::string unread;
        const llvm::json::Value *index = o->get("index");
        if (const llvm::json::Array *vars = o->getArray("tile_variables"))
          for (const llvm::json::Value &v : *vars)
            ask.tileVariables.push_back(v.getAsString().value_or("").str());
        // A tile of another rank keeps its index: its elements are judged
        // as a set (KernelDmas::Dma::judgedAsSet).
        const bool keepsIndex = ask.why.empty() || llvm::StringRef(ask.why).starts_with(kOtherRank);
        if (keepsIndex && (!index || !InductorIndex::parse(*index, ask.index, unread)))
          ask.why = "its index does not read: " + (index ? unread : std::string("none"));
        if (!ask.why.empty())
          ask.tileVariables.clear();
        else if (ask.tileVariables.empty())
          ask.why = "the adapter named no variable per tile dimension";
        asks.push_back(std::move(ask));
      }
    judged.push_back(checkPyTorchSimKernel(source, asks));
    const KernelDmas &kd = judged.back();
    if (!kd.unreadable.empty()) {
      run.status = BackendRun::Status::Unsupported;
      run.message =
          "npufuzz cannot read a dma_start of PyTorchSim's " + file->str() + ": " + kd.unreadable;
      return true;
    }
    if (!kd.verified) {
      // One line that signs it; the diagnostic, with the kernel's line, apart.
      run.status = BackendRun::Status::VerifierError;
      run.message = "upstream MLIR rejects a kernel of PyTorchSim's: " + kd.rejection;
      run.details = file->str() + kd.diagnostic.substr(kd.diagnostic.find(':')) + "\n\n--- " +
                    file->str() + " ---\n" + source;
      return true;
    }
    if (!kd.decoded)
      trace.undecoded.push_back(file->str() + ": " + kd.undecoded);
  }
  if (const llvm::json::Array *fallbacks = record->getArray("fallbacks"))
    for (const llvm::json::Value &f : *fallbacks)
      if (std::optional<llvm::StringRef> name = f.getAsString())
        trace.undecoded.push_back("the program also runs " + name->str() +
                                  ", whose writes are not traced");
  std::map<std::pair<size_t, uint32_t>, uint32_t> dmaIds;
  std::vector<bool> called(judged.size(), false);
  std::vector<NpuModelCall> modelCalls;
  for (const llvm::json::Value &v : *calls) {
    const llvm::json::Object *call = v.getAsObject();
    const llvm::json::Array *args = call ? call->getArray("args") : nullptr;
    const int64_t k = call ? integer(*call, "kernel", ok) : -1;
    if (!args || k < 0 || static_cast<size_t>(k) >= judged.size()) {
      ok = false;
      break;
    }
    const KernelDmas &kd = judged[k];
    struct Place {
      uint32_t storage = 0;
      int64_t byteOffset = 0;
      uint32_t elementBytes = 0;
    };
    std::vector<Place> places;
    for (const llvm::json::Value &a : *args) {
      const llvm::json::Object *p = a.getAsObject();
      if (!p) {
        ok = false;
        break;
      }
      Place place;
      const int64_t s = integer(*p, "storage", ok);
      ok &= s >= 0 && static_cast<size_t>(s) < trace.storages.size();
      place.storage = static_cast<uint32_t>(s);
      place.byteOffset = integer(*p, "byte_offset", ok);
      place.elementBytes = static_cast<uint32_t>(integer(*p, "element_bytes", ok));
      places.push_back(place);
    }
    if (!ok || places.size() != kd.arguments.size()) {
      error = "pytorchsim.json: a call of " + files[k] + " with " + std::to_string(places.size()) +
              " arguments, which has " + std::to_string(kd.arguments.size());
      return false;
    }
    NpuModelCall modelCall;
    modelCall.kernel = static_cast<size_t>(k);
    for (const Place &p : places)
      modelCall.arguments.push_back({p.storage, p.byteOffset});
    modelCalls.push_back(std::move(modelCall));
    if (!kd.decoded)
      continue;
    called[k] = true;
    for (const KernelDmas::Move &m : kd.moves) {
      const KernelDmas::Dma &d = kd.dmas[m.dma];
      auto [it, added] = dmaIds.try_emplace({static_cast<size_t>(k), m.dma},
                                            static_cast<uint32_t>(trace.dmas.size()));
      if (added)
        trace.dmas.push_back({files[k], static_cast<int>(m.dma), d.write,
                              kd.arguments[d.argument].name, d.text, d.computedBy});
      const Place &p = places[d.argument];
      // The kernel's element type, where it declares one.
      const uint32_t bytes = kd.arguments[d.argument].elementBytes
                                 ? kd.arguments[d.argument].elementBytes
                                 : p.elementBytes;
      trace.accesses.push_back({it->second, p.storage, p.byteOffset + m.element * bytes, m.element,
                                kd.arguments[d.argument].elements, bytes});
    }
  }
  // Each called kernel's DMAs whose map is wrong, and why others were not
  // judged: once a kernel, however often it is called.
  for (size_t k = 0; k < judged.size(); ++k) {
    if (!called[k])
      continue;
    for (uint32_t n = 0; n < judged[k].dmas.size(); ++n) {
      const KernelDmas::Dma &d = judged[k].dmas[n];
      if (!d.unjudged.empty())
        trace.unjudgedMaps.push_back(files[k] + " DMA #" + std::to_string(n) + ": " + d.unjudged);
      else
        ++trace.judgedMaps;
      if (!d.wrongSlots)
        continue;
      auto [it, added] = dmaIds.try_emplace({k, n}, static_cast<uint32_t>(trace.dmas.size()));
      if (added)
        trace.dmas.push_back({files[k], static_cast<int>(n), d.write,
                              judged[k].arguments[d.argument].name, d.text, d.computedBy});
      trace.wrongMaps.push_back({it->second, d.askedIndex, d.indexDivides, d.firstWrongSlot,
                                 d.firstWrongPoint, d.moved, d.wanted, d.wrongSlots, d.slots,
                                 d.judgedAsSet, d.baseWrong});
    }
  }
  for (const llvm::json::Value &v : *outputs) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o) {
      ok = false;
      break;
    }
    DmaTrace::View view;
    const int64_t s = integer(*o, "storage", ok);
    ok &= s >= 0 && static_cast<size_t>(s) < trace.storages.size();
    view.storage = static_cast<uint32_t>(s);
    view.byteOffset = integer(*o, "byte_offset", ok);
    view.elementBytes = static_cast<uint32_t>(integer(*o, "element_bytes", ok));
    view.shape = integers(*o, "shape", ok);
    view.strides = integers(*o, "strides", ok);
    ok &= view.shape.size() == view.strides.size();
    trace.outputs.push_back(view);
  }
  if (!ok) {
    error = "pytorchsim.json is not the adapter's";
    return false;
  }
  if (inputs && outputTypes)
    computeValues(judged, files, modelCalls, record->getArray("fallbacks"), *inputs, *outputTypes,
                  run);
  return true;
}

BackendRun runPyTorchSim(const PyTorchSimToolchain &t, const Case &c,
                         const std::vector<TensorData> &inputs) {
  BackendRun r;
  r.valuesComputed = false;
  std::error_code ec;
  std::string dir = (fs::temp_directory_path(ec) / "npufuzz-pytorchsim-XXXXXX").string();
  if (ec || !::mkdtemp(dir.data())) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = std::string("cannot create a case directory: ") + std::strerror(errno) +
                " (set TMPDIR to a writable directory)";
    return r;
  }
  std::string error, program;
  if (!emitPyTorch(c, program, error, PyTorchForm::Model)) {
    r.status = BackendRun::Status::Unsupported;
    r.message = error;
  } else if (!writeCaseDirectory(dir, c, MlirKernel(), {}, inputs, error, {}, PyTorchForm::Model)) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = error;
  } else {
    const CommandEnd end = workerPersistentCommand().run(adapterCommand(t), dir);
    r.executeSeconds = end.seconds;
    r.startSeconds = end.startSeconds;
    std::string unread;
    if (!readFileBytes(dir + "/details.txt", r.details, unread, 1 << 20))
      r.details.clear();
    readCompilerCoverage(dir, r);
    if (end.kind != CommandEnd::Kind::Exited && fs::exists(dir + "/setting-up", ec)) {
      // The adapter was still setting PyTorchSim up (building its npu
      // extension, say) when the limit ended it: the machine's state, not
      // the case's. The next adapter takes the build up again.
      r.status = BackendRun::Status::EnvironmentError;
      std::string how;
      classifyEnd(end, how);
      r.message = "the PyTorchSim adapter was still setting PyTorchSim up when it ended (" +
                  firstLineOf(how) + "); its first case sets the npu device up";
    } else if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
      r.status = classifyEnd(end, r.message);
    } else if (const std::vector<TensorType> outputTypes = c.outputTypes();
               !readPyTorchSimRun(dir, r, error, &inputs, &outputTypes)) {
      r.status = BackendRun::Status::EnvironmentError;
      r.message = "the PyTorchSim adapter's record: " + error;
    }
  }
  fs::remove_all(dir, ec);
  return r;
}

std::map<std::string, std::string> pytorchsimPrograms(const Case &c) {
  std::map<std::string, std::string> files;
  std::string text, reason;
  if (emitPyTorch(c, text, reason, PyTorchForm::Model))
    files["program.py"] = text;
  return files;
}

} // namespace npufuzz
