//===- backend/pto/CaseDir.h - A run's directory for ptoas and what runs its C++ -*- C++ -*-===//
//
// Each pto or simpler run works in a fresh directory under the toolchain's
// work directory (else the system's temporary one), removed when the run
// ends unless the toolchain keeps it. Paths in a run's messages are made
// machine-independent, so that a signature is the same on every machine.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_CASEDIR_H
#define NPUFUZZ_BACKEND_PTO_CASEDIR_H

#include "backend/BackendRun.h"
#include "backend/pto/PtoBackend.h"

#include <filesystem>
#include <memory>
#include <string>

namespace npufuzz {

/// Where a toolchain's directories go: its work directory, else the
/// system's temporary directory.
std::filesystem::path workParent(const PtoToolchain &t);

class CaseDir {
public:
  /// A directory named `prefix`-XXXXXX under `under`, else workParent(t).
  CaseDir(const PtoToolchain &t, const std::string &prefix, const std::string &under = "");
  ~CaseDir();
  CaseDir(const CaseDir &) = delete;
  CaseDir &operator=(const CaseDir &) = delete;

  bool made() const { return !dir.empty(); }
  std::string file(const std::string &name) const { return dir + "/" + name; }
  const std::string &path() const { return dir; }

  /// Paths differ from run to run and machine to machine; signatures must
  /// not: files in it are named by what they are, pto-isa's as pto-isa/.
  BackendRun &finish(BackendRun &r) const;

private:
  // Copies, not the toolchain: a case's build (PtoBuilds) outlives the
  // backend object that made it.
  std::string ptoIsa;
  bool keep;
  std::string dir;
};

/// The builds a case's runs reuse (PtoToolchain::builds), removed with it.
/// --backend pto: the kernel's key, and the binary that runs it (`binary
/// DIR`, or `binary DIR index` for a batch). --backend simpler: a directory
/// where its adapter keeps what simpler's compiler built, by source.
struct PtoBuilds {
  std::string key;
  std::unique_ptr<CaseDir> dir; ///< holds a single build's binary
  std::string binary, index;
  std::unique_ptr<CaseDir> simplerBuilds;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_CASEDIR_H
