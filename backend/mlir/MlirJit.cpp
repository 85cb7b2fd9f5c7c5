//===- backend/mlir/MlirJit.cpp - In-process MLIR passes and JIT ----------===//
//
// Parse -> PassManager -> ExecutionEngine, with diagnostics captured as text.
// A failing pipeline is first run whole (fast); only when it fails is it
// re-run one element at a time to name the pass and keep the IR around it.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/MlirJit.h"

#include "backend/mlir/BoundsCheckPass.h"
#include "backend/mlir/IrFeedback.h"
#include "backend/mlir/IrSkeleton.h"
#include "backend/mlir/KernelJit.h"
#include "backend/mlir/RunningStage.h"
#include "ir/Elapsed.h"

#include "backend/runtime/BoundsCheck.h"
#include "backend/runtime/KernelHeap.h"
#include "backend/runtime/NpuSim.h"
#include "backend/runtime/Redzone.h"
#include "backend/runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
/// Recreating the context bounds the memory held by uniqued attributes.
constexpr unsigned kRunsPerContext = 512;
/// Clears the running-stage mark when a run of passes ends. A pass's mark
/// stays set until the next pass starts: whatever touches the IR next
/// (the verifier, the printer) can crash on what the pass left behind.
struct StageMarks {
  StageMarks() = default;
  StageMarks(const StageMarks &) = delete;
  ~StageMarks() { clearRunningStage(); }
};

/// Stack painted with the scratch poison before a kernel runs: more than
/// the stack temporaries (memref.alloca) of any kernel a case lowers to.
constexpr size_t kPaintedStackBytes = 256 << 10;

void initializeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::registerAllPasses();
    registerBoundsCheckPass();
    installRunningStageReporter();
  });
}

/// Collects every diagnostic emitted while in scope as `loc: message` lines.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *ctx)
      : handler_(ctx, [this](mlir::Diagnostic &d) {
          llvm::raw_string_ostream os(text_);
          // Errors print as they always have (signatures hold them);
          // warnings and remarks say what they are.
          os << d.getLocation() << ": "
             << (d.getSeverity() == mlir::DiagnosticSeverity::Warning  ? "warning: "
                 : d.getSeverity() == mlir::DiagnosticSeverity::Remark ? "remark: "
                                                                       : "")
             << d << "\n";
          for (const mlir::Diagnostic &note : d.getNotes())
            os << note.getLocation() << ": note: " << note << "\n";
          return mlir::success();
        }) {}
  std::string take() { return std::move(text_); }

private:
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

std::string printOp(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

/// A memref descriptor for a contiguous row-major buffer: allocated and
/// aligned pointers, offset, sizes, strides.
std::vector<int64_t> descriptor(void *data, const std::vector<int64_t> &shape) {
  std::vector<int64_t> d(3 + 2 * shape.size());
  d[0] = d[1] = static_cast<int64_t>(reinterpret_cast<intptr_t>(data));
  d[2] = 0;
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  return d;
}
} // namespace

/// One argument of a kernel call: a buffer (memref) or an index value.
struct CallArg {
  TensorData *buffer;
  int64_t scalar;
  std::string name; ///< what a fault in the buffer calls it: `argument 0 (input 0)`
  std::string kind; ///< and without numbers: `input`, `output`, `argument`
};

/// The elements with the bounds check before the tail lowers memrefs to
/// pointers, when `options` asks for it.
std::vector<std::string> withBoundsCheck(const std::vector<std::string> &elements,
                                         const JitOptions &options) {
  if (!options.boundsCheck)
    return elements;
  // The tail's (the last) expand-strided-metadata: a user's pipeline may
  // run one earlier. A pipeline without it has no memrefs left to check.
  std::vector<std::string> out = elements;
  const auto last = std::find(out.rbegin(), out.rend(), "expand-strided-metadata");
  if (last != out.rend())
    out.insert(std::prev(last.base()), kBoundsCheckElement);
  return out;
}

/// The op of the access a bounds check stopped at.
std::string siteOp(const BoundsFault &f) {
  const std::vector<BoundsSite> &sites = boundsSites();
  return f.site >= 0 && static_cast<size_t>(f.site) < sites.size()
             ? sites[static_cast<size_t>(f.site)].op
             : "unknown access";
}

bool writes(const BoundsFault &f) {
  const std::vector<BoundsSite> &sites = boundsSites();
  return f.site >= 0 && static_cast<size_t>(f.site) < sites.size() &&
         sites[static_cast<size_t>(f.site)].write;
}

/// What a bounds check that stopped a kernel found.
std::string describe(const BoundsFault &f) {
  const std::vector<BoundsSite> &sites = boundsSites();
  if (f.site < 0 || static_cast<size_t>(f.site) >= sites.size())
    return "out-of-bounds access at unknown site " + std::to_string(f.site);
  const BoundsSite &s = sites[static_cast<size_t>(f.site)];
  return std::string(s.write ? "out-of-bounds write: " : "out-of-bounds read: ") + s.op + " at " +
         s.location + " accesses [" + std::to_string(f.index) +
         (f.extent > 1 ? ", " + std::to_string(f.index + f.extent) + ")" : "]") + " of dimension " +
         std::to_string(f.dim) + ", whose size is " + std::to_string(f.size) + ", of " + s.type;
}

/// Marks the element of a trusted group that runs, for a crash report, and
/// keeps what each said while succeeding.
struct GroupMarks : mlir::PassInstrumentation {
  std::map<const mlir::Pass *, size_t> element; ///< top-level pass -> element in the group
  const std::vector<std::string> *elements = nullptr;
  size_t first = 0;   ///< the group's first element in `elements`
  size_t running = 0; ///< the element running or run last
  std::function<void(size_t)> warnings;

  void runBeforePass(mlir::Pass *pass, mlir::Operation *) override {
    const auto it = element.find(pass);
    if (it == element.end())
      return; // a pass nested in an element
    if (warnings && first + it->second != running)
      warnings(running);
    running = first + it->second;
    markRunningStage(RunningStage::Pass, static_cast<int>(running), (*elements)[running]);
  }
};

/// A pass manager of trusted elements, with its marks.
struct TrustedGroup {
  std::unique_ptr<mlir::PassManager> pm;
  GroupMarks *marks = nullptr; ///< owned by `pm`
};

/// Appends pipeline element `element` to `pm`; false with `r` saying why.
bool addElement(mlir::OpPassManager &pm, const std::string &element, BackendRun &r) {
  std::string pipelineError;
  llvm::raw_string_ostream errs(pipelineError);
  if (mlir::succeeded(mlir::parsePassPipeline(element, pm, errs)))
    return true;
  r.status = BackendRun::Status::PassFailure;
  r.message = "cannot parse pass pipeline element '" + element + "': " + pipelineError;
  return false;
}

/// `op(pipeline)`: a pipeline nested on an op, which the pass manager would
/// merge with one that follows it.
bool nestedElement(const std::string &element) {
  const size_t paren = element.find('(');
  return paren != std::string::npos && element.find('.') < paren && element.find('{') > paren;
}

/// A writable global of a compiled kernel that starts at zero: where it
/// is, and how many bytes.
struct ZeroStartedGlobal {
  void *address = nullptr;
  uint64_t bytes = 0;
};

/// The kernel compiled last, callable until the next compilation.
struct CompiledKernel {
  std::string key; ///< what it was compiled from; empty: not for reuse
  PackedKernel fn = nullptr;
  uint64_t generation = 0;  ///< KernelJit's: any later compilation released it
  std::string passWarnings; ///< what its passes said while succeeding
  /// Set to zero again before each reuse: a call leaves its contents
  /// behind (the npu style's scratchpad), and a second call must start
  /// from the state the first did.
  std::vector<ZeroStartedGlobal> globals;
};

/// Gives each writable global of `module` an exported function that
/// returns its address (`accessors`, with the global's size), for a reuse
/// to set it to zero again. False when one starts at something else: a call
/// of the reused code could then not start from the state the first did.
/// The kernel's own code is unchanged.
bool addGlobalAccessors(llvm::Module &module,
                        std::vector<std::pair<std::string, uint64_t>> &accessors) {
  std::vector<llvm::GlobalVariable *> writable;
  for (llvm::GlobalVariable &g : module.globals())
    if (!g.isDeclaration() && !g.isConstant()) {
      if (!g.hasInitializer() || !g.getInitializer()->isNullValue())
        return false;
      writable.push_back(&g);
    }
  llvm::LLVMContext &context = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::PointerType::getUnqual(context), false);
  for (llvm::GlobalVariable *g : writable) {
    const std::string name = "npf_global_address_" + std::to_string(accessors.size());
    auto *fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fn));
    b.CreateRet(g);
    accessors.push_back({name, module.getDataLayout().getTypeAllocSize(g->getValueType())});
  }
  return true;
}

/// What a compiled kernel depends on: its text, the pipeline and the
/// options that change the code.
std::string compileKey(const std::string &text, const std::vector<std::string> &elements,
                       const JitOptions &options) {
  std::string key = options.cpu + (options.boundsCheck ? "\n+bounds\n" : "\n-bounds\n");
  for (const std::string &e : elements)
    key += e + "\n";
  return key + "\n" + text;
}

struct MlirJit::Impl {
  mlir::DialectRegistry registry;
  CompiledKernel last;
  std::unique_ptr<mlir::MLIRContext> ctx;
  unsigned runs = 0;
  std::string sourceName; ///< what locations of parsed text name

  Impl() {
    initializeOnce();
    mlir::registerAllDialects(registry);
    mlir::registerAllExtensions(registry);
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    resetContext();
  }

  void resetContext() {
    groups.clear(); // their passes belong to the context
    ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    runs = 0;
  }

  mlir::MLIRContext *context() {
    if (++runs > kRunsPerContext)
      resetContext();
    return ctx.get();
  }

  /// The distinct `op-name element-type` pairs of `module`, sorted: the
  /// element type of the op's first result, else of its first operand
  /// (`memref.store f32`), else the name alone (`scf.yield`).
  static std::vector<std::string> opsWithTypes(mlir::ModuleOp module) {
    std::set<std::string> seen;
    module->walk([&](mlir::Operation *op) {
      if (op == module.getOperation())
        return;
      std::string key = op->getName().getStringRef().str();
      mlir::Type t = op->getNumResults()    ? op->getResult(0).getType()
                     : op->getNumOperands() ? op->getOperand(0).getType()
                                            : mlir::Type();
      if (t) {
        llvm::raw_string_ostream os(key);
        os << " " << mlir::getElementTypeOrSelf(t);
      }
      seen.insert(std::move(key));
    });
    return {seen.begin(), seen.end()};
  }

  /// Parses and verifies; on failure fills `r` (a codegen-level verifier
  /// error: passIndex -1).
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text, BackendRun &r) {
    DiagnosticCollector diags(ctx.get());
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get(), sourceName);
    if (!module) {
      r.status = BackendRun::Status::VerifierError;
      r.message = diags.take();
      r.passIndex = -1;
    }
    return module;
  }

  /// Runs elements one at a time with verification after each; stops at the
  /// first failure and records it in `r`.
  bool runStepwise(mlir::ModuleOp module, const std::vector<std::string> &elements, BackendRun &r) {
    const StageMarks marks;
    for (size_t i = 0; i < elements.size(); ++i) {
      const std::string before = printOp(module);
      DiagnosticCollector diags(ctx.get());
      mlir::PassManager pm(ctx.get(), "builtin.module");
      pm.enableVerifier(false);
      if (mlir::failed(mlir::parsePassPipeline(elements[i], pm, llvm::errs()))) {
        r.status = BackendRun::Status::PassFailure;
        r.message = "cannot parse pass pipeline element '" + elements[i] + "'";
        r.passName = elements[i];
        r.passIndex = static_cast<int>(i);
        return false;
      }
      markRunningStage(RunningStage::Pass, static_cast<int>(i), elements[i]);
      const bool passOk = mlir::succeeded(pm.run(module));
      // What the pass said, apart from what the verifier says after it: a
      // pass may report errors it recovers from (the super-vectorizer's
      // "NYI: non-trivial layout map") before it emits invalid IR, and the
      // verifier's complaint is what names a verifier error.
      const std::string passSaid = diags.take();
      const bool verifyOk = passOk && mlir::succeeded(mlir::verify(module));
      if (passOk && verifyOk)
        continue;
      r.status = passOk ? BackendRun::Status::VerifierError : BackendRun::Status::PassFailure;
      r.message = passOk ? diags.take() + passSaid : passSaid;
      r.passName = elements[i];
      r.passIndex = static_cast<int>(i);
      r.irBeforePass = before;
      r.irAfterPass = printOp(module);
      return false;
    }
    return true;
  }

  /// A pass manager per run of trusted elements (the style's lowering and
  /// the tail), built once per context and kept: its passes are
  /// initialised once, not per case.
  std::map<std::string, std::unique_ptr<TrustedGroup>> groups;

  /// The pass manager of `elements[first, first + count)`, trusted; null
  /// with `r` saying why when an element does not parse.
  TrustedGroup *group(const std::vector<std::string> &elements, size_t first, size_t count,
                      bool verifyEach, BackendRun &r) {
    std::string key = verifyEach ? "verify each\n" : "verify after\n";
    for (size_t i = first; i < first + count; ++i)
      key += elements[i] + "\n";
    if (const auto it = groups.find(key); it != groups.end())
      return it->second.get();
    auto g = std::make_unique<TrustedGroup>();
    // Verified after each pass when asked, as every element always was: a
    // trusted element that breaks the IR is named for it, before a later
    // one can crash on what it left. Otherwise once, after the group.
    g->pm = std::make_unique<mlir::PassManager>(ctx.get(), "builtin.module");
    g->pm->enableVerifier(verifyEach);
    std::vector<size_t> elementOfPass; // of each top-level pass, in order
    for (size_t i = first; i < first + count; ++i) {
      const size_t before = g->pm->size();
      if (!addElement(*g->pm, elements[i], r))
        return nullptr;
      elementOfPass.insert(elementOfPass.end(), g->pm->size() - before, i - first);
    }
    auto marks = std::make_unique<GroupMarks>();
    size_t k = 0;
    for (mlir::Pass &pass : g->pm->getPasses())
      marks->element[&pass] = elementOfPass[k++];
    g->marks = marks.get();
    g->pm->addInstrumentation(std::move(marks));
    return (groups[key] = std::move(g)).get();
  }

  /// Runs the pipeline. The user's elements (`user`: [first, first + count))
  /// run one at a time, each in its own PassManager and verified after it;
  /// the trusted elements around them run in groups, verified after each
  /// group. Either way the element running is marked for a crash report.
  /// Without `user`, every element runs and is verified on its own. On
  /// failure, re-runs stepwise from `text` to name the element and keep the
  /// IR around it, when asked. `coverage` records the IR coverage of the
  /// user's elements.
  bool runPipeline(mlir::OwningOpRef<mlir::ModuleOp> &module, const std::string &text,
                   const std::vector<std::string> &elements, bool locate, BackendRun &r,
                   std::optional<std::pair<size_t, size_t>> user = std::nullopt,
                   bool coverage = false, bool verifyTrusted = true, bool feedback = false) {
    DiagnosticCollector diags(ctx.get());
    const size_t from = user ? user->first : 0, count = user ? user->second : 0;
    auto isUser = [&](size_t i) { return !user || (i >= from && i < from + count); };
    // Steps: a single element (with its own manager), or a trusted group.
    struct Step {
      size_t first, count;
      std::unique_ptr<mlir::PassManager> single;
      TrustedGroup *group = nullptr;
    };
    std::vector<Step> steps;
    for (size_t i = 0; i < elements.size();) {
      size_t end = i + 1;
      if (!isUser(i))
        // A group ends before the second of two nested pipelines in a row
        // (`func.func(a)`, `func.func(b)`), which the pass manager would
        // merge, and where the user's elements start, even when there are
        // none: the IR coverage is taken there.
        while (end < elements.size() && !isUser(end) && !(user && end == from) &&
               !(nestedElement(elements[end - 1]) && nestedElement(elements[end])))
          ++end;
      Step step{i, end - i, nullptr, nullptr};
      if (isUser(i)) {
        step.single = std::make_unique<mlir::PassManager>(ctx.get(), "builtin.module");
        if (!addElement(*step.single, elements[i], r))
          return false;
      } else if (!(step.group = group(elements, i, end - i, verifyTrusted, r))) {
        return false;
      }
      steps.push_back(std::move(step));
      i = end;
    }
    const StageMarks marks;
    // IR coverage: the ops at the user passes' entry, and which user passes
    // change the IR (the tail always does), each fingerprint taken once.
    std::optional<mlir::OperationFingerPrint> current;
    // The forms of the IR the next user pass is given: taken again only
    // after a pass changed it.
    std::optional<std::vector<uint64_t>> forms;
    auto feedBack = [&](llvm::StringRef element) {
      if (!forms)
        forms = irForms(module->getOperation());
      addIrFeedback(*forms, element, r.irFeedback);
    };
    auto enterUserPasses = [&] {
      r.entryOps = opsWithTypes(*module);
      if (count > 0)
        current.emplace(*module);
    };
    if (coverage && user && from == 0)
      enterUserPasses();
    auto keepWarnings = [&](size_t i) {
      // What a pass said while succeeding is kept with the run.
      const std::string said = diags.take();
      if (!said.empty())
        r.passWarnings += "after pass " + std::to_string(i) + " (" + elements[i] + "):\n" + said;
    };
    for (Step &step : steps) {
      size_t failed = step.first; // the element a failure is first put on
      bool ok;
      if (step.single) {
        if (feedback && user)
          feedBack(elements[step.first]);
        markRunningStage(RunningStage::Pass, static_cast<int>(step.first), elements[step.first]);
        ok = mlir::succeeded(step.single->run(*module));
      } else {
        GroupMarks &m = *step.group->marks;
        m.elements = &elements;
        m.first = step.first;
        m.running = step.first;
        m.warnings = [&](size_t i) { keepWarnings(i); };
        ok = mlir::succeeded(step.group->pm->run(*module));
        m.warnings = nullptr;
        failed = m.running;
        if (!verifyTrusted) // the group's one verification
          ok = ok && mlir::succeeded(mlir::verify(*module));
      }
      const size_t last = step.first + step.count - 1;
      if (ok && current) {
        const mlir::OperationFingerPrint after(*module);
        if (after != *current) {
          r.passesThatChanged.push_back(elements[last]);
          forms.reset();
        }
        current.reset();
        if (last + 1 < from + count)
          current.emplace(after);
        else if (feedback) // what the user's passes left, as the style's tail is given it
          feedBack("(after the user's passes)");
      }
      if (ok && coverage && user && last + 1 == from)
        enterUserPasses();
      if (ok) {
        keepWarnings(last);
        continue;
      }
      r.status = BackendRun::Status::PassFailure;
      r.message = diags.take();
      r.passName = elements[failed];
      r.passIndex = static_cast<int>(failed);
      if (!locate)
        return false;
      BackendRun located;
      auto fresh = parse(text, located);
      if (fresh && !runStepwise(*fresh, elements, located)) {
        located.mlir = r.mlir;
        r = std::move(located);
      }
      return false;
    }
    return true;
  }

  /// Whether `last` is the code of `key` and still callable: a rerun of
  /// the kernel compiled last, on other inputs, calls its code again (the
  /// same text through the same passes compiles to the same code). Not
  /// bounds-checked: the check's sites are those of the last checked build.
  bool stillCompiled(const std::string &key, const JitOptions &options) {
    std::string error;
    const KernelJit *jit = KernelJit::forCpu(options.cpu, error);
    return !options.boundsCheck && last.fn && !last.key.empty() && last.key == key && jit &&
           jit->generation() == last.generation;
  }

  /// JIT-compiles `module` for `cpu` and calls `entry` through its C
  /// interface with `args`; records timings and failures in `r`.
  bool compileAndCall(mlir::ModuleOp module, const std::string &entry, std::vector<CallArg> &args,
                      const std::string &cpu, BackendRun &r, const std::string &key) {
    std::vector<std::vector<CallArg> *> sets = {&args};
    return compileAndCallEach(module, entry, sets, cpu, r, key);
  }

  /// Compiles once and calls `entry` with each argument set in turn. The
  /// kernel stays compiled as `last` (under `key`, when one is given) until
  /// the next compilation.
  bool compileAndCallEach(mlir::ModuleOp module, const std::string &entry,
                          const std::vector<std::vector<CallArg> *> &argSets,
                          const std::string &cpu, BackendRun &r, const std::string &key = "") {
    const StageMarks marks; // no mark outlives a failed compilation
    auto t0 = Clock::now();
    last = CompiledKernel();
    DiagnosticCollector diags(ctx.get());
    std::string error;
    KernelJit *jit = KernelJit::forCpu(cpu, error);
    if (!jit) {
      // No target machine, or the C runner utils cannot be loaded: the
      // installation's fault, never the kernel's.
      r.status = BackendRun::Status::EnvironmentError;
      r.message = error;
      return false;
    }
    markRunningStage(RunningStage::Codegen);
    auto llvmContext = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, *llvmContext);
    if (!llvmModule) {
      r.status = BackendRun::Status::CompileError;
      r.message = diags.take() + "could not convert to LLVM IR";
      return false;
    }
    jit->prepare(*llvmModule);
    std::vector<std::pair<std::string, uint64_t>> accessors; // none unless reusable
    bool reusable = !key.empty() && addGlobalAccessors(*llvmModule, accessors);
    // LLVM's O0 pipeline (always-inline and the like), as ExecutionEngine
    // ran it: the code generator gets what the lowering wrote.
    if (llvm::Error e = mlir::makeOptimizingTransformer(0, 0, nullptr)(llvmModule.get())) {
      r.status = BackendRun::Status::CompileError;
      r.message = diags.take() + llvm::toString(std::move(e));
      return false;
    }
    const PackedKernel fn =
        jit->compile(std::move(llvmContext), std::move(llvmModule), entry, error);
    if (!fn) {
      r.status = BackendRun::Status::CompileError;
      r.message = diags.take() + error;
      return false;
    }
    clearRunningStage();
    std::vector<ZeroStartedGlobal> globals;
    for (const auto &[accessor, bytes] : accessors) {
      if (auto *addressOf = reinterpret_cast<void *(*)()>(jit->address(accessor)))
        globals.push_back({addressOf(), bytes});
      else
        reusable = false;
    }
    r.codegenSeconds = secondsSince(t0);
    last = {reusable ? key : std::string(), fn, jit->generation(), r.passWarnings,
            std::move(globals)};

    r.executeSeconds = 0;
    for (std::vector<CallArg> *set : argSets)
      if (!call(fn, *set, r))
        break;
    return true;
  }

  /// One call of a compiled entry, each buffer between redzones; false
  /// (with `r` saying why) when it wrote outside a buffer or a bounds check
  /// stopped it.
  bool call(PackedKernel fn, std::vector<CallArg> &args, BackendRun &r) {
    // The packed entry takes the address of each argument: of a pointer to a
    // memref descriptor, or of an index value.
    std::vector<std::vector<int64_t>> descriptors;
    descriptors.reserve(args.size());
    std::vector<std::unique_ptr<GuardedBuffer>> guards(args.size());
    std::vector<void *> descriptorPtrs(args.size(), nullptr);
    std::vector<void *> packed;
    const uint32_t redzone = scratchPoisonPattern();
    for (size_t i = 0; i < args.size(); ++i) {
      TensorData *b = args[i].buffer;
      if (!b) {
        packed.push_back(&args[i].scalar);
        continue;
      }
      guards[i] = std::make_unique<GuardedBuffer>(b->bytes.size(), redzone);
      std::copy(b->bytes.begin(), b->bytes.end(), guards[i]->data());
      descriptors.push_back(descriptor(guards[i]->data(), b->type.shape));
      descriptorPtrs[i] = descriptors.back().data();
      packed.push_back(&descriptorPtrs[i]);
    }
    const auto t0 = Clock::now();
    markRunningStage(RunningStage::Kernel);
    paintStack(kPaintedStackBytes);
    const std::optional<BoundsFault> stopped = callKernelChecked(fn, packed.data());
    clearRunningStage();
    r.executeSeconds += secondsSince(t0);
    std::optional<RedzoneFault> fault = endKernelHeap();
    for (size_t i = 0; i < args.size(); ++i) {
      if (!guards[i])
        continue;
      std::copy(guards[i]->data(), guards[i]->data() + guards[i]->size(),
                args[i].buffer->bytes.begin());
      if (!fault)
        fault = guards[i]->check(args[i].name, args[i].kind);
    }
    if (stopped) {
      r.status = writes(*stopped) ? BackendRun::Status::OutOfBoundsWrite
                                  : BackendRun::Status::OutOfBoundsRead;
      r.message = describe(*stopped);
      r.faultSite = siteOp(*stopped);
      return false;
    }
    if (fault) {
      r.status = BackendRun::Status::OutOfBoundsWrite;
      r.message = fault->describe();
      r.faultSite = fault->kind;
      return false;
    }
    return true;
  }
};

// Built on first use: a campaign on a backend that never runs MLIR in
// process (pto, torch, external) does not register and load every dialect.
MlirJit::MlirJit() = default;

MlirJit::Impl &MlirJit::impl() {
  if (!impl_)
    impl_ = std::make_unique<Impl>();
  return *impl_;
}
MlirJit::~MlirJit() = default;

bool MlirJit::loadPassPlugin(const std::string &path, std::string &error) {
  auto plugin = mlir::PassPlugin::load(path);
  if (!plugin) {
    error = llvm::toString(plugin.takeError());
    return false;
  }
  plugin->registerPassRegistryCallbacks();
  return true;
}

BackendRun MlirJit::verifyPipeline(const std::string &text,
                                   const std::vector<std::string> &elements) {
  BackendRun r;
  impl().context();
  auto t0 = Clock::now();
  auto module = impl().parse(text, r);
  if (module)
    impl().runStepwise(*module, elements, r);
  r.passSeconds = secondsSince(t0);
  return r;
}

void MlirJit::setSourceName(const std::string &name) { impl().sourceName = name; }

bool MlirJit::parses(const std::string &text, std::string &diagnostic) {
  BackendRun r;
  impl().context();
  if (impl().parse(text, r))
    return true;
  diagnostic = r.message;
  return false;
}

bool MlirJit::checkPipeline(const std::vector<std::string> &elements, std::string &error) {
  mlir::PassManager pm(impl().context(), "builtin.module");
  std::string body;
  for (size_t i = 0; i < elements.size(); ++i)
    body += (i ? "," : "") + elements[i];
  llvm::raw_string_ostream errs(error);
  if (mlir::succeeded(mlir::parsePassPipeline(body, pm, errs)))
    return true;
  errs.flush();
  error = "cannot parse pass pipeline '" + body + "'" + (error.empty() ? "" : ": " + error);
  return false;
}

BackendRun MlirJit::transform(const std::string &text, const std::vector<std::string> &elements) {
  BackendRun r;
  impl().context();
  auto module = impl().parse(text, r);
  if (module && impl().runPipeline(module, text, elements, true, r)) {
    // Printing what the last pass left is still that pass's doing.
    const StageMarks marks;
    if (!elements.empty())
      markRunningStage(RunningStage::Pass, static_cast<int>(elements.size() - 1), elements.back());
    r.mlir = printOp(*module);
  }
  return r;
}

bool MlirJit::skeleton(const std::string &text, const std::vector<std::string> &elements,
                       std::string &skeleton, std::string &error) {
  BackendRun r;
  impl().context();
  auto module = impl().parse(text, r);
  if (!module || !impl().runPipeline(module, text, elements, true, r)) {
    error = r.message.empty() ? "the pipeline failed" : r.message;
    return false;
  }
  skeleton = irSkeleton(module->getOperation());
  return true;
}

namespace {
/// The ops of `module` erasures() may erase, in pre-order.
std::vector<mlir::Operation *> erasableOps(mlir::ModuleOp module) {
  std::vector<mlir::Operation *> ops;
  module->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    if (op == module.getOperation() || mlir::isa<mlir::func::FuncOp>(op) ||
        op->hasTrait<mlir::OpTrait::IsTerminator>() || !op->use_empty())
      return;
    ops.push_back(op);
  });
  return ops;
}
} // namespace

std::vector<std::string> MlirJit::erasures(const std::string &text, size_t limit) {
  BackendRun r;
  impl().context();
  auto module = impl().parse(text, r);
  if (!module)
    return {};
  const size_t n = erasableOps(*module).size();
  std::vector<std::string> out;
  for (size_t k = 0; k < n && out.size() < limit; ++k) {
    mlir::OwningOpRef<mlir::ModuleOp> copy(mlir::cast<mlir::ModuleOp>((*module)->clone()));
    erasableOps(*copy)[k]->erase();
    if (mlir::succeeded(mlir::verify(*copy)))
      out.push_back(printOp(*copy));
  }
  return out;
}

namespace {
/// The case dtype of an MLIR element type, if it is one.
std::optional<DType> dtypeOf(mlir::Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isIndex())
    return DType::Index;
  if (t.isSignlessInteger(1))
    return DType::I1;
  if (t.isSignlessInteger(8))
    return DType::I8;
  if (t.isSignlessInteger(32))
    return DType::I32;
  if (t.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}
} // namespace

namespace {
std::string typeText(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The buffer that carries a value of type `t` into or out of a driven
/// function, if it can be one.
std::optional<TensorType> bufferFor(mlir::Type t) {
  TensorType tt;
  if (auto shaped = mlir::dyn_cast<mlir::ShapedType>(t)) {
    auto memref = mlir::dyn_cast<mlir::MemRefType>(t);
    const bool tensor = mlir::isa<mlir::RankedTensorType>(t);
    if ((!memref && !tensor) || !shaped.hasStaticShape() ||
        (memref && !memref.getLayout().isIdentity()))
      return std::nullopt;
    std::optional<DType> d = dtypeOf(shaped.getElementType());
    if (!d)
      return std::nullopt;
    tt.dtype = *d;
    tt.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    if (tt.shape.empty()) // a rank-0 value travels in one element
      tt.shape = {1};
    return tt;
  }
  std::optional<DType> d = dtypeOf(t);
  if (!d)
    return std::nullopt;
  tt.dtype = *d;
  tt.shape = {1};
  return tt;
}
} // namespace

std::vector<std::string> MlirJit::publicFunctions(const std::string &text) {
  std::vector<std::string> names;
  BackendRun r;
  impl().context();
  auto module = impl().parse(text, r);
  if (!module)
    return names;
  for (auto fn : module->getOps<mlir::func::FuncOp>())
    if (fn.isPublic() && !fn.isExternal())
      names.push_back(fn.getSymName().str());
  return names;
}

bool MlirJit::entryDriver(const std::string &text, const std::string &entry, EntryDriver &out,
                          std::string &error) {
  BackendRun r;
  impl().context();
  auto module = impl().parse(text, r);
  if (!module) {
    error = r.message;
    return false;
  }
  auto fn = module->lookupSymbol<mlir::func::FuncOp>(entry);
  if (!fn) {
    error = "no function @" + entry;
    return false;
  }
  if (fn.isExternal()) {
    error = "@" + entry + " is a declaration, with no body";
    return false;
  }
  out = EntryDriver();
  const mlir::FunctionType type = fn.getFunctionType();
  bool direct = type.getNumResults() == 0;
  for (mlir::Type t : llvm::concat<const mlir::Type>(type.getInputs(), type.getResults())) {
    std::optional<TensorType> b = bufferFor(t);
    if (!b) {
      error = "@" + entry + ": " + typeText(t) +
              " is not a static memref or tensor, or a scalar, of a case dtype";
      return false;
    }
    out.buffers.push_back(*b);
    direct =
        direct && mlir::isa<mlir::MemRefType>(t) && mlir::cast<mlir::MemRefType>(t).getRank() > 0;
    out.bufferize = out.bufferize || mlir::isa<mlir::RankedTensorType>(t);
  }
  // Every function of the module is lowered, so one on tensors anywhere
  // needs bufferization.
  for (auto other : module->getOps<mlir::func::FuncOp>())
    for (mlir::Type t : llvm::concat<const mlir::Type>(other.getFunctionType().getInputs(),
                                                       other.getFunctionType().getResults()))
      out.bufferize = out.bufferize || mlir::isa<mlir::TensorType>(t);
  if (direct) {
    out.function = entry;
    out.text = text;
    return true;
  }
  // The wrapper: loads scalars, reads tensors from their memrefs, calls the
  // entry and writes every result into its own memref.
  out.function = "npf_drive_" + entry;
  std::string params, body = "  %npf_c0 = arith.constant 0 : index\n", args, argTypes;
  std::string bufferTypes;
  auto memrefOf = [](const TensorType &b, mlir::Type element) {
    std::string s = "memref<";
    for (int64_t d : b.shape)
      s += std::to_string(d) + "x";
    return s + typeText(element) + ">";
  };
  auto elementOf = [](mlir::Type t) {
    auto shaped = mlir::dyn_cast<mlir::ShapedType>(t);
    return shaped ? shaped.getElementType() : t;
  };
  const unsigned numInputs = type.getNumInputs();
  for (unsigned i = 0; i < out.buffers.size(); ++i) {
    const mlir::Type t = i < numInputs ? type.getInput(i) : type.getResult(i - numInputs);
    const std::string buffer = "%npf_b" + std::to_string(i);
    const std::string memref = memrefOf(out.buffers[i], elementOf(t));
    params += (i ? ", " : "") + buffer + ": " + memref;
    if (i >= numInputs)
      continue;
    const std::string arg = "%npf_a" + std::to_string(i);
    const std::string rank0Type = typeText(mlir::MemRefType::get({}, elementOf(t)));
    std::string operand = buffer, operandType = memref;
    if (!mlir::isa<mlir::ShapedType>(t)) {
      body += "  " + arg + " = memref.load " + buffer + "[%npf_c0] : " + memref + "\n";
      operand = arg;
    } else if (mlir::cast<mlir::ShapedType>(t).getRank() == 0) {
      body += "  " + arg + " = memref.collapse_shape " + buffer + " [] : " + memref + " into " +
              rank0Type + "\n";
      operand = arg;
      operandType = rank0Type;
    }
    if (mlir::isa<mlir::RankedTensorType>(t)) {
      body += "  " + arg + "_t = bufferization.to_tensor " + operand +
              " restrict : " + operandType + " to " + typeText(t) + "\n";
      operand = arg + "_t";
    }
    args += (args.empty() ? "" : ", ") + operand;
    argTypes += (argTypes.empty() ? "" : ", ") + typeText(t);
  }
  std::string resultTypes;
  for (mlir::Type t : type.getResults())
    resultTypes += (resultTypes.empty() ? "" : ", ") + typeText(t);
  const unsigned numResults = type.getNumResults();
  body += "  " + (numResults ? std::string("%npf_r:") + std::to_string(numResults) + " = " : "") +
          "func.call @" + entry + "(" + args + ") : (" + argTypes + ") -> (" + resultTypes + ")\n";
  for (unsigned k = 0; k < numResults; ++k) {
    const mlir::Type t = type.getResult(k);
    const std::string result = "%npf_r#" + std::to_string(k);
    const std::string buffer = "%npf_b" + std::to_string(numInputs + k);
    const std::string memref = memrefOf(out.buffers[numInputs + k], elementOf(t));
    auto shaped = mlir::dyn_cast<mlir::ShapedType>(t);
    if (!shaped) {
      body += "  memref.store " + result + ", " + buffer + "[%npf_c0] : " + memref + "\n";
      continue;
    }
    std::string into = buffer;
    if (shaped.getRank() == 0) {
      into = buffer + "_0";
      body += "  " + into + " = memref.collapse_shape " + buffer + " [] : " + memref + " into " +
              typeText(mlir::MemRefType::get({}, elementOf(t))) + "\n";
    }
    const std::string intoType =
        shaped.getRank() == 0 ? typeText(mlir::MemRefType::get({}, elementOf(t))) : memref;
    if (mlir::isa<mlir::RankedTensorType>(t))
      body += "  bufferization.materialize_in_destination " + result + " in writable " + into +
              " : (" + typeText(t) + ", " + intoType + ") -> ()\n";
    else
      body +=
          "  memref.copy " + result + ", " + into + " : " + typeText(t) + " to " + intoType + "\n";
  }
  const std::string wrapper =
      "func.func @" + out.function + "(" + params + ") {\n" + body + "  return\n}\n";
  // Parsed on its own (its call of @entry resolves only in the module) and
  // moved into the module's body: text surgery would misplace it in a file
  // with an implicit module or trailing resources.
  {
    DiagnosticCollector diags(impl().ctx.get());
    mlir::ParserConfig config(impl().ctx.get(), /*verifyAfterParse=*/false);
    auto parsed = mlir::parseSourceString<mlir::ModuleOp>(wrapper, config);
    mlir::func::FuncOp fn =
        parsed ? parsed->lookupSymbol<mlir::func::FuncOp>(out.function) : nullptr;
    if (!fn) {
      error = "cannot drive @" + entry + ": its wrapper does not parse:\n" + diags.take();
      return false;
    }
    fn->remove();
    module->push_back(fn);
    if (mlir::failed(mlir::verify(*module))) {
      error = "cannot drive @" + entry + ": its wrapper does not verify:\n" + diags.take();
      return false;
    }
  }
  out.text = printOp(*module);
  return true;
}

BackendRun MlirJit::execute(const std::string &text, const std::vector<std::string> &elements,
                            const std::string &entry, const std::vector<TensorData> &buffers,
                            const JitOptions &options) {
  std::vector<std::vector<TensorData>> sets = {buffers};
  BackendRun r = executeEach(text, elements, entry, sets, options);
  r.outputs = std::move(sets[0]);
  return r;
}

BackendRun MlirJit::executeEach(const std::string &text, const std::vector<std::string> &elements,
                                const std::string &entry,
                                std::vector<std::vector<TensorData>> &bufferSets,
                                const JitOptions &options) {
  BackendRun r;
  r.mlir = text;
  impl().context();
  auto t0 = Clock::now();
  auto module = impl().parse(text, r);
  if (!module)
    return r;
  if (auto fn = module->lookupSymbol<mlir::func::FuncOp>(entry))
    fn->setAttr("llvm.emit_c_interface", mlir::UnitAttr::get(impl().ctx.get()));
  if (!impl().runPipeline(module, text, withBoundsCheck(elements, options),
                          options.locateFailingPass, r))
    return r;
  r.passSeconds = secondsSince(t0);
  std::vector<std::vector<CallArg>> args(bufferSets.size());
  std::vector<std::vector<CallArg> *> sets;
  for (size_t s = 0; s < bufferSets.size(); ++s) {
    for (TensorData &b : bufferSets[s])
      args[s].push_back({&b, 0, "argument " + std::to_string(args[s].size()), "argument"});
    sets.push_back(&args[s]);
  }
  setScratchPoison(scratchPoison(options.poison));
  impl().compileAndCallEach(*module, entry, sets, options.cpu, r);
  return r;
}

BackendRun MlirJit::run(const MlirKernel &kernel, const std::vector<std::string> &elements,
                        const std::vector<TensorData> &inputs,
                        const std::vector<TensorType> &outputTypes, const JitOptions &options) {
  BackendRun r;
  r.mlir = kernel.text;
  impl().context();
  const std::string key = compileKey(kernel.text, elements, options);
  const bool reuse = options.reuseCompiled && impl().stillCompiled(key, options);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (reuse) {
    r.passWarnings = impl().last.passWarnings;
  } else {
    auto t0 = Clock::now();
    module = impl().parse(kernel.text, r);
    if (!module)
      return r;
    if (!impl().runPipeline(module, kernel.text, withBoundsCheck(elements, options),
                            options.locateFailingPass, r, options.userElements,
                            options.recordIrCoverage, options.verifyTrustedElements,
                            options.recordIrCoverage && options.recordFeedback))
      return r;
    r.passSeconds = secondsSince(t0);
  }

  // Arguments in parameter order: a buffer per memref, a value per index.
  std::vector<TensorData> inputCopies = inputs;
  r.outputs.clear();
  for (const TensorType &t : outputTypes)
    r.outputs.push_back(TensorData::filled(t, options.poison));
  r.outputFill = options.poison;
  std::vector<CallArg> args;
  for (const KernelArg &a : kernel.args) {
    const std::string position = "argument " + std::to_string(args.size());
    if (a.kind == KernelArg::Kind::ValidDim)
      args.push_back({nullptr, a.value, position, ""});
    else if (a.kind == KernelArg::Kind::Input)
      args.push_back({&inputCopies.at(a.index), 0,
                      position + " (input " + std::to_string(a.index) + ")", "input"});
    else
      args.push_back({&r.outputs.at(a.index), 0,
                      position + " (output " + std::to_string(a.index) + ")", "output"});
  }
  // A kernel of the npu style talks to the simulated DMA engine, which
  // records a fault instead of touching memory; report it as the verdict.
  resetSimulator();
  setScratchPoison(scratchPoison(options.poison));
  bool ran = true;
  if (reuse) {
    r.executeSeconds = 0;
    for (const ZeroStartedGlobal &g : impl().last.globals)
      std::memset(g.address, 0, g.bytes);
    impl().call(impl().last.fn, args, r);
  } else {
    ran = impl().compileAndCall(*module, kernel.entry, args, options.cpu, r, key);
  }
  SimFault fault = SimFault::Descriptor;
  if (ran && r.ok() && takeSimulatorFault(r.message, &fault)) {
    switch (fault) {
    case SimFault::Descriptor: r.status = BackendRun::Status::SimulatorFault; break;
    case SimFault::ScratchpadWrite:
    case SimFault::ScratchpadRead:
      // A tile where it does not fit in its memory (seed 004's fourth tile
      // at UB's end): out of bounds, as pto-isa's bounds check makes it.
      r.status = fault == SimFault::ScratchpadWrite ? BackendRun::Status::OutOfBoundsWrite
                                                    : BackendRun::Status::OutOfBoundsRead;
      r.faultSite = "a tile past the end of the scratchpad";
      r.message = "simulator: " + r.faultSite + ": " + r.message;
      break;
    }
  }
  takeKernelTrace(r.kernelTrace);
  return r;
}

} // namespace npufuzz
