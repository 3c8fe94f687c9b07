# The client of the background worker process (the worker itself is app/worker/, target
# loopscope-worker): requests and replies are the protocol's own values, written and read by its
# one codec (core/protocol). It needs only QtCore, so it is a small library of its own: its tests
# build without the other widgets.
add_library(loopscope_widgets_worker STATIC
  worker/WorkerReply.h
  worker/WorkerClient.h
  worker/WorkerClient.cpp
)
set_target_properties(loopscope_widgets_worker PROPERTIES AUTOMOC ON)
target_include_directories(loopscope_widgets_worker PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(loopscope_widgets_worker PUBLIC Qt6::Core loopscope_protocol PRIVATE loopscope_warnings)
target_compile_definitions(loopscope_widgets_worker PUBLIC QT_NO_CAST_FROM_ASCII QT_USE_QSTRINGBUILDER)

target_link_libraries(loopscope_widgets PUBLIC loopscope_widgets_worker)
