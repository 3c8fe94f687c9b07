# The model view: an ONNX model's graph and tasks, run and checked in a worker of its own, each
# task opened as a script in the main window.
target_sources(loopscope_widgets PRIVATE
  model/ModelGraphView.h
  model/ModelGraphView.cpp
  model/ModelWindow.h
  model/ModelWindow.cpp
  model/TaskTableModel.h
  model/TaskTableModel.cpp
)
