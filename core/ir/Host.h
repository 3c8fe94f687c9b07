// What the product reads from the machine it runs on, each fact with its fallback: the CPU's
// identity (CPUID), its caches (sysfs, else CPUID), the cores this process may run on (its
// affinity, else the online count). Every reading here tolerates a machine that does not say:
// virtual machines without sysfs cache folders, containers with a narrowed affinity, CPUs newer
// than the tables. The README lists these facts and what the product does when each is missing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

// The processor as CPUID describes it; `valid` is false where CPUID cannot be asked (not x86).
struct CpuIdentity {
    bool valid = false;
    std::string vendor; // "GenuineIntel", "AuthenticAMD", ...
    int family = 0;     // the displayed family (base + extended), e.g. 0x1a for Zen 5
    int model = 0;      // the displayed model (extended model folded in)
    int stepping = 0;
    std::string brand; // "AMD EPYC 9R45 ...", trimmed; empty where the CPU has no brand string
};
CpuIdentity hostCpuIdentity();

struct CacheLevel {
    int level = 0; // 1, 2, 3
    std::int64_t bytes = 0;
    std::string name; // "L1d", "L2", "L3"
};

// The host's data and unified caches, smallest level first, and where they were read:
// "sysfs" (/sys/devices/system/cpu/cpu0/cache), else "CPUID" (leaf 4 on Intel, 0x8000001D or the
// legacy 0x80000005/6 leaves on AMD: what lscpu and glibc read), else "" with no levels.
struct HostCaches {
    std::vector<CacheLevel> levels;
    std::string source;
};
const HostCaches& hostCacheInfo(); // read once per process
std::vector<CacheLevel> hostCaches();

// The readers, for tests: the caches listed under a sysfs cpu folder ("index0", "index1", ...),
// and the caches CPUID gives (empty where it gives none).
std::vector<CacheLevel> cachesFromSysfs(const std::string& cpuCacheFolder);
std::vector<CacheLevel> cachesFromCpuid();

// "L1d 48 KiB, L2 1 MiB, L3 32 MiB"; "cache sizes unknown" for none.
std::string cacheSummary(const std::vector<CacheLevel>& caches);
// The summary with where it was read: "L1d 48 KiB, L2 1 MiB, L3 32 MiB, from CPUID"; for none,
// "cache sizes unknown: neither sysfs nor CPUID lists them".
std::string describeHostCaches(const HostCaches& caches);
// "12.3 KiB"
std::string byteSize(double bytes);

// The cores this process may run on: its CPU affinity (taskset, a container's or Slurm's CPU
// set), else the online processors, at least 1. What "all threads" means everywhere.
int usableCores();

// The machine's host name ("localhost" where it has none).
std::string hostName();

} // namespace loopscope
