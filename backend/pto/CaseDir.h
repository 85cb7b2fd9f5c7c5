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
#include "ir/TensorData.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace npufuzz {

/// Writes `size` bytes to `path`; false when it cannot (a full disk).
bool writeBytes(const std::string &path, const void *data, size_t size);

/// `r` as a run whose files could not be written into `dir`: the
/// machine's, never a finding. False.
bool cannotWrite(const std::string &dir, BackendRun &r);

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

  /// A run's buffers, as the harness and simpler's adapter read them: the
  /// inputs as arg0.bin..., then the outputs as they start, and the
  /// poison's 4-byte pattern as poison.bin (what the GM tensors between a
  /// chain's tasks start as). False when one cannot be written.
  bool writeRunBuffers(const std::vector<TensorData> &inputs,
                       const std::vector<TensorData> &outputs, uint32_t poison) const;
  /// The outputs written back to argK.bin from K = `firstArg` on, into
  /// `outputs` (which give their sizes): the index of the first one missing
  /// or of another size, or outputs.size() when all were read.
  size_t readOutputs(size_t firstArg, std::vector<TensorData> &outputs) const;

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
  /// --backend pypto: the PyPTO program last compiled, and PyPTO's kernel
  /// of it (the oracles' reruns of a case compile it once).
  std::string pyptoProgram, pyptoKernel;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_CASEDIR_H
