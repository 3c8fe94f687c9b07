// The worker's "model" command: an ONNX model imported, its graph passes run, every task compiled
// with the schedules its project file names, run on seeded inputs, checked against the reference
// interpreter task by task and end to end, and timed: what the window's model view shows. In the
// worker, so that a model whose code crashes costs a restart of the worker, never the window.
// Progress phases: "importing", "compiling", "checking", "timing". The request and reply are the
// protocol's ModelRequest and ModelReply (protocol/Messages.h).
#pragma once

#include "protocol/Messages.h"

#include <functional>
#include <string>

namespace loopscope::worker {

// A model that cannot be imported or compiled throws UserError (an error result of kind
// "document") that says why.
protocol::ModelReply
runModelRequest(const protocol::ModelRequest& request,
                const std::function<void(const std::string& phase, double)>& progress);

// The worker's "model_choice" command: a task's schedule choice written to the model's project
// file (made when there is none): the script, variant and log given (paths inside the project's
// folder kept relative to it; an empty log drops it), or with reset the task's choice dropped.
protocol::ModelChoiceReply runModelChoiceRequest(const protocol::ModelChoiceRequest& request);

} // namespace loopscope::worker
