//===- backend/BackendRun.cpp - What running a case on a backend gave -----===//
#include "backend/BackendRun.h"

namespace npufuzz {

std::string_view statusName(BackendRun::Status s) {
  switch (s) {
  case BackendRun::Status::Ok: return "ok";
  case BackendRun::Status::Unsupported: return "unsupported";
  case BackendRun::Status::VerifierError: return "verifier-error";
  case BackendRun::Status::PassFailure: return "pass-failure";
  case BackendRun::Status::CompileError: return "compile-error";
  case BackendRun::Status::RuntimeError: return "runtime-error";
  case BackendRun::Status::SimulatorFault: return "sim-fault";
  case BackendRun::Status::Crashed: return "crashed";
  case BackendRun::Status::TimedOut: return "timed-out";
  case BackendRun::Status::UninitializedRead: return "uninitialized-read";
  case BackendRun::Status::ContractGap: return "contract-gap";
  case BackendRun::Status::OutOfMemory: return "out-of-memory";
  case BackendRun::Status::EnvironmentError: return "environment-error";
  case BackendRun::Status::OutOfBoundsWrite: return "out-of-bounds-write";
  case BackendRun::Status::OutOfBoundsRead: return "out-of-bounds-read";
  }
  return "?";
}

} // namespace npufuzz
