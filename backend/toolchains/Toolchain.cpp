//===- backend/toolchains/Toolchain.cpp - Finding what the user brings ----===//
#include "backend/toolchains/Toolchain.h"

#include "ir/FileText.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;

/// A config file is a handful of paths: anything bigger is not one.
constexpr size_t kMaxConfigBytes = 1 << 20;

std::string envOf(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// The header that tells an include directory of `kind` from any other.
const char *markerHeader(ToolchainKind kind) {
  switch (kind) {
  case ToolchainKind::PtoIsa: return "pto/pto-inst.hpp";
  case ToolchainKind::PyTorchSim: return "PyTorchSimFrontend/extension_codecache.py";
  case ToolchainKind::Ptoas:
  case ToolchainKind::Torch:
  case ToolchainKind::IreeCompile:
  case ToolchainKind::IreeRuntime:
  case ToolchainKind::Tvm:
  case ToolchainKind::MlirOpt:
  case ToolchainKind::Simpler:
  case ToolchainKind::Pypto:
  case ToolchainKind::PyTorchSimPython:
  case ToolchainKind::MlirRunner: return "";
  }
  return "";
}

/// Where the project's install scripts keep what they install.
std::string cacheDir() {
  const std::string cache = envOf("NPUFUZZ_CACHE");
  return cache.empty() ? envOf("HOME") + "/.cache/npufuzz" : cache;
}

/// Where a toolchain usually is when nobody said: programs by name on PATH
/// first, then fixed places.
std::vector<std::string> usualPlaces(ToolchainKind kind) {
  switch (kind) {
  case ToolchainKind::Ptoas: return {"ptoas", "/usr/local/bin/ptoas", "/opt/ptoas/bin/ptoas"};
  case ToolchainKind::PtoIsa: return {"/usr/local/include", "/opt/pto-isa/include"};
  case ToolchainKind::Torch:
    // Where ci/install-torch.sh puts the pinned torch: a python3 on PATH
    // is usually an interpreter without torch.
    return {cacheDir() + "/torch-2.15.0/bin/python"};
  // ci/install-torch.sh installs TVM beside that torch: its frontend
  // imports what torch.export made.
  case ToolchainKind::Tvm: return {cacheDir() + "/torch-2.15.0/bin/python"};
  // Where ci/install-iree.sh puts the pinned IREE.
  case ToolchainKind::IreeCompile:
    return {"iree-compile", cacheDir() + "/iree-3.13.0/bin/iree-compile"};
  case ToolchainKind::IreeRuntime: return {cacheDir() + "/iree-3.13.0/bin/python"};
  case ToolchainKind::MlirOpt: return {"mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt"};
  case ToolchainKind::MlirRunner: return {"mlir-runner-22", "/usr/lib/llvm-22/bin/mlir-runner"};
  // simpler is built from its repository into a virtual environment of the
  // user's: no place is usual, so it is found where the user says.
  case ToolchainKind::Simpler: return {};
  // PyPTO is built from its repository beside the user's ptoas
  // (docs/toolchains.md#pypto): found where the user says.
  case ToolchainKind::Pypto: return {};
  // PyTorchSim's checkout and the environment it runs in are the user's
  // (docs/toolchains.md#pytorchsim); its Docker image's places.
  case ToolchainKind::PyTorchSim: return {"/workspace/PyTorchSim"};
  case ToolchainKind::PyTorchSimPython: return {};
  }
  return {};
}

/// `place` as `kind` would use it, or why it is not usable there.
bool usable(ToolchainKind kind, const std::string &place, std::string &path, std::string &why) {
  std::error_code ec;
  switch (toolchainInfo(kind).shape) {
  case ToolchainShape::Program: {
    if (place.find('/') == std::string::npos) {
      auto found = llvm::sys::findProgramByName(place);
      if (!found) {
        why = "no program '" + place + "' on PATH";
        return false;
      }
      path = *found;
      return true;
    }
    if (fs::is_directory(place, ec)) {
      why = place + " is a directory, not a program";
      return false;
    }
    if (!fs::is_regular_file(place, ec) || ::access(place.c_str(), X_OK) != 0) {
      why = place + " is not an executable file";
      return false;
    }
    path = place;
    return true;
  }
  case ToolchainShape::IncludeDir:
  case ToolchainShape::Checkout: {
    // pto-isa may be named by its repository's root; a checkout is used
    // where it is, its path made canonical (its commit is its version).
    const bool include = toolchainInfo(kind).shape == ToolchainShape::IncludeDir;
    const std::string dir = include ? ptoIsaIncludeDir(place) : place;
    if (!fs::is_directory(place, ec)) {
      why = place + " is not a directory";
      return false;
    }
    if (!fs::is_regular_file(fs::path(dir) / markerHeader(kind), ec)) {
      why = "no " + std::string(markerHeader(kind)) + " under " + place;
      return false;
    }
    path = include ? dir : fs::canonical(dir, ec).string();
    if (ec)
      path = dir;
    return true;
  }
  }
  return false;
}
} // namespace

const std::vector<ToolchainInfo> &allToolchains() {
  static const std::vector<ToolchainInfo> table = {
#define NPUFUZZ_TOOLCHAIN(Kind, name, flag, env, shape, description)                               \
  {ToolchainKind::Kind, name, flag, env, ToolchainShape::shape, description},
#include "backend/toolchains/Toolchains.def"
  };
  return table;
}

const ToolchainInfo &toolchainInfo(ToolchainKind kind) {
  return allToolchains()[static_cast<size_t>(kind)];
}

bool parseToolchainName(std::string_view name, ToolchainKind &out) {
  for (const ToolchainInfo &t : allToolchains())
    if (name == t.name) {
      out = t.kind;
      return true;
    }
  return false;
}

std::string toolchainHelp(ToolchainKind kind) {
  return std::string("see docs/toolchains.md#") + toolchainInfo(kind).name;
}

std::string ptoIsaIncludeDir(const std::string &dir) {
  std::error_code ec;
  const fs::path include = fs::path(dir) / "include";
  if (!fs::exists(fs::path(dir) / "pto" / "pto-inst.hpp", ec) &&
      fs::exists(include / "pto" / "pto-inst.hpp", ec))
    return include.string();
  return dir;
}

std::string toolchainConfigPath(bool *named) {
  const std::string given = envOf("NPUFUZZ_CONFIG");
  if (named)
    *named = !given.empty();
  if (!given.empty())
    return given;
  const std::string xdg = envOf("XDG_CONFIG_HOME");
  if (!xdg.empty())
    return xdg + "/npufuzz/toolchains.json";
  const std::string home = envOf("HOME");
  return home.empty() ? std::string() : home + "/.config/npufuzz/toolchains.json";
}

bool loadToolchainConfig(ToolchainConfig &config, std::string &error) {
  config = ToolchainConfig();
  bool named = false;
  const std::string path = toolchainConfigPath(&named);
  std::error_code ec;
  if (path.empty() || (!named && !fs::exists(path, ec)))
    return true;
  std::string text, why;
  if (!readFileBytes(path, text, why, kMaxConfigBytes)) {
    error = "toolchain config " + why + " (docs/toolchains.md#config)";
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    error = "toolchain config " + path + " does not parse: " + llvm::toString(parsed.takeError()) +
            " (docs/toolchains.md#config)";
    return false;
  }
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object) {
    error = "toolchain config " + path +
            " is not a JSON object of toolchain names to paths (docs/toolchains.md#config)";
    return false;
  }
  for (const auto &entry : *object) {
    const std::string key = entry.first.str();
    ToolchainKind kind;
    if (!parseToolchainName(key, kind)) {
      std::string names;
      for (const ToolchainInfo &t : allToolchains())
        names += (names.empty() ? "" : ", ") + std::string(t.name);
      error =
          "toolchain config " + path + " names an unknown toolchain '" + key + "' (" + names + ")";
      return false;
    }
    const std::optional<llvm::StringRef> value = entry.second.getAsString();
    if (!value || value->empty()) {
      error = "toolchain config " + path + ": \"" + key + "\" must be a non-empty path";
      return false;
    }
    config.paths[key] = value->str();
  }
  config.file = path;
  return true;
}

bool locateToolchain(ToolchainKind kind, const std::string &given, const ToolchainConfig &config,
                     LocatedToolchain &out, std::string &error) {
  const ToolchainInfo &info = toolchainInfo(kind);
  out = LocatedToolchain();
  out.kind = kind;
  std::string why;
  // A place the user named holds it, or it is an error.
  auto named = [&](const std::string &place, const std::string &source) {
    out.source = source;
    if (usable(kind, place, out.path, why))
      return true;
    error = std::string(info.name) + " from " + source + ": " + why + "; " + toolchainHelp(kind);
    return false;
  };
  if (!given.empty())
    return named(given, info.flag);
  if (const std::string env = envOf(info.env); !env.empty())
    return named(env, std::string("$") + info.env);
  if (auto it = config.paths.find(info.name); it != config.paths.end())
    return named(it->second, "config " + config.file);
  std::string looked;
  for (const std::string &place : usualPlaces(kind)) {
    if (usable(kind, place, out.path, why)) {
      out.source = place.find('/') == std::string::npos ? "PATH" : "default";
      return true;
    }
    looked += (looked.empty() ? "" : ", ") + place;
  }
  error = std::string(info.name) + " (" + info.description + ") not found: give " + info.flag +
          ", set $" + info.env + ", or name \"" + info.name + "\" in " +
          (config.file.empty() ? toolchainConfigPath() : config.file) +
          (looked.empty() ? " (it has no usual place); " : " (looked in " + looked + "); ") +
          toolchainHelp(kind);
  return false;
}

} // namespace npufuzz
