# The charts view (Qt Test, offscreen), linked with the charts library alone.
find_package(Qt6 REQUIRED COMPONENTS Test)
add_executable(ChartsViewTest widgets/ChartsViewTest.cpp)
set_target_properties(ChartsViewTest PROPERTIES AUTOMOC ON)
target_link_libraries(ChartsViewTest PRIVATE loopscope_charts Qt6::Test loopscope_warnings)
add_test(NAME ChartsViewTest COMMAND ChartsViewTest)
set_tests_properties(ChartsViewTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The sweep panel above the charts (the request it builds from its choices) and the store of
# measured points. They use only the core's headers (the analysis' plain structs).
add_executable(SweepPanelTest widgets/SweepPanelTest.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepStore.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepStore.cpp)
set_target_properties(SweepPanelTest PROPERTIES AUTOMOC ON)
target_include_directories(SweepPanelTest PRIVATE ${PROJECT_SOURCE_DIR}/core)
target_link_libraries(SweepPanelTest PRIVATE loopscope_charts Qt6::Test loopscope_warnings)
add_test(NAME SweepPanelTest COMMAND SweepPanelTest)
set_tests_properties(SweepPanelTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
