// `loopscope-cli model ...`: ONNX models from the command line: info (operators, tasks with their
// weights and GFLOP), run (inputs from TensorProto files or a seed, outputs written in the test
// data's layout, --check against the reference), bench (end-to-end latency and the per-task
// table), tasks (--export DIR: each task as a TE script), test (ONNX's own test cases).
#pragma once

#include <string>
#include <vector>

namespace loopscope {

// argv[0] is "model"; returns the process exit code (0 ok, 1 the model has an error or a check
// failed, 2 usage, 3 wrong numbers).
// `self`: the tool's own path (argv[0]), to find the worker next to it.
int runModelCommand(int argc, char** argv, const std::string& self);

// `model test FOLDER ...` (ModelTestCommand.cpp): each folder is a case (model.onnx and
// test_data_set_0/) or holds cases. Exit code 0 when none failed, 3 otherwise; UsageError when
// there is no case.
int runModelTests(const std::vector<std::string>& folders, bool asJson);

} // namespace loopscope
