//===- tools/npufuzz/Commands.h - The subcommands of npufuzz -----*- C++ -*-===//
//
// One file a subcommand, holding its options, their checks and what it
// runs. Each subcommand is made on first use, so the options of its file
// can name it whatever the order of static initialisation.
//
// Exit statuses (ToolOptions.h), the same for every subcommand: 0 nothing
// failed, 1 a finding (a failing verdict, a new signature), 2 an error in
// what npufuzz was given or a machine that refused (a tool that cannot
// start, a write that failed).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TOOLS_NPUFUZZ_COMMANDS_H
#define NPUFUZZ_TOOLS_NPUFUZZ_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace npufuzz::tool {

/// A subcommand and what it runs.
struct Command {
  llvm::cl::SubCommand &(*sub)();
  int (*run)();
};

#define NPUFUZZ_COMMAND(NAME)                                                                      \
  llvm::cl::SubCommand &NAME##Command();                                                           \
  int run##NAME();
NPUFUZZ_COMMAND(Gen)
NPUFUZZ_COMMAND(Check)
NPUFUZZ_COMMAND(Ref)
NPUFUZZ_COMMAND(Sweep)
NPUFUZZ_COMMAND(Run)
NPUFUZZ_COMMAND(VerifyPipeline)
NPUFUZZ_COMMAND(Fuzz)
NPUFUZZ_COMMAND(Merge)
NPUFUZZ_COMMAND(Reduce)
NPUFUZZ_COMMAND(Replay)
NPUFUZZ_COMMAND(ExternalMlir)
NPUFUZZ_COMMAND(Report)
NPUFUZZ_COMMAND(Stats)
NPUFUZZ_COMMAND(FromBytes)
NPUFUZZ_COMMAND(Toolchains)
NPUFUZZ_COMMAND(Export)
#undef NPUFUZZ_COMMAND

/// `npufuzz --seed N` at the top level: whether it was asked for, and run.
bool seedRequested();
int runSeed();

} // namespace npufuzz::tool

#endif // NPUFUZZ_TOOLS_NPUFUZZ_COMMANDS_H
