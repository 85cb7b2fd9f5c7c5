//===- backend/MemoryError.cpp - A process that died of a memory error ----===//
#include "backend/MemoryError.h"

#include <csignal>

namespace npufuzz {

bool diedOfMemoryError(int signal, const std::string &stderrText) {
  if (signal == SIGSEGV || signal == SIGBUS)
    return true;
  if (signal != SIGABRT)
    return false;
  // glibc's messages: "free(): invalid pointer", "double free or corruption
  // (out)", "malloc(): corrupted top size", and since 2.37 "Fatal glibc
  // error: malloc assertion failure in __libc_calloc: ...".
  for (const char *heap : {"free(): ", "malloc(): ", "realloc(): ", "double free", "corrupted ",
                           "munmap_chunk(): ", "malloc assertion failure"})
    if (stderrText.find(heap) != std::string::npos)
      return true;
  return false;
}

} // namespace npufuzz
