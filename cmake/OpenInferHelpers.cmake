# openinfer_add_test(NAME SOURCES... [LIBS ...] [LABELS ...])
# Builds one Boost.Test executable and registers it with CTest.
function(openinfer_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} Boost::unit_test_framework)
  target_compile_definitions(${name} PRIVATE BOOST_TEST_DYN_LINK
    OPENINFER_SOURCE_DIR="${OPENINFER_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name} --log_level=message --report_level=short)
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# openinfer_add_fuzzer(NAME SOURCES... LIBS ... CORPUS dir [SECONDS n])
# With clang: a libFuzzer binary, run by CTest for a bounded time over the seed corpus.
# Otherwise: the same entry point linked to a replay driver that feeds the corpus plus
# deterministic mutations of it, so the smoke run exists on every compiler.
function(openinfer_add_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS;SECONDS" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SECONDS)
    set(ARG_SECONDS 20)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer-no-link)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    add_test(NAME ${name} COMMAND ${name} -max_total_time=${ARG_SECONDS} -rss_limit_mb=2048
      -timeout=10 -print_final_stats=1 ${ARG_CORPUS})
  else()
    target_sources(${name} PRIVATE ${OPENINFER_SOURCE_DIR}/tests/fuzz/replay_driver.cpp)
    add_test(NAME ${name} COMMAND ${name} ${ARG_SECONDS} ${ARG_CORPUS})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "fuzz" TIMEOUT 300)
endfunction()
