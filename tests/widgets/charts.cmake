# The charts view (Qt Test, offscreen). ChartsView needs only Qt Widgets, Charts and Svg, so it is
# compiled in here and this test does not wait for every other widget to build.
find_package(Qt6 REQUIRED COMPONENTS Test Widgets Charts Svg)
add_executable(ChartsViewTest widgets/ChartsViewTest.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/ChartsView.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/ChartsView.cpp)
set_target_properties(ChartsViewTest PROPERTIES AUTOMOC ON)
target_include_directories(ChartsViewTest PRIVATE ${PROJECT_SOURCE_DIR}/widgets)
target_link_libraries(ChartsViewTest PRIVATE Qt6::Widgets Qt6::Charts Qt6::Svg Qt6::Test loopscope_warnings)
target_compile_definitions(ChartsViewTest PRIVATE QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)
add_test(NAME ChartsViewTest COMMAND ChartsViewTest)
set_tests_properties(ChartsViewTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The sweep panel above the charts: the request it builds from its choices. It is compiled in with
# the charts view and uses only the core's headers (the analysis' plain structs).
add_executable(SweepPanelTest widgets/SweepPanelTest.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/SweepPanel.cpp
  ${PROJECT_SOURCE_DIR}/widgets/charts/ChartsView.h
  ${PROJECT_SOURCE_DIR}/widgets/charts/ChartsView.cpp)
set_target_properties(SweepPanelTest PROPERTIES AUTOMOC ON)
target_include_directories(SweepPanelTest PRIVATE ${PROJECT_SOURCE_DIR}/widgets
  ${PROJECT_SOURCE_DIR}/core)
target_link_libraries(SweepPanelTest PRIVATE Qt6::Widgets Qt6::Charts Qt6::Svg
  Qt6::Test loopscope_warnings)
target_compile_definitions(SweepPanelTest PRIVATE QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)
add_test(NAME SweepPanelTest COMMAND SweepPanelTest)
set_tests_properties(SweepPanelTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
