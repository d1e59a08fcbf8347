# Z3 has no CMake package on Debian: the imported target opsfuzz::z3, for the build and for the
# installed package alike.
if(NOT TARGET opsfuzz::z3)
  find_path(Z3_INCLUDE_DIR z3++.h REQUIRED)
  find_library(Z3_LIBRARY z3 REQUIRED)
  add_library(opsfuzz::z3 INTERFACE IMPORTED GLOBAL)
  set_target_properties(opsfuzz::z3 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${Z3_INCLUDE_DIR}"
                                               INTERFACE_LINK_LIBRARIES "${Z3_LIBRARY}")
endif()
