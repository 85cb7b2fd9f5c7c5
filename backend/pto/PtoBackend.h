//===- backend/pto/PtoBackend.h - ptoas + the pto-isa CPU simulator -*- C++ -*-===//
//
// The real PTO toolchain as a backend: a case's PTO tile assembly
// (emitPto) goes through ptoas to C++, which is compiled against pto-isa's
// header-only CPU simulator with a generated harness that binds the
// kernel's pointers to the case's buffers and its int32 arguments to the
// runtime valid shapes, and the binary runs under the external limits.
//
// How each stage's end becomes a status:
//   ptoas rejects the kernel               compile-error (its diagnostic)
//   ptoas dies                             crashed
//   pto-isa does not compile ptoas's C++   contract-gap: ptoas accepted
//                                          what the ISA rejects
//   the simulator asserts or dies          crashed (the assertion)
//   memcheck sees an uninitialised read    uninitialized-read (where, and
//                                          the line of ptoas's C++)
//   it exits 0                             the outputs, compared
//
// memcheck (valgrind) watches a share of kernels (--pto-memcheck): seed
// 002's class, a tile whose valid shape is read before it is set, often
// gives right answers in the simulator and garbage on silicon.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PTOBACKEND_H
#define NPUFUZZ_BACKEND_PTO_PTOBACKEND_H

#include "backend/BackendRun.h"
#include "backend/pto/KernelHarness.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npufuzz {

/// Kernels built for one case, kept for the runs its oracles repeat with
/// another poison fill: the same kernel and buffers build the same binary.
struct PtoBuilds;
std::shared_ptr<PtoBuilds> newPtoBuilds();

struct PtoToolchain {
  std::string ptoas;                   ///< the ptoas binary
  std::string ptoIsa;                  ///< pto-isa's include directory (holds pto/pto-inst.hpp)
  std::string arch = "a3";             ///< --pto-arch
  std::vector<std::string> ptoasFlags; ///< more ptoas options
  /// Run ptoas with --enable-insert-sync: kernels synchronised as they
  /// would ship (set/wait flags between pipes, barriers, a tail sync).
  /// Off, a kernel has no synchronisation, which the sequential simulator
  /// cannot tell apart.
  bool insertSync = true;
  /// Build kernels with the pipe trace (backend/pto/TraceShim.h), which the
  /// race oracle orders; a kernel with a t-op the shim does not know, or
  /// one memcheck watches, is built without it.
  bool raceTrace = true;
  std::string cxx = "clang++-22"; ///< compiles the simulator
  unsigned timeoutSeconds = 60;   ///< per stage
  uint64_t addressSpaceBytes = 8ull << 30;
  /// Parent of the case directories (the system temporary directory when
  /// empty) and of the precompiled simulator header.
  std::string workDir;
  bool keepCaseDir = false;
  /// The share of kernels run under memcheck, chosen by kernel text (0:
  /// none, 1: all): a watched kernel costs about 2 s more (valgrind, and a
  /// build of its own with line tables), so by default 2 %.
  double memcheckShare = 0.02;
  std::string valgrind = "valgrind";
  /// Set for the span of one case (runCaseTask): its builds are reused.
  std::shared_ptr<PtoBuilds> builds;
  /// Where prebuildPto files kernels built together ahead of their cases
  /// (a campaign's); empty: every case builds its own.
  std::string batchDir;
  /// A cache bug planted in a chain's harness (backend/pto/KernelHarness.h),
  /// for testing the cache-coherency oracle on the real toolchain.
  HarnessBug harnessBug = HarnessBug::None;
  /// --backend simpler (SimplerBackend.h): a Python that imports simpler,
  /// the adapter it runs, and its limit a case, which builds a kernel per
  /// task and the orchestration with simpler's compiler (a few seconds
  /// each).
  std::string simplerPython, simplerAdapter;
  unsigned simplerTimeoutSeconds = 300;
  /// --backend pypto (PyptoBackend.h): a Python that imports PyPTO, and the
  /// adapter it runs (tools/adapters/pypto_compile.py).
  std::string pyptoPython, pyptoAdapter;
};

/// Checks what the backend needs besides ptoas and pto-isa, which
/// setUpPtoToolchain (backend/toolchains) finds: the compiler, valgrind
/// when memcheck watches kernels, the arch. False with what to do otherwise.
bool checkPtoToolchain(const PtoToolchain &t, std::string &error);

/// Runs `c` with `inputs` (in input-op order) through ptoas and the
/// simulator; outputs start as `poison`-filled buffers.
BackendRun runPto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                  uint32_t poison);

/// runPto from the `.pto` `text` of `c`'s kernel on, which another front
/// end (PyPTO) may have written: ptoas (at level 3 when `placesTiles`: the
/// kernel gives its tiles their addresses), the simulator, the outputs. `r`
/// holds what the front end measured.
BackendRun runPtoText(const PtoToolchain &t, const Case &c, const std::string &text,
                      bool placesTiles, const std::vector<TensorData> &inputs, uint32_t poison,
                      BackendRun r);

/// The simulator stage alone, on a kernel.cpp that ptoas made or someone
/// wrote: `validShapes` are its trailing int arguments.
BackendRun runPtoKernel(const PtoToolchain &t, const std::string &kernelCpp,
                        const std::vector<TensorData> &inputs,
                        const std::vector<TensorType> &outputTypes,
                        const std::vector<int64_t> &validShapes, uint32_t poison, bool memcheck);

/// Builds the kernels of `cases` (those PTO expresses and memcheck does not
/// watch) in one compiler run into `t.batchDir`, where runPto finds them;
/// how many. A batch that does not compile files nothing: each of its cases
/// then builds alone and gets its own verdict.
unsigned prebuildPto(const PtoToolchain &t, const std::vector<Case> &cases);

/// ptoas's C++ for `c`, as runPto makes it: DIR/kernel.pto through ptoas
/// into DIR/kernel.cpp. False with `r` saying why: unsupported (PTO cannot
/// express the case), compile-error (ptoas rejects it), crashed.
bool assemblePto(const PtoToolchain &t, const Case &c, const std::string &dir, BackendRun &r);

/// What a finding keeps: kernel.pto and ptoas's kernel.cpp (what of them
/// exists for `c`).
std::map<std::string, std::string> ptoPrograms(const PtoToolchain &t, const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PTOBACKEND_H
