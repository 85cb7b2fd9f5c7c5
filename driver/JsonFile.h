//===- driver/JsonFile.h - JSON files and counts ----------------*- C++ -*-===//
//
// For driver sources only: it brings in LLVM's JSON, which the headers
// other layers include must not.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_JSONFILE_H
#define NPUFUZZ_DRIVER_JSONFILE_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace npufuzz {

/// A JSON file's value; nothing when it cannot be read or parsed.
std::optional<llvm::json::Value> readJsonFile(const std::string &path);

/// Counts by name (verdicts, features, ops) as a JSON object, and back; a
/// missing object reads as no counts.
inline llvm::json::Object countsJson(const std::map<std::string, uint64_t> &counts) {
  llvm::json::Object o;
  for (const auto &[k, n] : counts)
    o[k] = static_cast<int64_t>(n);
  return o;
}
inline void readCounts(const llvm::json::Object *o, std::map<std::string, uint64_t> &out) {
  if (!o)
    return;
  for (const auto &kv : *o)
    out[kv.first.str()] = static_cast<uint64_t>(kv.second.getAsInteger().value_or(0));
}

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_JSONFILE_H
