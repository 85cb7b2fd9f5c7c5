//===- backend/runtime/Runtime.cpp - Functions compiled kernels call ------===//
#include "backend/runtime/Runtime.h"

#include "backend/runtime/BoundsCheck.h"
#include "backend/runtime/KernelHeap.h"
#include "backend/runtime/NpuSim.h"
#include "backend/runtime/PyTorchSimDma.h"

#include "ir/DType.h"
#include "ir/TensorData.h"

#include <cstdlib>
#include <cstring>

using namespace npufuzz;

namespace {
int32_t bitsOf(float v, DType t, RoundingMode m) {
  switch (t) {
  case DType::BF16: return floatToBF16Bits(v, m);
  case DType::F16: return floatToF16Bits(v, m);
  default: return static_cast<int32_t>(floatBits(v));
  }
}
} // namespace

extern "C" int32_t npf_rt_float_to_bits(float x, int32_t dtype, int32_t mode) {
  return bitsOf(x, static_cast<DType>(dtype), static_cast<RoundingMode>(mode));
}

extern "C" int32_t npf_rt_int_to_bits(int64_t x, int32_t dtype, int32_t mode) {
  const DType t = static_cast<DType>(dtype);
  const RoundingMode m = static_cast<RoundingMode>(mode);
  // intToFloat rounds once into `t`, so reading its bits is exact.
  return bitsOf(intToFloat(x, t, m), t, RoundingMode::NearestEven);
}

extern "C" __attribute__((weak)) __bf16 __truncsfbf2(float x) {
  const uint16_t bits = floatToBF16BitsNearestEven(x);
  __bf16 r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

namespace npufuzz {

__attribute__((noinline)) void paintStack(size_t bytes) {
  // An alloca below this frame, filled, and kept by an empty asm that
  // claims to read it (so the stores are not elided); the kernel's frame,
  // called next, reuses that stack.
  unsigned char *area = static_cast<unsigned char *>(__builtin_alloca(bytes));
  fillPattern(area, bytes, scratchPoisonPattern());
  asm volatile("" : : "r"(area) : "memory");
}

std::vector<std::pair<std::string, void *>> runtimeSymbols() {
  return {{"npf_rt_float_to_bits", reinterpret_cast<void *>(&npf_rt_float_to_bits)},
          {"npf_rt_int_to_bits", reinterpret_cast<void *>(&npf_rt_int_to_bits)},
          {"__truncsfbf2", reinterpret_cast<void *>(&__truncsfbf2)},
          {"npf_sim_begin", reinterpret_cast<void *>(&npf_sim_begin)},
          {"npf_sim_dma", reinterpret_cast<void *>(&npf_sim_dma)},
          {"npf_pts_lane", reinterpret_cast<void *>(&npf_pts_lane)},
          {"npf_pts_dma", reinterpret_cast<void *>(&npf_pts_dma)},
          {"npf_pts_dma_lanes", reinterpret_cast<void *>(&npf_pts_dma_lanes)},
          {"npf_pts_matmul_f32", reinterpret_cast<void *>(&npf_pts_matmul_f32)},
          {"npf_task_begin", reinterpret_cast<void *>(&npf_task_begin)},
          {"npf_task_end", reinterpret_cast<void *>(&npf_task_end)},
          {"npf_scalar_store", reinterpret_cast<void *>(&npf_scalar_store)},
          {"npf_scalar_load", reinterpret_cast<void *>(&npf_scalar_load)},
          {"npf_dcci", reinterpret_cast<void *>(&npf_dcci)},
          {"npf_dsb", reinterpret_cast<void *>(&npf_dsb)},
          {"npf_host_read", reinterpret_cast<void *>(&npf_host_read)},
          {"npf_rt_bounds", reinterpret_cast<void *>(&npf_rt_bounds)},
          {"malloc", reinterpret_cast<void *>(&kernelMalloc)},
          {"aligned_alloc", reinterpret_cast<void *>(&kernelAlignedAlloc)},
          {"free", reinterpret_cast<void *>(&kernelFree)}};
}

} // namespace npufuzz
