# The installed package: headers, static libraries, ops-fuzz, and the CMake package that
# find_package(opsfuzz CONFIG) reads (cmake/opsfuzzConfig.cmake.in names its targets).
include(CMakePackageConfigHelpers)

# opsfuzz::opsfuzz, everything but the GoogleTest registration.
add_library(opsfuzz_all INTERFACE)
add_library(opsfuzz::opsfuzz ALIAS opsfuzz_all)
set_target_properties(opsfuzz_all PROPERTIES EXPORT_NAME opsfuzz)
target_link_libraries(opsfuzz_all INTERFACE opsfuzz::specdb opsfuzz::generators opsfuzz::suite opsfuzz::runner
                                            opsfuzz::cli)

# opsfuzz::plugin, for a shared library that ops-fuzz --load opens: headers only, its opsfuzz
# symbols are resolved against the ops-fuzz that loads it (which exports them).
add_library(opsfuzz_plugin INTERFACE)
add_library(opsfuzz::plugin ALIAS opsfuzz_plugin)
set_target_properties(opsfuzz_plugin PROPERTIES EXPORT_NAME plugin)
target_include_directories(opsfuzz_plugin INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                                    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/opsfuzz>)
target_link_libraries(opsfuzz_plugin INTERFACE torch Boost::headers)
set_target_properties(ops-fuzz PROPERTIES ENABLE_EXPORTS ON)

install(TARGETS opsfuzz_all opsfuzz_plugin EXPORT opsfuzzTargets)
install(TARGETS ops-fuzz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir argtypes opcall specs engine generators suite runner testing tools)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/opsfuzz/${dir} FILES_MATCHING PATTERN "*.h")
endforeach()

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/opsfuzz)
install(EXPORT opsfuzzTargets NAMESPACE opsfuzz:: DESTINATION ${package_dir})
configure_package_config_file(cmake/opsfuzzConfig.cmake.in ${PROJECT_BINARY_DIR}/opsfuzzConfig.cmake
                              INSTALL_DESTINATION ${package_dir} PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/opsfuzzConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/opsfuzzConfig.cmake ${PROJECT_BINARY_DIR}/opsfuzzConfigVersion.cmake
              cmake/opsfuzzZ3.cmake DESTINATION ${package_dir})
