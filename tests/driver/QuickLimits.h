//===- tests/driver/QuickLimits.h - Limits for isolation tests -*- C++ -*-===//
#ifndef NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H
#define NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H

#include "driver/Isolation.h"

namespace npufuzz {

/// Short enough that a hang costs a test little, large enough for real work.
/// Limits for tests. The default wall limit is far beyond any case on a
/// busy machine: a test that expects a result must not race the clock. A
/// test that expects a hang gives a short one: an endless loop reaches it
/// however fast the machine is.
inline IsolationLimits quickLimits(double wallSeconds = 60) {
  IsolationLimits l;
  l.wallSeconds = wallSeconds;
  l.addressSpaceBytes = 1ull << 30;
  return l;
}

} // namespace npufuzz

#endif // NPUFUZZ_TESTS_DRIVER_QUICKLIMITS_H
