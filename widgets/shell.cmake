target_sources(loopscope_widgets PRIVATE
  shell/AnalysisService.cpp
  shell/RecoveryStore.cpp
  shell/MainWindow.cpp
)
target_compile_definitions(loopscope_widgets PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
