//===- backend/mlir/KernelJit.cpp - One LLVM JIT for every kernel ---------===//
#include "backend/mlir/KernelJit.h"

#include "backend/runtime/Runtime.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Host.h"

#include <map>

namespace npufuzz {

namespace {
std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

/// The builder of target machines for `cpu`, at the code generation level
/// the kernels have always had (none: what the lowering wrote is what runs).
llvm::Expected<llvm::orc::JITTargetMachineBuilder> machineBuilder(const std::string &cpu) {
  if (cpu == "host") {
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (builder)
      builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    return builder;
  }
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(llvm::sys::getProcessTriple())};
  builder.setCPU(cpu);
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
  // A CPU LLVM does not know is refused here, not at the first kernel.
  auto machine = builder.createTargetMachine();
  if (!machine)
    return machine.takeError();
  return builder;
}

/// Defines `_mlir_<name>(void **args)`, which loads each parameter of
/// `name` from the pointer at its index and calls it: the calling
/// convention of ExecutionEngine::lookupPacked, for one function.
bool addPackedWrapper(llvm::Module &module, const std::string &name) {
  llvm::Function *fn = module.getFunction(name);
  if (!fn || fn->isDeclaration())
    return false;
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *type = llvm::FunctionType::get(b.getVoidTy(), b.getPtrTy(), /*isVarArg=*/false);
  auto *packed =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "_mlir_" + name, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "", packed));
  llvm::Value *list = packed->getArg(0);
  std::vector<llvm::Value *> args;
  for (llvm::Argument &param : fn->args()) {
    llvm::Value *slot = b.CreateGEP(b.getPtrTy(), list, b.getInt64(param.getArgNo()));
    args.push_back(b.CreateLoad(param.getType(), b.CreateLoad(b.getPtrTy(), slot)));
  }
  llvm::Value *result = b.CreateCall(fn, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot = b.CreateGEP(b.getPtrTy(), list, b.getInt64(fn->arg_size()));
    b.CreateStore(result, b.CreateLoad(b.getPtrTy(), slot));
  }
  b.CreateRetVoid();
  return true;
}
/// Replaces each load of an aggregate that is only taken apart (every use an
/// extractvalue) by a load of each field taken, at the same point, from the
/// field's address. The C interface's wrapper of a kernel loads each memref
/// descriptor whole: FastISel cannot select such a load, and the wrapper
/// went to SelectionDAG, more than half the code generator's time for a
/// small kernel. Loading the fields one by one where the aggregate was
/// loaded reads the same bytes at the same moment.
void splitAggregateLoads(llvm::Module &module) {
  const llvm::DataLayout &layout = module.getDataLayout();
  std::vector<llvm::LoadInst *> work;
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : block)
        if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst);
            load && load->getType()->isAggregateType())
          work.push_back(load);
  while (!work.empty()) {
    llvm::LoadInst *load = work.back();
    work.pop_back();
    if (!load->isSimple() || !llvm::all_of(load->users(), [](const llvm::User *u) {
          return llvm::isa<llvm::ExtractValueInst>(u);
        }))
      continue;
    llvm::IRBuilder<> b(load);
    for (llvm::User *user : llvm::make_early_inc_range(load->users())) {
      auto *extract = llvm::cast<llvm::ExtractValueInst>(user);
      std::vector<llvm::Value *> path = {b.getInt32(0)};
      for (unsigned index : extract->getIndices())
        path.push_back(b.getInt32(index));
      const uint64_t offset = layout.getIndexedOffsetInType(load->getType(), path);
      llvm::Value *address = b.CreateInBoundsGEP(load->getType(), load->getPointerOperand(), path);
      llvm::LoadInst *field = b.CreateAlignedLoad(extract->getType(), address,
                                                  llvm::commonAlignment(load->getAlign(), offset));
      extract->replaceAllUsesWith(field);
      extract->eraseFromParent();
      if (field->getType()->isAggregateType()) // a field that is an aggregate itself
        work.push_back(field);
    }
    load->eraseFromParent();
  }
}

/// Replaces each extractvalue of a field an insertvalue put in its
/// aggregate by the inserted value, then drops the insertvalues nothing
/// uses any more. The lowering builds every memref descriptor with
/// insertvalues and takes it apart with extractvalues; these are the same
/// values without the aggregate operations, which FastISel cannot select
/// (each one sent the rest of its block to SelectionDAG, two thirds of the
/// code generator's time). Nothing else changes: no load, store or
/// arithmetic is touched.
void forwardAggregateFields(llvm::Module &module) {
  for (llvm::Function &fn : module)
    for (llvm::BasicBlock &block : fn)
      for (llvm::Instruction &inst : llvm::make_early_inc_range(block))
        if (auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(&inst))
          if (llvm::Value *field =
                  llvm::FindInsertedValue(extract->getAggregateOperand(), extract->getIndices());
              field && field != extract) {
            extract->replaceAllUsesWith(field);
            extract->eraseFromParent();
          }
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function &fn : module)
      for (llvm::BasicBlock &block : fn)
        for (llvm::Instruction &inst : llvm::make_early_inc_range(llvm::reverse(block)))
          if (llvm::isa<llvm::InsertValueInst>(inst) && inst.use_empty()) {
            inst.eraseFromParent();
            erased = true;
          }
  }
}
} // namespace

struct KernelJit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::orc::ResourceTrackerSP current; ///< the kernel compiled last
  uint64_t compiled = 0;                ///< kernels compiled (or tried)
};

KernelJit::KernelJit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KernelJit::~KernelJit() { release(); }

KernelJit *KernelJit::forCpu(const std::string &cpu, std::string &error) {
  // One per CPU for the life of the process: a worker compiles every case
  // of its run with it. Never destroyed: a process that ends tears down
  // nothing (and LLVM's own statics may be gone by then).
  static auto *jits = new std::map<std::string, KernelJit *>();
  if (const auto it = jits->find(cpu); it != jits->end())
    return it->second;
  auto builder = machineBuilder(cpu);
  if (!builder) {
    error = "no target machine for cpu '" + cpu + "': " + errorText(builder.takeError());
    return nullptr;
  }
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*builder)
          .setCompileFunctionCreator(
              [](llvm::orc::JITTargetMachineBuilder jtmb)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                auto machine = jtmb.createTargetMachine();
                if (!machine)
                  return machine.takeError();
                return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(*machine));
              })
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [](const llvm::MemoryBuffer &) {
                      return std::make_unique<llvm::SectionMemoryManager>();
                    });
              })
          // Kernels have no static constructors or destructors to run: no
          // platform, whose setup and teardown would compile modules of
          // their own.
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .create();
  if (!jit) {
    error = "cannot build the kernel JIT: " + errorText(jit.takeError());
    return nullptr;
  }
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  const char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  // The runtime's symbols (the kernel heap's malloc and free, bounds
  // checks, the simulated DMA engine) take precedence over the process's.
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(), (*jit)->getDataLayout());
  llvm::orc::SymbolMap runtime;
  for (const auto &[name, address] : runtimeSymbols())
    runtime[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    error = "cannot define the kernel runtime's symbols: " + errorText(std::move(e));
    return nullptr;
  }
  // memref.copy of non-contiguous memrefs lowers to a call to memrefCopy.
  auto utils = llvm::orc::DynamicLibrarySearchGenerator::Load(NPUFUZZ_MLIR_C_RUNNER_UTILS, prefix);
  if (!utils) {
    error = "cannot load " NPUFUZZ_MLIR_C_RUNNER_UTILS ": " + errorText(utils.takeError());
    return nullptr;
  }
  main.addGenerator(std::move(*utils));
  auto impl = std::make_unique<Impl>();
  impl->jit = std::move(*jit);
  return (*jits)[cpu] = new KernelJit(std::move(impl));
}

void KernelJit::prepare(llvm::Module &module) const {
  module.setDataLayout(impl_->jit->getDataLayout());
  module.setTargetTriple(impl_->jit->getTargetTriple());
}

PackedKernel KernelJit::compile(std::unique_ptr<llvm::LLVMContext> context,
                                std::unique_ptr<llvm::Module> module, const std::string &entry,
                                std::string &error) {
  release();
  ++impl_->compiled;
  const std::string ciface = "_mlir_ciface_" + entry;
  if (!addPackedWrapper(*module, ciface)) {
    error = "no function " + ciface + " with a body in the translated module";
    return nullptr;
  }
  splitAggregateLoads(*module);
  forwardAggregateFields(*module);
  llvm::orc::ResourceTrackerSP tracker = impl_->jit->getMainJITDylib().createResourceTracker();
  if (llvm::Error e = impl_->jit->addIRModule(
          tracker, llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    error = errorText(std::move(e));
    llvm::consumeError(tracker->remove());
    return nullptr;
  }
  // The lookup compiles the module.
  auto address = impl_->jit->lookup("_mlir_" + ciface);
  if (!address) {
    error = errorText(address.takeError());
    llvm::consumeError(tracker->remove());
    return nullptr;
  }
  impl_->current = std::move(tracker);
  return address->toPtr<PackedKernel>();
}

uint64_t KernelJit::generation() const { return impl_->compiled; }

void *KernelJit::address(const std::string &name) {
  auto found = impl_->jit->lookup(name);
  if (!found) {
    llvm::consumeError(found.takeError());
    return nullptr;
  }
  return found->toPtr<void *>();
}

void KernelJit::release() {
  if (impl_ && impl_->current) {
    llvm::consumeError(impl_->current->remove());
    impl_->current = nullptr;
  }
}

} // namespace npufuzz
