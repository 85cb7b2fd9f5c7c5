//===- backend/pto/PyptoBackend.h - PyPTO, then ptoas and pto-isa -*- C++ -*-===//
//
// The user's PyPTO as a front end of the PTO toolchain: a case written as a
// PyPTO program (backend/emit/PyptoEmitter.h) goes through PyPTO's passes
// and PTO code generation in the user's Python
// (tools/adapters/pypto_compile.py), and the `.pto` it writes through
// ptoas and the pto-isa CPU simulator exactly as --backend pto's own
// kernels do (runPtoText), at ptoas's level 3: PyPTO gives every tile its
// address (its memory reuse).
//
// How the front end's end becomes a status:
//   the case is not written (a view, an op PyPTO lacks)  unsupported
//   PyPTO rejects the program or a pass fails          compile-error
//   the adapter cannot run (pypto does not import)     environment error
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PTO_PYPTOBACKEND_H
#define NPUFUZZ_BACKEND_PTO_PYPTOBACKEND_H

#include "backend/BackendRun.h"
#include "backend/pto/PtoBackend.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npufuzz {

/// tools/adapters/pypto_compile.py of this checkout, or
/// $NPUFUZZ_PYPTO_ADAPTER.
std::string defaultPyptoAdapter();

/// What --backend pypto needs besides ptoas and pto-isa: PyPTO's Python
/// and the adapter. False with what to do otherwise.
bool checkPyptoToolchain(const PtoToolchain &t, std::string &error);

BackendRun runPypto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                    uint32_t poison);

/// What a finding keeps: the PyPTO program, PyPTO's kernel.pto and
/// ptoas's kernel.cpp (what of them exists for `c`).
std::map<std::string, std::string> pyptoPrograms(const PtoToolchain &t, const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PTO_PYPTOBACKEND_H
