//===- backend/runtime/Runtime.h - Functions compiled kernels call -*- C++ -*-===//
//
// The runtime linked into JIT-compiled kernels (registered as symbols) and
// built as libnpufuzz_rt.so for mlir-runner. Plain C ABI with scalar
// arguments only: 16-bit float results travel as bits in an i32, because
// the C ABI of bf16/f16 returns differs between toolchains.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_RUNTIME_H
#define NPUFUZZ_BACKEND_RUNTIME_RUNTIME_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" {
/// Rounds `x` to float dtype `dtype` (ir DType value) under rounding mode
/// `mode` (ir RoundingMode value); returns the result's bit pattern.
int32_t npf_rt_float_to_bits(float x, int32_t dtype, int32_t mode);
/// Converts `x` exactly once-rounded to float dtype `dtype` under `mode`.
int32_t npf_rt_int_to_bits(int64_t x, int32_t dtype, int32_t mode);
/// The compiler-rt builtin LLVM calls for `fptrunc float to bfloat` on CPUs
/// without a bf16 convert instruction; Debian 12's libgcc lacks it. Weak, so
/// a toolchain's own definition wins.
__bf16 __truncsfbf2(float x);
}

namespace npufuzz {

/// Name and address of every runtime symbol, for registering with a JIT.
/// They include the kernel heap's `malloc`, `aligned_alloc` and `free`
/// (KernelHeap.h) and the bounds check (BoundsCheck.h).
std::vector<std::pair<std::string, void *>> runtimeSymbols();

/// Fills `bytes` of this thread's stack below the caller's frame with the
/// scratch poison, so a kernel's stack temporaries (memref.alloca) start
/// from the pattern too. Call just before calling the kernel.
void paintStack(size_t bytes);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_RUNTIME_RUNTIME_H
