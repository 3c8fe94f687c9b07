#include "Cli.h"
#include "Commands.h"

#include "codegen/Codegen.h"
#include "ir/Host.h"
#include "runtime/Microbench.h"

#include <iostream>

namespace loopscope::cli {

int commandMachine(int argc, char** argv)
{
    Options o;
    parseCommand(argc, argv, o, join({scriptOptions(o), runOptions(o), {jsonOption(o)}}), false);
    // What is read from the machine (README, "What Loopscope reads from the machine").
    const HostTarget host = hostTarget();
    const CpuIdentity id = hostCpuIdentity();
    const HostCaches& caches = hostCacheInfo();
    PeakFlops peak = measurePeakFlops(o.threads);
    PeakInt8 int8 = measurePeakInt8(o.threads);
    Bandwidth bw = measureTriadBandwidth(o.threads);
    if (o.json) {
        json levels = json::array();
        for (auto& c : caches.levels)
            levels.push_back({{"name", c.name}, {"bytes", c.bytes}});
        std::cout << json{{"cpu", host.cpu},
                          {"llvm_cpu", host.llvmCpu},
                          {"cpu_note", host.cpuReason},
                          {"cpu_brand", id.brand},
                          {"features", host.features},
                          {"llvm", host.llvmVersion},
                          {"caches", levels},
                          {"caches_source", caches.source},
                          {"usable_cores", usableCores()},
                          {"peak_gflops", peak.gflops},
                          {"peak_threads", peak.threads},
                          {"vector_bits", peak.vectorBits},
                          {"peak_int8_gops", int8.gops},
                          {"peak_int8_instructions", int8.how},
                          {"bandwidth_gbs", bw.gbPerS},
                          {"bandwidth_threads", bw.threads},
                          {"bandwidth_mb", bw.megabytes},
                          {"clock_ghz", hostClockGhz()}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << "CPU:          " << (id.brand.empty() ? "(no brand string)" : id.brand) << "\n"
                  << "code for:     " << host.cpu << " (LLVM " << host.llvmVersion
                  << (host.cpu == host.llvmCpu ? " names this CPU so"
                                               : " names this CPU " + host.llvmCpu)
                  << "), " << host.vectorBits << "-bit vectors\n";
        if (!host.cpuReason.empty()) std::cout << "              " << host.cpuReason << "\n";
        std::cout << "caches:       " << describeHostCaches(caches) << "\n"
                  << "cores:        " << usableCores() << " usable by this process\n"
                  << "peak float32: " << fixed(peak.gflops, 1) << " GFLOPS (FMA, "
                  << peak.vectorBits << "-bit vectors, " << peak.threads << " thread"
                  << (peak.threads == 1 ? "" : "s") << ")\n"
                  << "peak int8:    " << fixed(int8.gops, 1) << " GOPS (uint8 x int8 -> int32, "
                  << int8.how << ")\n"
                  << "bandwidth:    " << fixed(bw.gbPerS, 1) << " GB/s (triad over "
                  << fixed(bw.megabytes, 0) << " MB, " << bw.threads << " thread"
                  << (bw.threads == 1 ? "" : "s") << ")\n";
    }
    return kOk;
}

} // namespace loopscope::cli
