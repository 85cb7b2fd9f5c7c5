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
SecondsOpt timeout("timeout",
                   cl::desc("Seconds a case may run before it is a hang (1 to 86400; default: "
                            "30, or the backend's own limit and 30 more)"),
                   cl::init(30), cl::sub(ReplayCommand()), cl::cat(category()));
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
  // As a campaign's case: a slow compile is the backend's time-out, never
  // the worker's.
  o.candidateTimeout = caseSeconds(timeout, o.backend);
  return runReplayCommand(o, std::cout);
}

} // namespace npufuzz::tool
