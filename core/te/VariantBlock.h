// A variant's block copied as a new variant, as text to insert after it: what "New variant from
// here" and the tuner's results write into a script.
#pragma once

#include <string>
#include <vector>

namespace loopscope {

// "\n# variant: NAME", then lines `first` .. `scheduleEnd` of `script` (the te.create_schedule
// statement and the schedule statements after it), `statements` (new steps, one per line), then
// lines `scheduleEnd` + 1 .. `last` (the rest of the block, such as tvm.build); each line after a
// newline, no newline at the end. Lines are 1-based and clamped to the script.
std::string variantBlockText(const std::string& script, int first, int scheduleEnd, int last,
                             const std::string& name,
                             const std::vector<std::string>& statements = {});

} // namespace loopscope
