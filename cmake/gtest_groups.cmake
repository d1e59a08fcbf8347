# Registers the tests of a GoogleTest binary with CTest (run after each build of it):
#   cmake -D TEST_EXECUTABLE=... -D CTEST_FILE=... -P gtest_groups.cmake
# A plain test is one CTest test named Suite.Test. Value-parameterized tests are grouped by suite
# and parameter, up to a "__" in the parameter's name: Ops/SpecDB.ValidSamplesAreAccepted/
# add_Tensor__half and the other configurations of add_Tensor become one CTest test,
# SpecDB/add_Tensor, run by one process; loading libtorch (half a second) would otherwise cost
# more than most of these tests.
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
      set(group "${suite_name}/${parameter}")
    else()
      set(group "${suite_name}.${test}")
    endif()
    string(MAKE_C_IDENTIFIER "${group}" id)
    if(NOT DEFINED members_${id})
      list(APPEND groups "${group}")
      set(members_${id} "${suite}.${test}")
    else()
      string(APPEND members_${id} ":${suite}.${test}")
    endif()
  endif()
endforeach()

set(script "")
foreach(group IN LISTS groups)
  string(MAKE_C_IDENTIFIER "${group}" id)
  # A test that skips is reported skipped; a group is not, when only some of its members skip.
  set(skip "")
  if(NOT members_${id} MATCHES ":")
    set(skip " SKIP_REGULAR_EXPRESSION [=[\\[  SKIPPED \\]]=]")
  endif()
  string(APPEND script "add_test([=[${group}]=] [=[${TEST_EXECUTABLE}]=] [=[--gtest_filter=${members_${id}}]=])\n"
                       "set_tests_properties([=[${group}]=] PROPERTIES TIMEOUT 1200 WORKING_DIRECTORY [=[${WORKING_DIR}]=]${skip})\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${script}")
