//===- backend/pytorchsim/RiscvArithmetic.h - A kernel's arithmetic as RISC-V computes it -*- C++
//-*-===//
//
// Private to backend/pytorchsim (it speaks MLIR). PyTorchSim's kernels run on
// RISC-V (Spike, its LLVM fork's code); the model runs them on the host. Where
// LLVM leaves an operation's result open (poison, or undefined behaviour that
// the host turns into its own answer or a trap), the model gives RISC-V's:
//
// - float to int (`arith.fptosi`, `fptoui`, to i32 or i64): saturates, NaN to
//   the maximum (`fcvt.w[u].s`, `vfcvt.rtz.x[u].f.v`);
// - integer division and remainder (`arith.divsi`, `divui`, `remsi`, `remui`,
//   and `floordivsi`, `ceildivsi`, `ceildivui` as upstream's arith expansion
//   writes them): never a trap; by zero, a quotient of all ones and a
//   remainder of the dividend; the signed overflow (INT_MIN / -1), a quotient
//   of INT_MIN and a remainder of 0 (the RISC-V ISA manual, volume I, "M"
//   extension, table "Semantics for division by zero and division
//   overflow"; the "V" extension's vdiv and vrem do the same).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_RISCVARITHMETIC_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_RISCVARITHMETIC_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace npufuzz {

/// Rewrites `kernel`'s operations above into ones whose every result the
/// host computes as RISC-V does. False with `why` for one it cannot (a
/// conversion to an int narrower than 32 bits).
bool computeAsRiscv(mlir::func::FuncOp kernel, std::string &why);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_RISCVARITHMETIC_H
