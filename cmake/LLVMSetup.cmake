#===- cmake/LLVMSetup.cmake - Find Debian's LLVM/MLIR 22 -------------------===#
# Links against the shared libLLVM/libMLIR so that MLIR-heavy targets link fast.
set(NPUFUZZ_LLVM_PREFIX "/usr/lib/llvm-22" CACHE PATH "LLVM/MLIR 22 install prefix")
find_package(LLVM REQUIRED CONFIG HINTS ${NPUFUZZ_LLVM_PREFIX}/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "npufuzz needs LLVM/MLIR 22 (found ${LLVM_PACKAGE_VERSION}); run ci/install-deps.sh")
endif()
message(STATUS "npufuzz: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")

add_library(npufuzz_llvm INTERFACE)
target_include_directories(npufuzz_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(npufuzz_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_directories(npufuzz_llvm INTERFACE ${LLVM_LIBRARY_DIRS})
target_link_libraries(npufuzz_llvm INTERFACE LLVM)
if(NOT LLVM_ENABLE_RTTI)
  # Only files that include LLVM headers need -fno-rtti; they are compiled in
  # targets that link npufuzz_llvm.
  target_compile_options(npufuzz_llvm INTERFACE -fno-rtti)
endif()

# MLIR: the monolithic shared libMLIR plus the shared ExecutionEngine.
find_package(MLIR REQUIRED CONFIG HINTS ${NPUFUZZ_LLVM_PREFIX}/lib/cmake/mlir NO_DEFAULT_PATH)
add_library(npufuzz_mlir INTERFACE)
target_include_directories(npufuzz_mlir SYSTEM INTERFACE ${MLIR_INCLUDE_DIRS})
target_link_libraries(npufuzz_mlir INTERFACE npufuzz_llvm MLIR MLIRExecutionEngineShared)
