//===- ir/FileText.h - Read and write whole files, or say why not -*- C++ -*-===//
//
// Every command that takes a file reads it through here, so that a
// directory, a FIFO, a device, a missing or unreadable path, or a file too
// large gives one clear message instead of a hang, an empty read, an
// endless one or an exception. Every file npufuzz keeps is written through
// here too: whole or not at all, and on disk before it replaces the old one.
// A path a user names for output is written the way a shell's redirection
// would write it, except that what is not a regular file (a FIFO, a device
// node, a directory) is never replaced by one.
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

/// Writes `bytes` to the regular file `path` names, whole or not at all as
/// writeFileAtomically does, without ever replacing what is not a regular
/// file: a symlink is followed and its target replaced (the link stays a
/// link), a missing path is created, and a FIFO, a device, a socket or a
/// directory is refused without being opened ("PATH: is a FIFO, not a
/// regular file"). Unless `durable`, nothing is synced to disk: for scratch
/// files written anew for every case, where a reader still sees a whole
/// file or none.
bool writeRegularFile(const std::string &path, const std::string &bytes, std::string &error,
                      bool durable = true);

/// Writes `bytes` to an output path a user named (-o, --json): as
/// writeRegularFile, except that a character device (/dev/null, /dev/full,
/// a terminal) is opened and written rather than refused, and a write it
/// refuses (ENOSPC from /dev/full) is an error with its reason.
bool writeOutputPath(const std::string &path, const std::string &bytes, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_IR_FILETEXT_H
