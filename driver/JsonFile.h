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

/// A JSON file's value; nothing when it cannot be read or parsed. Read
/// with a size cap, and only from a regular file: a campaign file that is a
/// symlink to /dev/zero, a FIFO or a device is not read forever. With
/// `error`, why not, when nothing.
std::optional<llvm::json::Value> readJsonFile(const std::string &path);
std::optional<llvm::json::Value> readJsonFile(const std::string &path, std::string &error);

/// Counts by name (verdicts, features, ops) as a JSON object, and back; a
/// missing object reads as no counts. Reading says whether every count was
/// one (an integer, not negative); what is not reads as 0.
inline llvm::json::Object countsJson(const std::map<std::string, uint64_t> &counts) {
  llvm::json::Object o;
  for (const auto &[k, n] : counts)
    o[k] = static_cast<int64_t>(n);
  return o;
}
inline bool readCounts(const llvm::json::Object *o, std::map<std::string, uint64_t> &out) {
  bool counts = true;
  for (const auto &kv : o ? *o : llvm::json::Object()) {
    const std::optional<int64_t> n = kv.second.getAsInteger();
    counts &= n && *n >= 0;
    out[kv.first.str()] = n && *n >= 0 ? static_cast<uint64_t>(*n) : 0;
  }
  return counts;
}

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_JSONFILE_H
