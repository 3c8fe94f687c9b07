# Tests of the worker part: the client (widgets/worker) against the built worker process and its
# decoding of the worker's JSON without one (Qt Test, offscreen), and the worker's request handling
# without a process (GoogleTest).
find_package(Qt6 REQUIRED COMPONENTS Test)

# The client needs only QtCore; it is compiled in here so this test does not wait for every other
# widget to build.
set(worker_client_sources
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerRequests.h
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerReplies.h
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerProtocol.h
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerProtocol.cpp
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerClient.h
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerClient.cpp)
add_executable(WorkerClientTest widgets/WorkerClientTest.cpp ${worker_client_sources})
set_target_properties(WorkerClientTest PROPERTIES AUTOMOC ON)
target_include_directories(WorkerClientTest PRIVATE ${PROJECT_SOURCE_DIR}/widgets)
target_link_libraries(WorkerClientTest PRIVATE Qt6::Core Qt6::Test loopscope_warnings)
target_compile_definitions(WorkerClientTest PRIVATE QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER
  LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
add_dependencies(WorkerClientTest loopscope-worker)
add_test(NAME WorkerClientTest COMMAND WorkerClientTest)
set_tests_properties(WorkerClientTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)

# The worker's JSON decoded into the client's plain values and back, without a process.
add_executable(WorkerProtocolTest widgets/WorkerProtocolTest.cpp
  ${PROJECT_SOURCE_DIR}/widgets/worker/WorkerProtocol.cpp)
set_target_properties(WorkerProtocolTest PROPERTIES AUTOMOC ON)
target_include_directories(WorkerProtocolTest PRIVATE ${PROJECT_SOURCE_DIR}/widgets)
target_link_libraries(WorkerProtocolTest PRIVATE Qt6::Core Qt6::Test loopscope_warnings)
target_compile_definitions(WorkerProtocolTest PRIVATE QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)
add_test(NAME WorkerProtocolTest COMMAND WorkerProtocolTest)
set_tests_properties(WorkerProtocolTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 60)

add_executable(loopscope_worker_tests worker/RequestHandlerTest.cpp)
target_link_libraries(loopscope_worker_tests PRIVATE
  loopscope_worker_handler GTest::gtest GTest::gtest_main loopscope_warnings)
target_compile_definitions(loopscope_worker_tests PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(loopscope_worker_tests DISCOVERY_TIMEOUT 60)
