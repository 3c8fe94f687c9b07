# Tests of the editor part (widgets/editor): Qt Test executables on the offscreen platform.
find_package(Qt6 REQUIRED COMPONENTS Test)

foreach(test StatementWriterTest EditorPaneTest SchedulePanelTest PrimitiveHelpTest)
  add_executable(${test} widgets/${test}.cpp)
  set_target_properties(${test} PROPERTIES AUTOMOC ON)
  target_link_libraries(${test} PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(${test} PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${test} COMMAND ${test})
  set_tests_properties(${test} PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
endforeach()
