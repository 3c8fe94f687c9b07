# Views: the loop-nest view (TIR of a step and its before/after diff), the code view (LLVM IR,
# assembly) and the ladder (per-step timings). TirDiff is Qt-free; dtl (header-only) diffs lines.
target_sources(loopscope_widgets PRIVATE
  views/ViewColors.h views/ViewColors.cpp
  views/TirDiff.h views/TirDiff.cpp
  views/CodeEdit.h views/CodeEdit.cpp
  views/TirEditor.h views/TirEditor.cpp
  views/LoopNestView.h views/LoopNestView.cpp
  views/CompareView.h views/CompareView.cpp
  views/MigrationView.h views/MigrationView.cpp
  views/CodeView.h views/CodeView.cpp
  views/LadderModel.h views/LadderModel.cpp
  views/LadderView.h views/LadderView.cpp
  views/LadderStore.h views/LadderStore.cpp
  views/VariantTreeView.h views/VariantTreeView.cpp
)

# Whole-file writes that leave the old file whole if they fail, and damaged files set aside: used
# by the ladder's, the sweep's and the recovery's stores and the saves. QtCore only, a small
# library of its own so that the sweep store (charts.cmake) and its test need no other widget.
add_library(loopscope_widgets_safe_file STATIC views/SafeFile.h views/SafeFile.cpp)
target_include_directories(loopscope_widgets_safe_file PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(loopscope_widgets_safe_file PUBLIC Qt6::Core PRIVATE loopscope_tune loopscope_warnings)
target_compile_definitions(loopscope_widgets_safe_file PUBLIC QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)

target_link_libraries(loopscope_widgets PUBLIC loopscope_widgets_safe_file)
