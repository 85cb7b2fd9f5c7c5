//===- backend/pto/CaseDir.cpp - A run's directory -------------------------===//
#include "backend/pto/CaseDir.h"

#include "ir/FileText.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace npufuzz {

namespace fs = std::filesystem;

bool writeBytes(const std::string &path, const void *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(
             out.write(static_cast<const char *>(data), static_cast<std::streamsize>(size))) &&
         static_cast<bool>(out.flush());
}

bool cannotWrite(const std::string &dir, BackendRun &r) {
  r.status = BackendRun::Status::EnvironmentError;
  r.message = "cannot write into " + dir +
              " (a full disk? set TMPDIR to a writable "
              "directory)";
  return false;
}

fs::path workParent(const PtoToolchain &t) {
  std::error_code ec;
  return t.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(t.workDir);
}

CaseDir::CaseDir(const PtoToolchain &t, const std::string &prefix, const std::string &under)
    : ptoIsa(t.ptoIsa), keep(t.keepCaseDir) {
  const fs::path parent = under.empty() ? workParent(t) : fs::path(under);
  std::string pattern = (parent / (prefix + "-XXXXXX")).string();
  if (!parent.empty() && ::mkdtemp(pattern.data()))
    dir = pattern;
}

CaseDir::~CaseDir() {
  std::error_code ec;
  if (!dir.empty() && !keep)
    fs::remove_all(dir, ec);
}

bool CaseDir::writeRunBuffers(const std::vector<TensorData> &inputs,
                              const std::vector<TensorData> &outputs, uint32_t poison) const {
  bool written = true;
  for (size_t k = 0; k < inputs.size(); ++k)
    written &= writeBytes(file("arg" + std::to_string(k) + ".bin"), inputs[k].bytes.data(),
                          inputs[k].bytes.size());
  for (size_t k = 0; k < outputs.size(); ++k)
    written &= writeBytes(file("arg" + std::to_string(inputs.size() + k) + ".bin"),
                          outputs[k].bytes.data(), outputs[k].bytes.size());
  unsigned char pattern[4];
  fillPattern(pattern, sizeof pattern, poison);
  return written && writeBytes(file("poison.bin"), pattern, sizeof pattern);
}

size_t CaseDir::readOutputs(size_t firstArg, std::vector<TensorData> &outputs) const {
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::string data, error;
    if (!readFileBytes(file("arg" + std::to_string(firstArg + k) + ".bin"), data, error) ||
        data.size() != outputs[k].bytes.size())
      return k;
    std::memcpy(outputs[k].bytes.data(), data.data(), data.size());
  }
  return outputs.size();
}

BackendRun &CaseDir::finish(BackendRun &r) const {
  auto replaceAll = [&](const std::string &from, const std::string &to) {
    for (size_t at = r.message.find(from); !from.empty() && at != std::string::npos;
         at = r.message.find(from, at + to.size()))
      r.message.replace(at, from.size(), to);
  };
  replaceAll(dir + "/", "");
  if (!ptoIsa.empty()) {
    replaceAll(fs::path(ptoIsa).lexically_normal().string() + "/", "pto-isa/");
    replaceAll(ptoIsa + "/", "pto-isa/");
  }
  return r;
}

} // namespace npufuzz
