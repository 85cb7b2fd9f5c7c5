//===- backend/BackendKind.cpp - Which backend runs a case ----------------===//
#include "backend/BackendKind.h"

namespace npufuzz {

namespace {
struct Row {
  BackendKind kind;
  std::string_view name;
  bool external;
};
constexpr Row kBackends[] = {
#define NPUFUZZ_BACKEND(Kind, name, external, description) {BackendKind::Kind, name, external},
#include "backend/Backends.def"
};
} // namespace

bool parseBackendKind(std::string_view s, BackendKind &out) {
  for (const Row &r : kBackends)
    if (r.name == s) {
      out = r.kind;
      return true;
    }
  return false;
}

std::string_view backendKindName(BackendKind kind) {
  return kBackends[static_cast<size_t>(kind)].name;
}

bool runsExternally(BackendKind kind) { return kBackends[static_cast<size_t>(kind)].external; }

std::string backendNames() {
  std::string out;
  const size_t n = sizeof kBackends / sizeof kBackends[0];
  for (size_t k = 0; k < n; ++k)
    out += std::string(k == 0 ? "" : k + 1 == n ? " or " : ", ") + std::string(kBackends[k].name);
  return out;
}

} // namespace npufuzz
