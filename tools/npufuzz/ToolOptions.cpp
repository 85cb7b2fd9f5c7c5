//===- tools/npufuzz/ToolOptions.cpp - What every subcommand shares --------===//
#include "tools/npufuzz/ToolOptions.h"

#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "ir/Case.h"
#include "ir/FileText.h"
#include "ir/Text.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace npufuzz::tool {

cl::OptionCategory &category() {
  static cl::OptionCategory c("npufuzz options");
  return c;
}

int fail(const std::string &msg) {
  llvm::errs() << "npufuzz: " << msg << "\n";
  return kExitError;
}

bool parseFiniteReal(llvm::StringRef text, double &value) {
  text = text.trim();
  if (text.empty())
    return false;
  const std::string s = text.str();
  char *end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
    return false;
  value = v;
  return true;
}

namespace {
/// The address space this process maps now (VmSize), in MiB; 0 if unknown.
uint64_t mappedMb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0)
      return std::strtoull(line.c_str() + 7, nullptr, 10) >> 10;
  return 0;
}
} // namespace

bool checkMemoryLimit(const std::string &flag, uint64_t mb) {
  const uint64_t need = mappedMb() + 256;
  if (mb >= need)
    return true;
  fail(flag + " " + std::to_string(mb) + " leaves a worker no room: npufuzz itself maps " +
       std::to_string(need - 256) + " MiB; give at least " + std::to_string(need));
  return false;
}

bool parseShard(const std::string &text, unsigned &index, unsigned &count) {
  llvm::StringRef i, n;
  std::tie(i, n) = llvm::StringRef(text).split('/');
  uint64_t iv = 0, nv = 0;
  if (i.getAsInteger(10, iv) || n.getAsInteger(10, nv) || nv == 0 || nv > 65536 || iv >= nv) {
    fail("--shard takes I/N with 0 <= I < N <= 65536, not '" + text + "'");
    return false;
  }
  index = static_cast<unsigned>(iv);
  count = static_cast<unsigned>(nv);
  return true;
}

bool checkPath(const std::string &flag, const std::string &path, PathKind kind) {
  auto refuse = [&](const std::string &why) {
    fail(flag + ": " + why);
    return false;
  };
  // isRegularFile says what a path is when it is not a regular file (a
  // directory, a FIFO, a device) or why it cannot be looked at.
  std::string notRegular;
  const bool regular = isRegularFile(path, notRegular);
  switch (kind) {
  case PathKind::RegularFile: return regular || refuse(notRegular);
  case PathKind::Directory: {
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
      return refuse(notRegular); // the path and why it cannot be looked at
    return S_ISDIR(st.st_mode) || refuse(path + ": is not a directory");
  }
  case PathKind::Executable:
    if (!regular)
      return refuse(notRegular);
    return ::access(path.c_str(), X_OK) == 0 || refuse(path + ": is not executable");
  }
  return false;
}

bool loadCase(const std::string &path, Case &c, std::string *text) {
  TextError error;
  if (parseCaseFile(path, c, error, text))
    return true;
  llvm::errs() << error.format(path) << "\n";
  return false;
}

bool loadPolicy(const std::string &path, Policy &policy) {
  policy = Policy::defaults();
  if (path.empty())
    return true;
  std::string error;
  if (!parsePolicyFile(path, policy, error)) {
    fail(error);
    return false;
  }
  // A policy under which no op can be built gives every seed the fallback
  // case (abs of one f32 input): its campaign would test nothing it asked for.
  constexpr unsigned kSamples = 32;
  const uint64_t fellBack = policyFallbacks(policy, kSamples);
  if (fellBack == kSamples) {
    fail(path + ": no case satisfies it (no op could be built for any of " +
         std::to_string(kSamples) + " seeds)");
    return false;
  }
  if (fellBack)
    llvm::errs() << "npufuzz: warning: " << path << ": " << fellBack << " of " << kSamples
                 << " seeds make no case under it and get the fallback case (abs of one f32 "
                    "input)\n";
  return true;
}

bool writeOutputFile(const std::string &path, const std::string &text) {
  std::string error;
  // Not writeFileAtomically: a rename would put a regular file in place of
  // a device node, a FIFO or a symlink the user named.
  if (writeOutputPath(path, text, error))
    return true;
  fail("cannot write " + error);
  return false;
}

bool splitCommand(const std::string &option, const std::string &text,
                  std::vector<std::string> &argv) {
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quote == '\'') {
      if (ch == '\'')
        quote = 0;
    } else if (ch == '\\') {
      if (++i == text.size()) {
        fail("--" + option + " ends with a lone backslash: " + text);
        return false;
      }
    } else if (quote == '"') {
      if (ch == '"')
        quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    }
  }
  if (quote) {
    fail(std::string("--") + option + " has an unterminated " +
         (quote == '"' ? "double" : "single") + " quote: " + text);
    return false;
  }
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 8> words;
  cl::TokenizeGNUCommandLine(text, saver, words);
  argv.assign(words.begin(), words.end());
  if (argv.empty() || argv[0].empty()) {
    fail("--" + option + " names no program");
    return false;
  }
  return true;
}

} // namespace npufuzz::tool
