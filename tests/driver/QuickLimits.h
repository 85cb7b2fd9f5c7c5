//===- tests/driver/QuickLimits.h - Limits for isolation tests -*- C++ -*-===//
#ifndef NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H
#define NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H

#include "driver/Isolation.h"

namespace npufuzz {

/// Short enough that a hang costs a test little, large enough for real work.
inline IsolationLimits quickLimits(double wallSeconds = 2) {
  IsolationLimits l;
  l.wallSeconds = wallSeconds;
  l.addressSpaceBytes = 1ull << 30;
  return l;
}

} // namespace npufuzz

#endif // NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H
