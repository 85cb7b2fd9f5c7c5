//===- backend/BackendKind.h - Which backend runs a case -------*- C++ -*-===//
#ifndef NPUFUZZ_BACKEND_BACKENDKIND_H
#define NPUFUZZ_BACKEND_BACKENDKIND_H

#include <cstdint>
#include <string>
#include <string_view>

namespace npufuzz {

enum class BackendKind : uint8_t {
#define NPUFUZZ_BACKEND(Kind, name, external, description) Kind,
#include "backend/Backends.def"
};

bool parseBackendKind(std::string_view s, BackendKind &out);
/// The name parseBackendKind reads.
std::string_view backendKindName(BackendKind kind);
/// Whether the kernel runs outside npufuzz, through the external protocol
/// (then MLIR passes, and their blame, do not apply).
bool runsExternally(BackendKind kind);
/// "mlir-jit, mlir-tools, ... or pto": for messages.
std::string backendNames();

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_BACKENDKIND_H
