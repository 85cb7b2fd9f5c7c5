//===- tools/npufuzz/ToolOptions.h - What every subcommand shares -*- C++ -*-===//
//
// The option category, the exit statuses, and strict parsers for numeric
// flags. A number npufuzz is given is checked while the command line is
// parsed, so `--timeout nan`, `--jobs -1` or `--shard 1/4294967298` stop
// before any work starts with one line naming the flag, and exit 2 (an
// error in what npufuzz was given), never become findings.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TOOLS_NPUFUZZ_TOOLOPTIONS_H
#define NPUFUZZ_TOOLS_NPUFUZZ_TOOLOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {
struct Case;
struct Policy;
} // namespace npufuzz

namespace npufuzz::tool {

namespace cl = llvm::cl;

/// The category every npufuzz option belongs to (--help shows only it).
cl::OptionCategory &category();

/// Exit statuses, the same for every subcommand (README: exit status).
enum ExitStatus : int {
  kExitOk = 0,      ///< nothing failed
  kExitFinding = 1, ///< a failing verdict, a new signature
  kExitError = 2,   ///< an error in what npufuzz was given, or the machine refused
};

/// Prints "npufuzz: MSG" on stderr and returns kExitError.
int fail(const std::string &msg);

/// Parses a decimal real that is finite (nan, inf and trailing junk are
/// refused) into `value`; false otherwise.
bool parseFiniteReal(llvm::StringRef text, double &value);

/// A real flag bounded by `Bounds::lo` and `Bounds::hi` (both inclusive).
/// `Bounds::text` says the range in --help's words ("seconds from 1 to
/// 86400").
template <typename Bounds> class RealParser : public cl::parser<double> {
public:
  using cl::parser<double>::parser;
  bool parse(cl::Option &o, llvm::StringRef, llvm::StringRef arg, double &value) {
    double v = 0;
    if (!parseFiniteReal(arg, v) || v < Bounds::lo || v > Bounds::hi)
      return o.error(std::string("takes ") + Bounds::text + ", not '" + arg.str() + "'");
    value = v;
    return false;
  }
};

/// An unsigned decimal flag in [Lo, Hi]; a sign, a radix prefix or junk is
/// refused (llvm::cl's own parser takes "0x10" and wraps nothing, but
/// says nothing of ranges).
template <typename T, uint64_t Lo, uint64_t Hi> class CountParser : public cl::parser<T> {
public:
  using cl::parser<T>::parser;
  bool parse(cl::Option &o, llvm::StringRef, llvm::StringRef arg, T &value) {
    uint64_t v = 0;
    if (arg.getAsInteger(10, v) || v < Lo || v > Hi)
      return o.error("takes a whole number from " + std::to_string(Lo) + " to " +
                     std::to_string(Hi) + ", not '" + arg.str() + "'");
    value = static_cast<T>(v);
    return false;
  }
};

/// The ranges of the numeric flags, one place for --help and the checks.
struct CaseSeconds { ///< --timeout: a case, a candidate, a verify-pipeline run
  static constexpr double lo = 1, hi = 86400;
  static constexpr const char *text = "seconds from 1 to 86400";
};
struct CampaignSeconds { ///< fuzz --max-time (0: no limit)
  static constexpr double lo = 0, hi = 1e7;
  static constexpr const char *text = "seconds from 0 (no limit) to 10000000";
};
struct ReduceSeconds { ///< reduce --max-time, fuzz --reduce-time
  static constexpr double lo = 1, hi = 604800;
  static constexpr const char *text = "seconds from 1 to 604800";
};
struct Share { ///< --metamorphic-share
  static constexpr double lo = 0, hi = 1;
  static constexpr const char *text = "a share from 0 to 1";
};

using SecondsOpt = cl::opt<double, false, RealParser<CaseSeconds>>;
using SeedOpt = cl::opt<unsigned long long, false, CountParser<unsigned long long, 0, UINT64_MAX>>;
/// --memory-mb: from 512 MiB (below it the worker, which maps LLVM and
/// MLIR, cannot start: every case would be an oom) to 1 TiB. Also checked
/// against what this process already maps (checkMemoryLimit).
constexpr uint64_t kMinMemoryMb = 512, kMaxMemoryMb = 1u << 20;
using MemoryMbOpt =
    cl::opt<unsigned long long, false, CountParser<unsigned long long, kMinMemoryMb, kMaxMemoryMb>>;

/// An address-space limit of `mb` MiB leaves a forked worker room to run:
/// at least 256 MiB above what this process maps now. Otherwise prints why
/// and returns false.
bool checkMemoryLimit(const std::string &flag, uint64_t mb);

/// Parses "I/N" with 0 <= I < N <= 65536, strictly; otherwise prints why.
bool parseShard(const std::string &text, unsigned &index, unsigned &count);

/// What an input path must be before it is read.
enum class PathKind { RegularFile, Directory, Executable };
/// Checks `path` (given to `flag`) is of `kind`; prints the reason and
/// returns false otherwise. A FIFO, a device or a directory given as a
/// file is refused here, before anything opens it.
bool checkPath(const std::string &flag, const std::string &path, PathKind kind);

/// The case file at `path`, parsed and verified (its text to `text` when
/// given); otherwise prints the error and returns false.
bool loadCase(const std::string &path, Case &c, std::string *text = nullptr);
/// The policy at `path` (the defaults for an empty path).
bool loadPolicy(const std::string &path, Policy &policy);
/// Writes `text` to the output path `path` (-o, --json): a regular file
/// atomically and durably (through a symlink, which stays one), a character
/// device such as /dev/null written as it is; a FIFO, a socket, a block
/// device or a directory is refused. Prints why not ("cannot write PATH: ...").
bool writeOutputFile(const std::string &path, const std::string &text);

/// Splits a command given as one string the way a POSIX shell splits words
/// (quotes and backslashes), without running a shell. An unterminated quote
/// or a trailing backslash is an error rather than a guess.
bool splitCommand(const std::string &option, const std::string &text,
                  std::vector<std::string> &argv);

} // namespace npufuzz::tool

#endif // NPUFUZZ_TOOLS_NPUFUZZ_TOOLOPTIONS_H
