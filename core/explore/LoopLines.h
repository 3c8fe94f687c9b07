// Which stage and axis each loop of a step's printed TIR is, as the schedule panel names them:
// the printer's lines (ir/Printer.h) joined with the schedule the program was lowered from, so
// that a click on a loop selects its axis without reading the text.
#pragma once

#include "ir/Printer.h"
#include "schedule/Schedule.h"

#include <cstddef>
#include <string>
#include <vector>

namespace loopscope {

// A loop printed on a line. `stage` is empty when the loop could not be traced to an axis.
struct PrintedLoop {
    int line = 0;        // 1-based line of its printing (a T.grid line holds several loops)
    std::string var;     // the loop variable as the program spells it ("i.inner.init")
    std::string stage;   // StageInfo::name
    std::string axis;    // AxisInfo::name ("i_inner")
    std::string axisVar; // AxisInfo::var ("i.inner")
    bool init = false;   // the reduction's init loop over that axis
};

// Every loop `printed` prints, in line order and outer to inner on a line. `body` is the
// statement that was printed (the final function's body or the structured one); `structured` is
// the program before flattening, where the reduction's init loops are found.
std::vector<PrintedLoop> printedLoops(const Schedule& sch, const Stmt& structured, const Stmt& body,
                                      const PrintedFunction& printed);

// The `nth` loop (0-based, outer to inner) printed on `line`, or nullptr.
const PrintedLoop* printedLoopAt(const std::vector<PrintedLoop>& loops, int line, std::size_t nth);

} // namespace loopscope
