//===- backend/toolchains/BackendToolchains.h - Each backend's toolchains, ready -*- C++ -*-===//
//
// What a backend needs of the user's toolchains, found (Toolchain.h) and
// past their canaries (Canary.h) before its first case. Each returns false
// with one line naming the tool, so the command stops with exit 2 and no
// case is run, never recorded as a finding.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_TOOLCHAINS_BACKENDTOOLCHAINS_H
#define NPUFUZZ_BACKEND_TOOLCHAINS_BACKENDTOOLCHAINS_H

#include <string>

namespace npufuzz {

struct PtoToolchain;
struct PyTorchSimToolchain;
struct MlirTool;

/// --backend pto: `t.ptoas` and `t.ptoIsa` hold their flags' values (empty
/// when not given) and become the toolchains found; then the rest of what
/// the backend needs (its compiler, valgrind, the arch) is checked.
bool setUpPtoToolchain(PtoToolchain &t, std::string &error);

/// --backend pypto: `t.pyptoPython`, `t.ptoIsa` and `t.ptoas` hold their
/// flags' values and become the toolchains found; the adapter is the
/// default unless set.
bool setUpPyptoToolchain(PtoToolchain &t, std::string &error);

/// --backend simpler: `t.simplerPython` and `t.ptoas` hold their flags'
/// values and become the toolchains found; the adapter is the default
/// unless set.
bool setUpSimplerToolchain(PtoToolchain &t, std::string &error);

/// --backend pytorchsim: `t.checkout` and `t.python` hold their flags'
/// values and become the toolchains found; then the adapter's canary (the
/// npu device sets up, a one-op add reaches PyTorchSim's MLIR), whose
/// version line goes to `version` when asked.
bool setUpPyTorchSimToolchain(PyTorchSimToolchain &t, std::string &error,
                              std::string *version = nullptr);

/// --backend mlir-tools: `opt` and `runner` are their flags' values.
bool setUpMlirTools(MlirTool &tool, const std::string &opt, const std::string &runner,
                    std::string &error);

/// --backend torch: the Python that imports torch (`given`: --python). With
/// `compile` (--backend inductor), also a torch with torch.compile (2 or
/// later) and the C++ compiler Inductor builds its kernels with ($CXX, else
/// g++).
bool findTorchPython(const std::string &given, std::string &python, std::string &error,
                     bool compile = false, std::string *version = nullptr);

/// --backend tvm: the Python that imports torch and TVM's Relax frontend
/// (`given`: --tvm-python), discovered when empty and past its canary.
bool findTvmPython(const std::string &given, std::string &python, std::string &error,
                   std::string *version = nullptr);

/// iree-compile (`compiler`, --iree-compile) and a Python with IREE's
/// runtime (`python`, --iree-python), each discovered when empty and past
/// its canary, into `compilerPath` and `pythonPath`; false with the reason.
bool findIreeTools(const std::string &compiler, const std::string &python,
                   std::string &compilerPath, std::string &pythonPath, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_TOOLCHAINS_BACKENDTOOLCHAINS_H
