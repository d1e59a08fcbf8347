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
