// `loopscope --smoke-test FILE`: the window's whole path once, unattended, for CI and for a user
// checking an installation. Opens the script, evaluates it, lowers every step of every variant,
// runs the last variant's last step in the worker at a small size with its numbers checked
// against the reference interpreter, prints what it did and quits: 0 when everything passed.
#pragma once

#include <QString>

namespace loopscope {

class MainWindow;

// Starts the check on `window`, which has the script open; ends the application's event loop
// with the exit code when done (or after `timeoutMs`).
void startSmokeTest(MainWindow& window, const QString& file, int timeoutMs = 180000);

} // namespace loopscope
