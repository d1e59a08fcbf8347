# Shared helpers for the opsfuzz targets.

include(GNUInstallDirs)

# opsfuzz_precompile(TARGET HEADER...): TARGET's precompiled headers. Each set of headers is
# compiled once per build, by the first target that asks for it, and the others reuse it:
# <torch/torch.h> alone takes 50 s to precompile, <ATen/ATen.h> 20 s.
function(opsfuzz_precompile target)
  string(MAKE_C_IDENTIFIER "${ARGN}" key)
  get_property(owner GLOBAL PROPERTY opsfuzz_pch_${key})
  if(owner)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  else()
    target_precompile_headers(${target} PRIVATE ${ARGN})
    set_property(GLOBAL PROPERTY opsfuzz_pch_${key} ${target})
  endif()
endfunction()

# opsfuzz_library(NAME SOURCES... DEPS ...): a static library exported as opsfuzz::NAME, in the
# build tree and in the installed package (headers under include/opsfuzz, as in the sources).
function(opsfuzz_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_library(opsfuzz_${name} STATIC ${ARG_SOURCES})
  add_library(opsfuzz::${name} ALIAS opsfuzz_${name})
  set_target_properties(opsfuzz_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(opsfuzz_${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/opsfuzz>)
  target_link_libraries(opsfuzz_${name} PUBLIC ${ARG_DEPS})
  install(TARGETS opsfuzz_${name} EXPORT opsfuzzTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  target_compile_options(opsfuzz_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(OPSFUZZ_SANITIZE)  # what links the instrumented library links the sanitizers' runtime
    target_link_options(opsfuzz_${name} INTERFACE -fsanitize=${OPSFUZZ_SANITIZE})
  endif()
  if(ARG_PCH)
    opsfuzz_precompile(opsfuzz_${name} ${ARG_PCH})
  endif()
endfunction()

# opsfuzz_test(NAME SOURCES... DEPS ...): one GoogleTest binary registered with CTest.
function(opsfuzz_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  if(ARG_PCH)
    opsfuzz_precompile(${name} ${ARG_PCH})
  endif()
  # Registered after each build (cmake/gtest_groups.cmake); until the first, CTest has none.
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_tests.cmake")
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D TEST_EXECUTABLE=$<TARGET_FILE:${name}> -D CTEST_FILE=${tests_file}
            -D WORKING_DIR=${CMAKE_CURRENT_BINARY_DIR}
            -P ${PROJECT_SOURCE_DIR}/cmake/gtest_groups.cmake
    BYPRODUCTS ${tests_file} VERBATIM)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake")
  file(WRITE ${include_file} "if(EXISTS [=[${tests_file}]=])\n  include([=[${tests_file}]=])\nelse()\n"
                             "  add_test([=[${name}_NOT_BUILT]=] [=[${name}_NOT_BUILT]=])\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
