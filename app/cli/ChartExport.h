// `loopscope-cli sweep --chart OUT.png|OUT.svg`: the sweep drawn by the desktop app's own charts
// view, so the CLI's picture is the one a user sees in the Charts dock. The drawing happens in the
// chart program (loopscope-chart), started for it: the CLI loads no Qt.
#pragma once

#include "protocol/Messages.h"

#include <string>

namespace loopscope {

// The chart program next to `selfExecutable`: $LOOPSCOPE_CHART, loopscope-chart beside it,
// ../chart/ or ../libexec/loopscope/. Empty when none exists.
std::string findChartExecutable(const std::string& selfExecutable);

// Empty when written; otherwise why not.
std::string writeSweepChart(const protocol::ChartRequest& request,
                            const std::string& selfExecutable);

} // namespace loopscope
