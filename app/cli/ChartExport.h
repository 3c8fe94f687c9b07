// `loopscope-cli sweep --chart OUT.png|OUT.svg`: the sweep drawn by the desktop app's own charts
// view, rendered offscreen, so the CLI's picture is the one a user sees in the Charts dock.
#pragma once

#include "runtime/Sweep.h"

#include <string>

namespace loopscope {

struct ChartFile {
    std::string path;           // .png or .svg
    std::string kind = "lines"; // lines | bars | roofline
    double peakGflops = 0;      // 0: no peak line
    double bandwidthGbs = 0;    // 0: no memory roof
};

// Empty when written; otherwise why not.
std::string writeSweepChart(const SweepResult& result, const ChartFile& file);

} // namespace loopscope
