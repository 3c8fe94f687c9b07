# Views: the loop-nest view (TIR of a step and its before/after diff), the code view (LLVM IR,
# assembly) and the ladder (per-step timings). TirDiff is Qt-free; dtl (header-only) diffs lines.
target_sources(loopscope_widgets PRIVATE
  views/ViewColors.h views/ViewColors.cpp
  views/TirDiff.h views/TirDiff.cpp
  views/CodeEdit.h views/CodeEdit.cpp
  views/TirEditor.h views/TirEditor.cpp
  views/LoopNestView.h views/LoopNestView.cpp
  views/CompareView.h views/CompareView.cpp
  views/CodeView.h views/CodeView.cpp
  views/LadderModel.h views/LadderModel.cpp
  views/LadderView.h views/LadderView.cpp
  views/LadderStore.h views/LadderStore.cpp
  views/VariantTreeView.h views/VariantTreeView.cpp
  views/SafeFile.h views/SafeFile.cpp
)
