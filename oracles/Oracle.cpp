//===- oracles/Oracle.cpp - The oracles of a case, in order ---------------===//
#include "oracles/Oracle.h"

#include "oracles/Compare.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/MetamorphicOracle.h"
#include "oracles/NondeterminismOracle.h"
#include "oracles/OpBlameOracle.h"
#include "oracles/PassBlameOracle.h"
#include "oracles/PoisonOracle.h"
#include "oracles/SwitchBlameOracle.h"

namespace npufuzz {

bool OracleContext::rerunChangesDefinedOutputs(uint32_t poison) const {
  const BackendRun again = rerun(poison);
  return again.ok() &&
         definedOutputsDiffer(base.reference.outputs, base.run.outputs, again.outputs);
}

std::vector<std::unique_ptr<Oracle>> defaultOracles() {
  std::vector<std::unique_ptr<Oracle>> oracles;
  oracles.push_back(std::make_unique<MetamorphicOracle>());
  oracles.push_back(std::make_unique<NondeterminismOracle>());
  oracles.push_back(std::make_unique<PoisonOracle>());
  oracles.push_back(std::make_unique<MemoryErrorOracle>());
  oracles.push_back(std::make_unique<OpBlameOracle>());
  oracles.push_back(std::make_unique<PassBlameOracle>());
  oracles.push_back(std::make_unique<SwitchBlameOracle>());
  return oracles;
}

} // namespace npufuzz
