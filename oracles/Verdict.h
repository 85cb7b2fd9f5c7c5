//===- oracles/Verdict.h - The outcome of one case -------------*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_VERDICT_H
#define NPUFUZZ_ORACLES_VERDICT_H

#include <optional>
#include <string_view>

namespace npufuzz {

enum class VerdictKind : uint8_t {
  Ok,
  Mismatch,          ///< an output differs from the reference
  Crash,             ///< the compiler or kernel died (signal, assertion)
  VerifierError,     ///< IR failed to verify (codegen or after a pass)
  PassFailure,       ///< a pass signalled failure
  CompileError,      ///< LLVM translation or code generation failed
  Hang,              ///< exceeded the time limit
  Oom,               ///< exceeded the memory limit
  Unsupported,       ///< the backend cannot express the case
  UninitializedRead, ///< a defined output depends on uninitialised memory
  Nondeterministic,  ///< the same run gave different outputs
  ReferenceError,    ///< the reference itself failed (a harness bug)
  SimulatorFault,    ///< the simulated NPU runtime rejected an operation
  ContractGap,       ///< a tool accepted what the next tool of its chain rejects
};
constexpr int kNumVerdictKinds = 14;

std::string_view verdictName(VerdictKind k);
std::optional<VerdictKind> parseVerdictName(std::string_view s);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_VERDICT_H
