// What the tune tests compare candidates by: a schedule's lowered function as TVM prints it, or
// "error: ..." where it cannot be lowered.
#pragma once

#include "ir/Printer.h"
#include "lower/Lower.h"

#include <string>
#include <vector>

namespace loopscope::testing {

inline std::string lowered(const Schedule& sch, const std::vector<Tensor>& args)
{
    try {
        return printTVMScript(lowerSchedule(sch, args).func);
    } catch (const UserError& e) {
        return "error: " + e.message();
    }
}

} // namespace loopscope::testing
