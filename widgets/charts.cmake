# Benchmark charts (Qt Charts, wrapped by ChartsView) and export as PNG/SVG. The charts view is
# its own small library: the chart program (loopscope-chart, which draws `sweep --chart`) uses it without the rest of the widgets.
# It shows the worker protocol's sweep points (core/protocol, Qt-free).
find_package(Qt6 REQUIRED COMPONENTS Widgets Charts Svg)
add_library(loopscope_charts STATIC
  charts/ChartsView.cpp
  charts/ChartLegend.cpp
  charts/ChartStyle.cpp
  charts/ChartExport.h
  charts/ChartExport.cpp
)
set_target_properties(loopscope_charts PROPERTIES AUTOMOC ON)
target_include_directories(loopscope_charts PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(loopscope_charts PUBLIC Qt6::Widgets Qt6::Charts Qt6::Svg loopscope_protocol
  PRIVATE loopscope_warnings)
target_compile_definitions(loopscope_charts PUBLIC QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)

# The sweep panel above the charts (the request it builds from its choices) and the store of
# measured points (which reads scripts with the front end to key points by variant, and writes its
# file with views/SafeFile.h). A small library of its own: its test builds without the other
# widgets.
add_library(loopscope_widgets_sweep STATIC
  charts/SweepPanel.h
  charts/SweepPanel.cpp
  charts/SweepStore.h
  charts/SweepStore.cpp
)
set_target_properties(loopscope_widgets_sweep PROPERTIES AUTOMOC ON)
target_include_directories(loopscope_widgets_sweep PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
# The panel is given the analysis (explore/Explorer.h's ExplorationPtr).
target_link_libraries(loopscope_widgets_sweep
  PUBLIC loopscope_charts loopscope_explore
  PRIVATE loopscope_widgets_safe_file loopscope_te loopscope_warnings)

target_link_libraries(loopscope_widgets PUBLIC loopscope_charts loopscope_widgets_sweep)
