// The worker protocol: JSON lines between a client (the window, the tuner, a runner on another
// machine) and a worker process. Its version opens every conversation: each request carries the
// client's, the worker's answer to a ping carries its own, and a side that meets another version
// refuses with protocolMismatch()'s message, so that a peer of another build is never half
// understood.
#pragma once

#include <string>

namespace loopscope {

// Raised whenever a message changes meaning; a field added that an older peer may ignore keeps it.
constexpr int kWorkerProtocol = 1;

// Empty when `theirs` is kWorkerProtocol; otherwise what to tell the user: who speaks what, and
// that both sides need the same build. `peer`: "the worker" or "the client"; `theirVersion`:
// the peer's product version where known.
std::string protocolMismatch(int theirs, const std::string& peer,
                             const std::string& theirVersion = {});

} // namespace loopscope
