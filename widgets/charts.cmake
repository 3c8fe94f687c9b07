# Benchmark charts (Qt Charts, wrapped by ChartsView) and export as SVG.
find_package(Qt6 REQUIRED COMPONENTS Charts Svg)
target_sources(loopscope_widgets PRIVATE
  charts/ChartsView.cpp
  charts/SweepPanel.cpp
)
target_link_libraries(loopscope_widgets PUBLIC Qt6::Charts Qt6::Svg)
