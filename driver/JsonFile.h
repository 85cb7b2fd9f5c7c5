//===- driver/JsonFile.h - Read a JSON file -------------------*- C++ -*-===//
//
// For driver sources only: it brings in LLVM's JSON, which the headers
// other layers include must not.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_JSONFILE_H
#define NPUFUZZ_DRIVER_JSONFILE_H

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace npufuzz {

/// A JSON file's value; nothing when it cannot be read or parsed.
std::optional<llvm::json::Value> readJsonFile(const std::string &path);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_JSONFILE_H
