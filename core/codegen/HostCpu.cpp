// The CPU code for this machine is generated for. LLVM 16's host detection names a CPU it has no
// table entry for "generic" (AMD's Zen 5, Intel's cores after Meteor Lake): the features it
// detects are right, but the scheduling model and the tuning choices keyed on the CPU are the
// generic ones. Such a CPU is given the nearest model LLVM knows, from CPUID's family and the
// features, and keeps its own features.
#include "codegen/Codegen.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace loopscope {

namespace {

std::string hex(int v)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%x", static_cast<unsigned>(v));
    return text;
}

bool knownToLlvm(const std::string& cpu)
{
    llvm::InitializeNativeTarget();
    const std::string triple = llvm::sys::getProcessTriple();
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) return false;
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
    return info && info->isCPUStringValid(cpu);
}

} // namespace

std::set<std::string> hostCpuFeatures()
{
    llvm::StringMap<bool> detected;
    std::set<std::string> on;
    if (llvm::sys::getHostCPUFeatures(detected))
        for (auto& f : detected)
            if (f.second) on.insert(f.first().str());
    return on;
}

std::string nearestKnownCpu(const CpuIdentity& id, const std::set<std::string>& features)
{
    auto has = [&](const char* f) { return features.count(f) != 0; };
    // By the level of the x86-64 psABI the features reach: scheduled as LLVM schedules those.
    auto byLevel = [&]() -> std::string {
        if (has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq"))
            return "x86-64-v4";
        if (has("avx2") && has("fma") && has("bmi2")) return "x86-64-v3";
        if (has("sse4.2") && has("popcnt")) return "x86-64-v2";
        return "";
    };
    if (!id.valid) return byLevel();
    if (id.vendor == "AuthenticAMD") {
        // Zen 3 and Zen 4 are family 0x19; Zen 5 is 0x1a, and it runs Zen 4's code best.
        if (id.family >= 0x19) return has("avx512f") ? "znver4" : "znver3";
        if (id.family == 0x17) return has("clwb") ? "znver2" : "znver1";
        return byLevel();
    }
    if (id.vendor == "HygonGenuine") return id.family == 0x18 ? "znver1" : byLevel();
    if (id.vendor == "GenuineIntel") {
        // Newer cores than LLVM's tables, by the features their generation brought.
        if (has("amx-tile") || has("avx512fp16")) return "sapphirerapids";
        if (has("avx512vnni") && has("avx512vbmi2")) return "icelake-server";
        if (has("avx512vnni")) return "cascadelake";
        if (has("avx512f") && has("avx512bw")) return "skylake-avx512";
        if (has("avxvnni") && has("avx2")) return "alderlake"; // hybrid and E-cores without AVX-512
        if (has("avx2") && has("fma") && has("clflushopt")) return "skylake";
        if (has("avx2") && has("fma")) return "haswell";
        return byLevel();
    }
    return byLevel();
}

const HostCpu& hostCpu()
{
    static const HostCpu cpu = [] {
        HostCpu c;
        // For testing how the product meets a CPU LLVM does not know, on one it does.
        const char* as = std::getenv("LOOPSCOPE_LLVM_HOST_CPU");
        c.llvmName = as && *as ? std::string(as) : llvm::sys::getHostCPUName().str();
        c.name = c.llvmName;
        if (c.llvmName != "generic" && knownToLlvm(c.llvmName)) return c;
        const CpuIdentity id = hostCpuIdentity();
        const std::string nearest = nearestKnownCpu(id, hostCpuFeatures());
        const std::string what = id.valid ? (id.brand.empty() ? id.vendor : "'" + id.brand + "'") +
                                                ", " + id.vendor + " family " + hex(id.family) +
                                                " model " + hex(id.model)
                                          : std::string("a CPU CPUID does not describe");
        if (nearest.empty() || !knownToLlvm(nearest)) {
            c.name = "generic";
            c.reason = "LLVM " LLVM_VERSION_STRING " does not know this CPU (" + what +
                       ") nor a model near it: code is scheduled for a generic x86-64 with "
                       "this CPU's features";
            return c;
        }
        c.name = nearest;
        c.reason = "LLVM " LLVM_VERSION_STRING " does not know this CPU (" + what +
                   "): code is scheduled for " + nearest +
                   ", the nearest model it knows, with this CPU's own features";
        return c;
    }();
    return cpu;
}

} // namespace loopscope
