#include "protocol/Protocol.h"

#include "protocol/Messages.h"

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

namespace protocol {

std::string gpuDescription(const GpuDevice& d)
{
    std::string s = d.name.empty() ? "a GPU" : d.name;
    s += " (sm_" + std::to_string(d.computeCapability);
    if (d.driverVersion > 0)
        s += ", driver " + std::to_string(d.driverVersion / 1000) + "." +
             std::to_string(d.driverVersion % 1000 / 10);
    if (d.clockMhz > 0)
        s += ", " + std::to_string(d.clockMhz) +
             (d.memoryClockMhz > 0 ? "/" + std::to_string(d.memoryClockMhz) : "") + " MHz";
    return s + ")";
}

std::string describeMachine(const Machine& m)
{
    std::string s = m.cpu.empty() ? "an unknown CPU" : m.cpu;
    if (!m.cpuName.empty()) s += " (" + m.cpuName + ")";
    s += ", " + std::to_string(m.threads) + (m.threads == 1 ? " core" : " cores");
    if (!m.host.empty()) s += " on " + m.host;
    if (!m.gpu.empty()) s += " with " + m.gpu;
    return s;
}

bool sameMachineKind(const Machine& a, const Machine& b)
{
    // A fact one side does not know (0, empty: a record from before it was kept) does not tell
    // the two apart.
    auto same = [](const auto& x, const auto& y, const auto& unknown) {
        return x == unknown || y == unknown || x == y;
    };
    // GPU kernels' times are the GPU's, whichever CPU launched them.
    if (!a.gpu.empty() || !b.gpu.empty()) return a.gpu == b.gpu;
    return a.cpu == b.cpu && same(a.threads, b.threads, 0) && same(a.vectorBits, b.vectorBits, 0) &&
           same(a.cpuName, b.cpuName, std::string());
}

} // namespace protocol

} // namespace loopscope
