# Shared helpers for the opsfuzz targets.

# opsfuzz_library(NAME SOURCES... DEPS ...): a static library exported as opsfuzz::NAME.
function(opsfuzz_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_library(opsfuzz_${name} STATIC ${ARG_SOURCES})
  add_library(opsfuzz::${name} ALIAS opsfuzz_${name})
  target_include_directories(opsfuzz_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(opsfuzz_${name} PUBLIC ${ARG_DEPS})
  target_compile_options(opsfuzz_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(ARG_PCH)
    target_precompile_headers(opsfuzz_${name} PRIVATE ${ARG_PCH})
  endif()
endfunction()

# opsfuzz_test(NAME SOURCES... DEPS ...): one GoogleTest binary registered with CTest.
function(opsfuzz_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  if(ARG_PCH)
    target_precompile_headers(${name} PRIVATE ${ARG_PCH})
  endif()
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 PROPERTIES TIMEOUT 1200)
endfunction()
