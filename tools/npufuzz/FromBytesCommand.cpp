//===- tools/npufuzz/FromBytesCommand.cpp - npufuzz from-bytes --------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "generators/FuzzInput.h"
#include "ir/FileText.h"
#include "ir/Text.h"

#include <iostream>

namespace npufuzz::tool {

cl::SubCommand &FromBytesCommand() {
  static cl::SubCommand c("from-bytes", "Decode a fuzzer input (libFuzzer, AFL++) into its .npf "
                                        "case");
  return c;
}

namespace {
cl::opt<std::string> file(cl::Positional, cl::desc("<input>"), cl::Required,
                          cl::sub(FromBytesCommand()), cl::cat(category()));
cl::opt<std::string> out("o", cl::desc("Write the case here instead of stdout"),
                         cl::value_desc("FILE"), cl::sub(FromBytesCommand()), cl::cat(category()));
} // namespace

int runFromBytes() {
  std::string bytes, error;
  if (!readFileBytes(file, bytes, error, 64u << 20))
    return fail("cannot read " + error);
  const std::string text =
      printCase(caseFromBytes(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  if (out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  return writeOutputFile(out, text) ? kExitOk : kExitError;
}

} // namespace npufuzz::tool
