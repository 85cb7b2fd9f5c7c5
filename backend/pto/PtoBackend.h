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
//   it exits 0                             the outputs, compared
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PTOBACKEND_H
#define NPUFUZZ_BACKEND_PTO_PTOBACKEND_H

#include "backend/BackendRun.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

struct PtoToolchain {
  std::string ptoas;  ///< the ptoas binary
  std::string ptoIsa; ///< pto-isa's include directory (holds pto/pto-inst.hpp)
  std::string arch = "a3";            ///< --pto-arch
  std::vector<std::string> ptoasFlags; ///< more ptoas options
  std::string cxx = "clang++-22";     ///< compiles the simulator
  unsigned timeoutSeconds = 60;       ///< per stage
  uint64_t addressSpaceBytes = 8ull << 30;
  /// Parent of the case directories (the system temporary directory when
  /// empty) and of the precompiled simulator header.
  std::string workDir;
  bool keepCaseDir = false;
};

/// Fills `t.ptoas` and `t.ptoIsa` from $NPUFUZZ_PTOAS and $NPUFUZZ_PTO_ISA
/// where empty, and checks both; false with what to do otherwise.
bool resolvePtoToolchain(PtoToolchain &t, std::string &error);

/// Runs `c` with `inputs` (in input-op order) through ptoas and the
/// simulator; outputs start as `poison`-filled buffers.
BackendRun runPto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                  uint32_t poison);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PTOBACKEND_H
