//===- ir/FileText.h - Read a whole input file, or say why not -*- C++ -*-===//
//
// Every command that takes a file reads it through here, so that a
// directory, a missing or unreadable path, or a file too large gives one
// clear message instead of an empty read or an exception.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_FILETEXT_H
#define NPUFUZZ_IR_FILETEXT_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace npufuzz {

/// Reads all of `path` into `bytes`. On failure returns false and sets
/// `error` to "PATH: reason" (for example "PATH: is a directory").
bool readFileBytes(const std::string &path, std::string &bytes, std::string &error,
                   size_t maxBytes = SIZE_MAX);

} // namespace npufuzz

#endif // NPUFUZZ_IR_FILETEXT_H
