# Run by CTest: install the plugin SDK, build tests/plugins/out_of_tree_backend (a backend, the
# template for third-party ones) out of tree with find_package(OpenInfer), check that
# `openinfer plugins` lists it, then drop the library alone into a fresh directory and run
# examples/minimal/minimal.oi on it with --backend hostmem: y = 5 * (x + a) for every value, and
# the trace and the timing table place the add and mul nodes on `hostmem`.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
  set(step_error "${err}" PARENT_SCOPE)
endfunction()

run_step("install the SDK" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
  --component openinfer_sdk)
run_step("configure the out-of-tree backend" ${CMAKE_COMMAND} -S ${SOURCE_DIR}
  -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run_step("build the out-of-tree backend" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

set(drop ${WORK_DIR}/drop)
file(GLOB libs ${WORK_DIR}/build/plugins/*)
list(LENGTH libs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one plugin library, found: ${libs}")
endif()
file(COPY ${libs} DESTINATION ${drop})
run_step("list plugins" ${CLI} plugins --plugin-dir ${drop})
if(NOT step_output MATCHES "backend hostmem 0\\.1\\.0 \\(plugin ABI 3\\)")
  message(FATAL_ERROR "the out-of-tree backend was not loaded:\n${step_output}")
endif()

set(minimal ${EXAMPLES_DIR}/minimal)
run_step("run minimal.oi on hostmem" ${CLI} --plugin-dir ${drop} run ${minimal}/minimal.oi
  --model ${minimal}/model.oinf --input x=${minimal}/input.oinf --backend hostmem
  --save ${WORK_DIR}/out.oinf --trace ${WORK_DIR}/trace.json --timer)
file(WRITE ${WORK_DIR}/run_stdout.txt "${step_output}")
if(step_error MATCHES "runs on 'cpu'")
  message(FATAL_ERROR "a node fell back to the CPU backend:\n${step_error}")
endif()
run_step("dump the saved values" ${CLI} oinf dump ${WORK_DIR}/out.oinf)
file(WRITE ${WORK_DIR}/out.txt "${step_output}")
run_step("check y and the placement" ${PYTHON} ${SOURCE_DIR}/check_run.py ${minimal}/model.txt
  ${minimal}/input.txt ${WORK_DIR}/out.txt ${WORK_DIR}/trace.json ${WORK_DIR}/run_stdout.txt
  hostmem)
message(STATUS "${step_output}")
