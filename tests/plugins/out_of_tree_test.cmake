# Run by CTest: install the plugin SDK, build a kernels plugin out of tree with
# find_package(OpenInfer), check that `openinfer plugins` loads it, then drop it alone into a
# fresh directory and use its new op `gelu_erf` end to end: `graph check` accepts the graph only
# with --plugin-dir, and `run` computes gelu(x) as Python's math.erf says it should.
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
if(NOT step_output MATCHES "kernels gelu 0\\.1\\.0 \\(plugin ABI 3\\)")
  message(FATAL_ERROR "the out-of-tree plugin was not loaded:\n${step_output}")
endif()
message(STATUS "out-of-tree plugin loaded:\n${step_output}")

# The drop-in: nothing but the library in a directory of its own.
set(drop ${WORK_DIR}/drop)
file(GLOB libs ${WORK_DIR}/build/plugins/*)
list(LENGTH libs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one plugin library, found: ${libs}")
endif()
file(COPY ${libs} DESTINATION ${drop})

set(graph ${SOURCE_DIR}/graph.oi)
run_step("pack the model" ${CLI} oinf pack ${SOURCE_DIR}/model.txt -o ${WORK_DIR}/m.oinf)
run_step("pack the input" ${CLI} oinf pack ${SOURCE_DIR}/input.txt -o ${WORK_DIR}/in.oinf)

# Without the plugin `gelu_erf` is an unknown op: exit 1 naming it.
execute_process(COMMAND ${CLI} graph check ${graph}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "unknown op 'gelu_erf'")
  message(FATAL_ERROR "graph check without the plugin: expected exit 1 and \"unknown op\", "
    "got ${rc}:\n${out}\n${err}")
endif()
run_step("graph check with the plugin" ${CLI} --plugin-dir ${drop} graph check ${graph})
if(NOT step_output MATCHES "^ok: 1 blocks, 2 nodes")
  message(FATAL_ERROR "graph check with the plugin printed:\n${step_output}")
endif()

run_step("run the graph" ${CLI} --plugin-dir ${drop} run ${graph} --model ${WORK_DIR}/m.oinf
  --input x=${WORK_DIR}/in.oinf:x --fetch y)
file(WRITE ${WORK_DIR}/run_stdout.txt "${step_output}")
run_step("check y" ${PYTHON} ${SOURCE_DIR}/check_gelu.py ${SOURCE_DIR}/input.txt
  ${WORK_DIR}/run_stdout.txt)
message(STATUS "${step_output}")
