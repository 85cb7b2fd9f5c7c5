//===- backend/external/CommandProcess.h - Starting a command safely -*- C++ -*-===//
//
// What one-shot and persistent external commands share: finding the
// program before fork (the child may only make async-signal-safe calls),
// the limits a started command gets, and reading what it printed.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EXTERNAL_COMMANDPROCESS_H
#define NPUFUZZ_BACKEND_EXTERNAL_COMMANDPROCESS_H

#include "backend/external/ExternalBackend.h"

#include <string>
#include <vector>

namespace npufuzz {

/// argv[0] resolved against PATH (in the parent, before fork).
std::string resolveProgram(const std::string &name);

/// The environment a command runs in: npufuzz's, with the command's own
/// variables (ExternalToolchain::environment) over it. Built before fork;
/// `pointers` (null-terminated, into `variables`) is what execve takes.
void commandEnvironment(const ExternalToolchain &cmd, std::vector<std::string> &variables,
                        std::vector<char *> &pointers);

/// In a freshly forked child, before exec: its own process group (a kill
/// takes its children too), death with the parent, RLIMIT_AS, no core
/// files. Async-signal-safe.
void enterCommandChild(const ExternalToolchain &cmd);

/// In the parent after fork: reads the close-on-exec pipe `reportFd` on
/// which a child whose exec failed wrote its errno, and closes it. Returns
/// 0 when the exec succeeded (the pipe closed empty); otherwise the errno,
/// with the child reaped.
int execError(int reportFd, pid_t pid);

/// The last `max` bytes of a file (all of it from `offset` on, at most
/// `max`).
std::string readTail(const std::string &path, size_t max, size_t offset = 0);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EXTERNAL_COMMANDPROCESS_H
