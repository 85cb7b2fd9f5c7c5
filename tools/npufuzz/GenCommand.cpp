//===- tools/npufuzz/GenCommand.cpp - npufuzz gen ---------------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "ir/Text.h"

#include <iostream>

namespace npufuzz::tool {

cl::SubCommand &GenCommand() {
  static cl::SubCommand c("gen", "Print the case generated from a seed");
  return c;
}

namespace {
SeedOpt seed("seed", cl::desc("Generator seed"), cl::init(0), cl::sub(GenCommand()),
             cl::cat(category()));
cl::opt<std::string> policyPath("policy", cl::desc("Policy file (key = value lines)"),
                                cl::value_desc("FILE"), cl::sub(GenCommand()), cl::cat(category()));
cl::opt<std::string> out("o", cl::desc("Write the case here instead of stdout"),
                         cl::value_desc("FILE"), cl::sub(GenCommand()), cl::cat(category()));
} // namespace

int runGen() {
  Policy policy;
  if (!loadPolicy(policyPath, policy))
    return kExitError;
  const std::string text = printCase(generateCase(seed, policy));
  if (out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  return writeOutputFile(out, text) ? kExitOk : kExitError;
}

} // namespace npufuzz::tool
