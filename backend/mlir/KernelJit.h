//===- backend/mlir/KernelJit.h - One LLVM JIT for every kernel -*- C++ -*-===//
//
// A process compiles thousands of kernels. mlir::ExecutionEngine builds a
// whole ORC stack for each (an execution session, a target machine, a
// platform whose teardown compiles a module of its own) and tears it down
// again; that was a sixth of a case's time. KernelJit builds the stack once
// per CPU and process, with the runtime's symbols and MLIR's C runner utils
// resolved once, and gives each kernel a resource tracker of its own: the
// code of the kernel compiled last stays callable until the next compile,
// so a rerun of the same kernel on other inputs calls it again. No MLIR or
// LLVM headers here.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_KERNELJIT_H
#define NPUFUZZ_BACKEND_MLIR_KERNELJIT_H

#include "backend/runtime/BoundsCheck.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace npufuzz {

class KernelJit {
public:
  /// The JIT for `cpu` (`host`: this machine's CPU and features), built on
  /// first use; null with `error` when LLVM has no target machine for it.
  static KernelJit *forCpu(const std::string &cpu, std::string &error);

  ~KernelJit();
  KernelJit(const KernelJit &) = delete;
  KernelJit &operator=(const KernelJit &) = delete;

  /// Sets the module's target triple and data layout to the JIT's: what the
  /// module is compiled for.
  void prepare(llvm::Module &module) const;

  /// Compiles `module` (prepared, its context with it), its memref
  /// descriptors' fields forwarded from insertvalue to extractvalue, with the
  /// packed entry `_mlir__mlir_ciface_<entry>` that ExecutionEngine's
  /// lookupPacked names, and returns that entry; null with `error`. The
  /// kernel compiled before is released first.
  PackedKernel compile(std::unique_ptr<llvm::LLVMContext> context,
                       std::unique_ptr<llvm::Module> module, const std::string &entry,
                       std::string &error);

  /// The address of `name`, a symbol the kernel compiled last defines (and
  /// exports); null when it has none.
  void *address(const std::string &name);

  /// Releases the kernel compiled last, if any.
  void release();

  /// How many kernels this JIT has compiled: the code `compile` returned
  /// is callable while this is what it was just after.
  uint64_t generation() const;

private:
  struct Impl;
  explicit KernelJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_KERNELJIT_H
