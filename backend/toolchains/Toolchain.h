//===- backend/toolchains/Toolchain.h - Finding what the user brings -*- C++ -*-===//
//
// npufuzz contains, downloads and builds no third-party toolchain: ptoas,
// pto-isa, torch and the MLIR tools are the user's, found where the user
// says. Each is looked for in one order, the same for all of them
// (Toolchains.def):
//
//   1. its flag (--ptoas PATH, ...),
//   2. its environment variable ($NPUFUZZ_PTOAS, ...),
//   3. its key in the user's config file (toolchainConfigPath()),
//   4. PATH and the usual install locations.
//
// A place the user named that holds nothing usable is an error, not a
// reason to look further: a typo must not quietly test another build.
// Every error names the toolchain and points to docs/toolchains.md, which
// says where each comes from and what npufuzz needs of it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_TOOLCHAINS_TOOLCHAIN_H
#define NPUFUZZ_BACKEND_TOOLCHAINS_TOOLCHAIN_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

enum class ToolchainKind : uint8_t {
#define NPUFUZZ_TOOLCHAIN(Kind, name, flag, env, shape, description) Kind,
#include "backend/toolchains/Toolchains.def"
};

/// What a toolchain is on disk.
enum class ToolchainShape : uint8_t {
  Program,    ///< an executable file
  IncludeDir, ///< a directory of headers
  Checkout,   ///< a source tree, told by a file only it has (markerFile)
};

struct ToolchainInfo {
  ToolchainKind kind;
  const char *name; ///< config key, listing row, docs anchor
  const char *flag; ///< the command-line flag that names it
  const char *env;  ///< the environment variable that names it
  ToolchainShape shape;
  const char *description;
};

/// Every toolchain, in Toolchains.def's order.
const std::vector<ToolchainInfo> &allToolchains();
const ToolchainInfo &toolchainInfo(ToolchainKind kind);
bool parseToolchainName(std::string_view name, ToolchainKind &out);

/// "see docs/toolchains.md#NAME": where every message about it points.
std::string toolchainHelp(ToolchainKind kind);

/// The user's config file: a JSON object from toolchain names to paths,
///   { "ptoas": "/opt/pto/bin/ptoas", "pto-isa": "/opt/pto/pto-isa/include" }
/// read from $NPUFUZZ_CONFIG when set, else
/// $XDG_CONFIG_HOME/npufuzz/toolchains.json, else
/// ~/.config/npufuzz/toolchains.json.
struct ToolchainConfig {
  std::string file;                         ///< the file read; empty when there is none
  std::map<std::string, std::string> paths; ///< name -> path, as written
};

/// Where the config file is looked for, and whether the user named it
/// ($NPUFUZZ_CONFIG), in which case it must exist.
std::string toolchainConfigPath(bool *named = nullptr);

/// Reads the config file. A file that is absent from the default place is
/// no config; one that $NPUFUZZ_CONFIG names but is missing, is not a
/// regular file, does not parse, is not an object of strings, or names a
/// toolchain npufuzz does not know is an error (false, `error` says which).
bool loadToolchainConfig(ToolchainConfig &config, std::string &error);

/// A toolchain found, and where it was found.
struct LocatedToolchain {
  ToolchainKind kind = ToolchainKind::Ptoas;
  std::string path;   ///< as it will be used (a program's, resolved against PATH)
  std::string source; ///< "--ptoas", "$NPUFUZZ_PTOAS", "config FILE", "PATH", "default"
};

/// Finds `kind` in the order above; `given` is its flag's value ("" when
/// the flag was not given). False with `error` naming the toolchain, the
/// places looked and toolchainHelp(), when none holds it; `out.source`
/// then says which place the user named, or is empty when none was.
bool locateToolchain(ToolchainKind kind, const std::string &given, const ToolchainConfig &config,
                     LocatedToolchain &out, std::string &error);

/// pto-isa names its include directory; its repository's root (which
/// holds include/pto/pto-inst.hpp) is taken as that too.
std::string ptoIsaIncludeDir(const std::string &dir);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_TOOLCHAINS_TOOLCHAIN_H
