# Benchmark charts (Qt Charts, wrapped by ChartsView) and export as PNG/SVG. The charts view is
# its own small library: the chart program (loopscope-chart, which draws `sweep --chart`) uses it without the rest of the widgets.
find_package(Qt6 REQUIRED COMPONENTS Widgets Charts Svg)
add_library(loopscope_charts STATIC
  charts/ChartsView.cpp
  charts/ChartLegend.cpp
  charts/ChartStyle.cpp
  charts/ChartExport.cpp
)
set_target_properties(loopscope_charts PROPERTIES AUTOMOC ON)
target_include_directories(loopscope_charts PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(loopscope_charts PUBLIC Qt6::Widgets Qt6::Charts Qt6::Svg
  PRIVATE loopscope_warnings)
target_compile_definitions(loopscope_charts PUBLIC QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)

target_sources(loopscope_widgets PRIVATE
  charts/SweepPanel.cpp
  charts/SweepStore.cpp
)
target_link_libraries(loopscope_widgets PUBLIC loopscope_charts)
