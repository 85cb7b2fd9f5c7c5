//===- tools/npufuzz/ReplayCommand.cpp - npufuzz replay ---------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "driver/ReduceCommand.h"

#include <iostream>

namespace npufuzz::tool {

cl::SubCommand &ReplayCommand() {
  static cl::SubCommand c("replay", "Re-run regression cases; fail if a verdict changed");
  return c;
}

namespace {
cl::opt<std::string> dir(cl::Positional, cl::desc("<dir of .npf regressions>"), cl::Required,
                         cl::sub(ReplayCommand()), cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(ReplayCommand()), cl::cat(category()));
BackendOptions backend(ReplayCommand());
} // namespace

int runReplay() {
  if (!checkPath("<dir of .npf regressions>", dir, PathKind::Directory))
    return kExitError;
  if (!checkPlugins(plugins))
    return kExitError;
  ReplayOptions o;
  o.dir = dir;
  o.plugins = plugins;
  if (!backend.setUp(o.backend))
    return kExitError;
  return runReplayCommand(o, std::cout);
}

} // namespace npufuzz::tool
