# The editor part: the QScintilla editor pane, the schedule panel and the statement writer.
target_sources(loopscope_widgets PRIVATE
  editor/EditorPane.h
  editor/EditorPane.cpp
  editor/FindBar.h
  editor/FindBar.cpp
  editor/StatementWriter.h
  editor/StatementWriter.cpp
  editor/ScheduleModels.h
  editor/ScheduleModels.cpp
  editor/SchedulePanel.h
  editor/SchedulePanel.cpp
  editor/PrimitiveHelp.h
  editor/PrimitiveHelp.cpp
)
