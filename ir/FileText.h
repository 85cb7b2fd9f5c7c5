//===- ir/FileText.h - Read and write whole files, or say why not -*- C++ -*-===//
//
// Every command that takes a file reads it through here, so that a
// directory, a FIFO, a device, a missing or unreadable path, or a file too
// large gives one clear message instead of a hang, an empty read, an
// endless one or an exception. Every file npufuzz keeps is written through
// here too: whole or not at all, and on disk before it replaces the old one.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_FILETEXT_H
#define NPUFUZZ_IR_FILETEXT_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace npufuzz {

/// Reads all of `path` into `bytes`. Only a regular file is read: opening
/// never blocks (a FIFO is refused, not waited on) and a device is refused
/// before a byte is read. On failure returns false and sets `error` to
/// "PATH: reason" (for example "PATH: is a directory, not a file").
bool readFileBytes(const std::string &path, std::string &bytes, std::string &error,
                   size_t maxBytes = SIZE_MAX);

/// Whether `path` names a regular file (following symlinks); otherwise
/// `error` says what it is instead.
bool isRegularFile(const std::string &path, std::string &error);

/// Writes all of `data` to `fd`, retrying on EINTR and short writes. False
/// when the other end is gone or the write fails (errno says why).
bool writeAll(int fd, const char *data, size_t size);

/// Writes `bytes` to `path` through a temporary file beside it: written,
/// flushed to disk (fsync), renamed over `path`, and the directory synced.
/// A reader sees the old file or the new one, never a part, and a failed
/// write (a full disk, a read-only directory) leaves the old file and no
/// temporary. On failure returns false with "PATH: reason" in `error`.
bool writeFileAtomically(const std::string &path, const std::string &bytes, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_IR_FILETEXT_H
