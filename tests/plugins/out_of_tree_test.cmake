# Run by CTest: install the plugin SDK, build a plugin out of tree with find_package(OpenInfer),
# and check that `openinfer plugins` loads it.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("install the SDK" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  --component openinfer_sdk)
run_step("configure the out-of-tree plugin" ${CMAKE_COMMAND} -S ${SOURCE_DIR}
  -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run_step("build the out-of-tree plugin" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step("list plugins" ${CLI} plugins --plugin-dir ${WORK_DIR}/build/plugins)
if(NOT step_output MATCHES "kernels gelu 0\\.1\\.0 \\(plugin ABI 1\\)")
  message(FATAL_ERROR "the out-of-tree plugin was not loaded:\n${step_output}")
endif()
message(STATUS "out-of-tree plugin loaded:\n${step_output}")
