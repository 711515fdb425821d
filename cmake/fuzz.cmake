# Fuzzing (issue 16): libFuzzer targets over every parser of untrusted input and the Kubernetes
# API front's request handling, built with clang when -DSTEWARD_FUZZ=ON. The whole build is then
# instrumented with AddressSanitizer and UndefinedBehaviorSanitizer (any UB aborts), and CTest
# replays each seed corpus once (fuzz.<target>: `-runs=0 tests/fuzz/corpus/<target>`).
# scripts/fuzz.sh runs every target for a bounded time. Use a build directory of its own:
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTEWARD_FUZZ=ON
#   ninja -C build-fuzz fuzz_targets && ctest --test-dir build-fuzz -R '^fuzz\.'
if(NOT STEWARD_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "STEWARD_FUZZ needs clang (libFuzzer): CC=clang CXX=clang++ cmake ...")
endif()

add_custom_target(fuzz_targets)
# steward_fuzz_target(NAME MODULE...): tests/fuzz/NAME_fuzz.cc linked with the modules it reads,
# replayed over tests/fuzz/corpus/NAME/.
function(steward_fuzz_target NAME)
  add_executable(${NAME}_fuzz ${PROJECT_SOURCE_DIR}/tests/fuzz/${NAME}_fuzz.cc)
  set(libs "")
  foreach(m ${ARGN})
    list(APPEND libs steward_${m})
  endforeach()
  target_link_libraries(${NAME}_fuzz PRIVATE ${libs})
  target_link_options(${NAME}_fuzz PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzz_targets ${NAME}_fuzz)
  add_test(NAME fuzz.${NAME}
           COMMAND ${NAME}_fuzz -runs=0 ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${NAME})
  set_tests_properties(fuzz.${NAME} PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1")
endfunction()

steward_fuzz_target(json_text model)
steward_fuzz_target(policy_yaml govern)
steward_fuzz_target(scenario_yaml twin)
steward_fuzz_target(trace_csv twin)
steward_fuzz_target(exposition telemetry)
steward_fuzz_target(node_list health)
steward_fuzz_target(pod_list diagnose)
steward_fuzz_target(http_request kube)
