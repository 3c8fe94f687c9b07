# The charts view (Qt Test, offscreen), linked with the charts library alone.
find_package(Qt6 REQUIRED COMPONENTS Test)
add_executable(ChartsViewTest widgets/ChartsViewTest.cpp)
set_target_properties(ChartsViewTest PROPERTIES AUTOMOC ON)
target_link_libraries(ChartsViewTest PRIVATE loopscope_charts Qt6::Test loopscope_warnings)
add_test(NAME ChartsViewTest COMMAND ChartsViewTest)
set_tests_properties(ChartsViewTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The sweep panel above the charts (the request it builds from its choices) and the store of
# measured points (which reads scripts with the front end to key points by variant, and writes
# its file with tune/TuneLog.h's whole-file write).
add_executable(SweepPanelTest widgets/SweepPanelTest.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepStore.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepStore.cpp
  ${PROJECT_SOURCE_DIR}/widgets/views/SafeFile.h
  ${PROJECT_SOURCE_DIR}/widgets/views/SafeFile.cpp)
set_target_properties(SweepPanelTest PROPERTIES AUTOMOC ON)
target_include_directories(SweepPanelTest PRIVATE ${PROJECT_SOURCE_DIR}/core)
target_link_libraries(SweepPanelTest PRIVATE loopscope_charts loopscope_te loopscope_tune
  Qt6::Test loopscope_warnings)
add_test(NAME SweepPanelTest COMMAND SweepPanelTest)
set_tests_properties(SweepPanelTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The charts in the window: a sweep, an edit of one variant, the next sweep (only that variant is
# measured again), and a new window on the same script showing the stored points.
if(TARGET loopscope-worker)
  add_executable(loopscope_charts_window_tests widgets/ChartsWindowTest.cpp)
  set_target_properties(loopscope_charts_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_charts_window_tests PRIVATE loopscope_widgets Qt6::Test
    loopscope_warnings)
  target_compile_definitions(loopscope_charts_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_charts_window_tests loopscope-worker)
  add_test(NAME ChartsWindow COMMAND loopscope_charts_window_tests)
  set_tests_properties(ChartsWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()
