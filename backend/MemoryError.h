//===- backend/MemoryError.h - A process that died of a memory error -*- C++ -*-===//
//
// One memory error shows in more than one way: the same write past a
// buffer segfaults in one run and, with another heap layout (address space
// randomisation, another allocation before it), is caught by glibc's heap
// checks in the next, which abort with a message of their own that names
// where the corruption was noticed, not where it was made. A finding names
// the memory error, never which of these it happened to be.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MEMORYERROR_H
#define NPUFUZZ_BACKEND_MEMORYERROR_H

#include <string>

namespace npufuzz {

/// Whether a process that died of `signal` with `stderrText` hit a memory
/// error: a segfault or bus error, or glibc's heap checks aborting on a
/// corrupted or doubly freed block.
bool diedOfMemoryError(int signal, const std::string &stderrText);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MEMORYERROR_H
