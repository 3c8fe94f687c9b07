# The client of the background worker process (the worker itself is app/worker/, target
# loopscope-worker): the requests and replies as plain values, their JSON in one place.
target_sources(loopscope_widgets PRIVATE
  worker/WorkerRequests.h
  worker/WorkerReplies.h
  worker/WorkerProtocol.h
  worker/WorkerProtocol.cpp
  worker/WorkerClient.h
  worker/WorkerClient.cpp
)
