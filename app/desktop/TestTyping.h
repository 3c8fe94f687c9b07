// `loopscope --test-typing SEED FILE` (for tests): the window types into its own editor as a user
// would, one key event at a time, and runs the ladder now and then ("ran"), so that a test can kill
// it at any moment and check what the next start recovers. Each line it types is a comment,
// "# edit N", numbered on from the highest number already in the text; once a line's keys have
// been handled it prints "typed N" on stdout. The text a previous session autosaved is restored
// without asking, so that the numbers go on across sessions.
#pragma once

#include <QtGlobal>

namespace loopscope {

class MainWindow;

// Starts typing into `window` (shown, with its script open); `seed` makes the pauses between
// lines repeatable. It goes on until the process ends.
void startTestTyping(MainWindow& window, quint32 seed);

} // namespace loopscope
