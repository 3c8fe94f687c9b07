// libFuzzer target for the tuning-log reader: any bytes are read as a log, line by line, and
// every record's steps are replayed and printed as resuming a log does
// (tests/support/TuneLogReplay.h). A damaged or hostile log is refused with reasons, never a
// crash, a sanitizer report or an internal error.
#include "support/TuneLogReplay.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    loopscope::replayLogText(std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
