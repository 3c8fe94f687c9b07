# The Tune panel: the auto-tuner's budget, progress, convergence chart and best candidate, and
# the service that runs it in a worker of its own.
target_sources(loopscope_widgets PRIVATE
  tune/TuneChart.h
  tune/TuneChart.cpp
  tune/TuneService.h
  tune/TuneService.cpp
  tune/TunePanel.h
  tune/TunePanel.cpp
)
