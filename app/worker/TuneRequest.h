// The worker's "tune" command: the auto-tuner run for the window, in a worker process of its
// own, measuring its candidates in a further worker (this executable again) so that a candidate
// that crashes costs that one a restart and the tuning goes on. The request, its progress and its
// reply are the protocol's TuneRequest, TuneUpdate and TuneReply (protocol/Messages.h): the first
// update (done 0) carries the starting loop nest, the reference line when the program is a matmul
// (OpenBLAS) or a convolution (oneDNN), the machine and, when asked, the peak and the fastest hand
// variant; each later one a measured trial and the best so far.
#pragma once

#include "protocol/Messages.h"

#include <functional>
#include <string>

namespace loopscope::worker {

// `workerExecutable`: what measures the candidates (the running worker's own path).
// `testing`: honour crashFirst (the first candidate's code crashes).
// Throws UserError for a script that does not evaluate or cannot be tuned.
protocol::TuneReply runTuneRequest(const protocol::TuneRequest& request,
                                   const std::function<void(const protocol::TuneUpdate&)>& progress,
                                   const std::string& workerExecutable, bool testing);

} // namespace loopscope::worker
