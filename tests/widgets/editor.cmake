# Tests of the editor part (widgets/editor): Qt Test executables on the offscreen platform. The
# test FooBarTest (editor/FooBarTest.cpp) is the executable loopscope_foo_bar_tests.
find_package(Qt6 REQUIRED COMPONENTS Test)

foreach(name StatementWriter EditorPane SchedulePanel PrimitiveHelp)
  string(REGEX REPLACE "([a-z])([A-Z])" "\\1_\\2" part ${name})
  string(TOLOWER "loopscope_${part}_tests" target)
  add_executable(${target} ${CMAKE_CURRENT_LIST_DIR}/editor/${name}Test.cpp)
  set_target_properties(${target} PROPERTIES AUTOMOC ON)
  target_link_libraries(${target} PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(${target} PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${name}Test COMMAND ${target})
  set_tests_properties(${name}Test PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
endforeach()
