# Registers the tests of a GoogleTest binary with CTest (run after each build of it):
#   cmake -D TEST_EXECUTABLE=... -D CTEST_FILE=... -P gtest_groups.cmake
# Loading libtorch takes half a second, more than most tests, so each CTest test runs a group of
# them in one process:
# - the tests of a plain suite form one group, named after the suite (Suite.Test when it has one
#   test);
# - value-parameterized tests are grouped by parameter, up to a "__" in its name, whatever their
#   suite: Ops/SpecDB.ValidSamplesAreAccepted/add_Tensor__half, the other configurations of
#   add_Tensor and Classify.AgreesWithGeneration/add_Tensor become one CTest test, named after the
#   first suite met with that parameter: SpecDB/add_Tensor.
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE result TIMEOUT 120)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${result}):\n${listing}")
endif()

string(REPLACE "\n" ";" lines "${listing}")
set(groups "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ].*)\\.$")
    set(suite "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "^.*/" "" suite_name "${suite}")
  elseif(line MATCHES "^  ([^ ]+)")
    set(test "${CMAKE_MATCH_1}")
    if(test MATCHES "/([^/]+)$")
      string(REGEX REPLACE "__.*$" "" parameter "${CMAKE_MATCH_1}")
      set(key "/${parameter}")
      set(name "${suite_name}/${parameter}")
    else()
      set(key "${suite_name}")
      set(name "${suite_name}")
    endif()
    string(MAKE_C_IDENTIFIER "${key}" id)
    if(NOT DEFINED members_${id})
      list(APPEND groups "${id}")
      set(name_${id} "${name}")
      set(members_${id} "${suite}.${test}")
    else()
      string(APPEND members_${id} ":${suite}.${test}")
    endif()
  endif()
endforeach()

set(script "")
foreach(id IN LISTS groups)
  set(group "${name_${id}}")
  # A lone test is reported skipped when it skips; a group is not, when only some of its members
  # skip. A lone plain test keeps its own name, Suite.Test.
  set(skip "")
  if(NOT members_${id} MATCHES ":")
    if(NOT members_${id} MATCHES "/")
      set(group "${members_${id}}")
    endif()
    set(skip " SKIP_REGULAR_EXPRESSION [=[\\[  SKIPPED \\]]=]")
  endif()
  string(APPEND script "add_test([=[${group}]=] [=[${TEST_EXECUTABLE}]=] [=[--gtest_filter=${members_${id}}]=])\n"
                       "set_tests_properties([=[${group}]=] PROPERTIES TIMEOUT 1200 WORKING_DIRECTORY [=[${WORKING_DIR}]=]${skip})\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
