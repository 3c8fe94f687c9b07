# Tests of the worker part (widgets/worker): the client against the built worker process (Qt Test,
# offscreen). The protocol's codec has its own tests (tests/core). They link the client's own
# library (QtCore only), so they do not wait for every other widget to build.
find_package(Qt6 REQUIRED COMPONENTS Test)

add_executable(loopscope_worker_client_tests ${CMAKE_CURRENT_LIST_DIR}/worker/WorkerClientTest.cpp)
set_target_properties(loopscope_worker_client_tests PROPERTIES AUTOMOC ON)
target_link_libraries(loopscope_worker_client_tests PRIVATE loopscope_widgets_worker Qt6::Test loopscope_warnings)
target_compile_definitions(loopscope_worker_client_tests PRIVATE
  LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
add_dependencies(loopscope_worker_client_tests loopscope-worker)
add_test(NAME WorkerClientTest COMMAND loopscope_worker_client_tests)
set_tests_properties(WorkerClientTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)

