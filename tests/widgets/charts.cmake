# Tests of the charts part (widgets/charts): Qt Test executables on the offscreen platform.
find_package(Qt6 REQUIRED COMPONENTS Test)

# The charts view, linked with the charts library alone.
add_executable(loopscope_charts_view_tests ${CMAKE_CURRENT_LIST_DIR}/charts/ChartsViewTest.cpp)
set_target_properties(loopscope_charts_view_tests PROPERTIES AUTOMOC ON)
target_link_libraries(loopscope_charts_view_tests PRIVATE loopscope_charts Qt6::Test loopscope_warnings)
add_test(NAME ChartsViewTest COMMAND loopscope_charts_view_tests)
set_tests_properties(ChartsViewTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The sweep panel above the charts (the request it builds from its choices) and the store of
# measured points (keyed by variant, kept across an edit of another variant and a restart),
# linked with the sweep's library alone.
add_executable(loopscope_sweep_panel_tests ${CMAKE_CURRENT_LIST_DIR}/charts/SweepPanelTest.cpp)
set_target_properties(loopscope_sweep_panel_tests PROPERTIES AUTOMOC ON)
target_link_libraries(loopscope_sweep_panel_tests PRIVATE loopscope_widgets_sweep Qt6::Test loopscope_warnings)
add_test(NAME SweepPanelTest COMMAND loopscope_sweep_panel_tests)
set_tests_properties(SweepPanelTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The charts in the window: a sweep, an edit of one variant, the next sweep (only that variant is
# measured again), and a new window on the same script showing the stored points.
if(TARGET loopscope-worker)
  add_executable(loopscope_charts_window_tests ${CMAKE_CURRENT_LIST_DIR}/charts/ChartsWindowTest.cpp)
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
