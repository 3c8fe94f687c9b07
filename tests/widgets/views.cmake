# Tests of the views part (widgets/views): Qt Test executables on the offscreen platform.
find_package(Qt6 REQUIRED COMPONENTS Test)

foreach(test TirDiffTest LadderModelTest LadderViewTest LoopNestViewTest CodeViewTest)
  add_executable(${test} widgets/${test}.cpp)
  set_target_properties(${test} PROPERTIES AUTOMOC ON)
  target_link_libraries(${test} PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(${test} PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${test} COMMAND ${test})
  set_tests_properties(${test} PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
endforeach()

# The ladder with the real worker: running rows, the fastest row, steps measured once across
# variants, measurements kept with the script, the dock's size kept.
if(TARGET loopscope-worker)
  add_executable(LadderRunTest widgets/LadderRunTest.cpp)
  set_target_properties(LadderRunTest PROPERTIES AUTOMOC ON)
  target_link_libraries(LadderRunTest PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(LadderRunTest PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(LadderRunTest loopscope-worker)
  add_test(NAME LadderRunTest COMMAND LadderRunTest)
  set_tests_properties(LadderRunTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()
