# openinfer_add_plugin(TARGET SOURCES... [LIBS ...] [OUTPUT_DIR dir] [INSTALL])
#
# Builds a plugin as a loadable module that exports only `openinfer_plugin_init` (hidden
# visibility plus a version script), links the plugin C ABI headers, and places it in
# OUTPUT_DIR (default: OPENINFER_BUILD_PLUGIN_DIR when set, so the build tree's `openinfer`
# finds it). INSTALL installs it into lib/openinfer/plugins. Works in the OpenInfer tree and,
# through find_package(OpenInfer), out of tree.
function(openinfer_add_plugin target)
  cmake_parse_arguments(ARG "INSTALL" "OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "openinfer_add_plugin(${target}): SOURCES is required")
  endif()
  set(map "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/openinfer_plugin.map")
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE OpenInfer::plugin_api ${ARG_LIBS})
  set_target_properties(${target} PROPERTIES
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(NOT APPLE AND NOT WIN32)
    target_link_options(${target} PRIVATE "-Wl,--version-script=${map}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  endif()
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR})
  elseif(OPENINFER_BUILD_PLUGIN_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY
      ${OPENINFER_BUILD_PLUGIN_DIR})
  endif()
  if(ARG_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION lib/openinfer/plugins)
  endif()
endfunction()
