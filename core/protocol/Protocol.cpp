#include "protocol/Protocol.h"

namespace loopscope {

std::string protocolMismatch(int theirs, const std::string& peer, const std::string& theirVersion)
{
    if (theirs == kWorkerProtocol) return {};
    return peer + (theirVersion.empty() ? "" : " (Loopscope " + theirVersion + ")") +
           " speaks worker protocol " + std::to_string(theirs) + ", this side speaks " +
           std::to_string(kWorkerProtocol) +
           ": both sides need the same build of Loopscope (install the same version on both "
           "machines)";
}

} // namespace loopscope
