//===- ir/Elapsed.h - Seconds since a point on the steady clock -*- C++ -*-===//
#ifndef NPUFUZZ_IR_ELAPSED_H
#define NPUFUZZ_IR_ELAPSED_H

#include <chrono>

namespace npufuzz {

/// Seconds from `start` to now, on the steady clock: what a phase took.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace npufuzz

#endif // NPUFUZZ_IR_ELAPSED_H
