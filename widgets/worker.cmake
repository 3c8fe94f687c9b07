# The client of the background worker process (the worker itself is app/worker/, target
# loopscope-worker).
target_sources(loopscope_widgets PRIVATE
  worker/WorkerClient.h
  worker/WorkerClient.cpp
)
