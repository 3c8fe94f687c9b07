#include "ir/Host.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sched.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define LOOPSCOPE_HAS_CPUID 1
#endif

namespace loopscope {

namespace {

struct Regs {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// CPUID leaf `leaf`, subleaf `sub`; false where the CPU does not have that leaf.
bool cpuid(unsigned leaf, unsigned sub, Regs& r)
{
#ifdef LOOPSCOPE_HAS_CPUID
    // __get_cpuid_count checks the leaf against the highest one of its range.
    return __get_cpuid_count(leaf, sub, &r.eax, &r.ebx, &r.ecx, &r.edx) != 0;
#else
    (void)leaf;
    (void)sub;
    (void)r;
    return false;
#endif
}

std::string registerText(unsigned v)
{
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i)
        s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
}

CacheLevel level(int level, int type, std::int64_t bytes)
{
    CacheLevel c;
    c.level = level;
    c.bytes = bytes;
    c.name = "L" + std::to_string(level) + (type == 1 ? "d" : "");
    return c;
}

// Leaf 4 (Intel) and 0x8000001D (AMD) describe one cache per subleaf in the same layout.
std::vector<CacheLevel> deterministicCacheLeaves(unsigned leaf)
{
    std::vector<CacheLevel> out;
    for (unsigned sub = 0; sub < 16; ++sub) {
        Regs r;
        if (!cpuid(leaf, sub, r)) break;
        const int type = static_cast<int>(r.eax & 0x1f); // 1 data, 2 instruction, 3 unified
        if (type == 0) break;
        if (type == 2) continue;
        const std::int64_t lineSize = (r.ebx & 0xfff) + 1;
        const std::int64_t partitions = ((r.ebx >> 12) & 0x3ff) + 1;
        const std::int64_t ways = ((r.ebx >> 22) & 0x3ff) + 1;
        const std::int64_t sets = static_cast<std::int64_t>(r.ecx) + 1;
        out.push_back(
            level(static_cast<int>((r.eax >> 5) & 0x7), type, lineSize * partitions * ways * sets));
    }
    return out;
}

// AMD's older leaves: L1d in 0x80000005, L2 and L3 in 0x80000006.
std::vector<CacheLevel> legacyAmdCacheLeaves()
{
    std::vector<CacheLevel> out;
    Regs r;
    if (cpuid(0x80000005, 0, r) && (r.ecx >> 24) != 0)
        out.push_back(level(1, 1, static_cast<std::int64_t>(r.ecx >> 24) * 1024));
    if (cpuid(0x80000006, 0, r)) {
        if ((r.ecx >> 16) != 0)
            out.push_back(level(2, 3, static_cast<std::int64_t>(r.ecx >> 16) * 1024));
        if ((r.edx >> 18) != 0)
            out.push_back(level(3, 3, static_cast<std::int64_t>(r.edx >> 18) * 512 * 1024));
    }
    return out;
}

void sortByLevel(std::vector<CacheLevel>& caches)
{
    std::stable_sort(caches.begin(), caches.end(),
                     [](auto& a, auto& b) { return a.level < b.level; });
}

} // namespace

CpuIdentity hostCpuIdentity()
{
    CpuIdentity id;
    Regs r;
    if (!cpuid(0, 0, r)) return id;
    id.valid = true;
    id.vendor = registerText(r.ebx) + registerText(r.edx) + registerText(r.ecx);
    if (cpuid(1, 0, r)) {
        const int baseFamily = static_cast<int>((r.eax >> 8) & 0xf);
        const int baseModel = static_cast<int>((r.eax >> 4) & 0xf);
        id.family =
            baseFamily == 0xf ? baseFamily + static_cast<int>((r.eax >> 20) & 0xff) : baseFamily;
        id.model = baseFamily == 0x6 || baseFamily == 0xf
                       ? baseModel + (static_cast<int>((r.eax >> 16) & 0xf) << 4)
                       : baseModel;
        id.stepping = static_cast<int>(r.eax & 0xf);
    }
    std::string brand;
    for (unsigned leaf = 0x80000002; leaf <= 0x80000004; ++leaf) {
        if (!cpuid(leaf, 0, r)) {
            brand.clear();
            break;
        }
        brand +=
            registerText(r.eax) + registerText(r.ebx) + registerText(r.ecx) + registerText(r.edx);
    }
    brand = brand.substr(0, brand.find('\0'));
    const auto first = brand.find_first_not_of(' ');
    const auto last = brand.find_last_not_of(' ');
    id.brand = first == std::string::npos ? std::string() : brand.substr(first, last - first + 1);
    return id;
}

std::vector<CacheLevel> cachesFromSysfs(const std::string& cpuCacheFolder)
{
    std::vector<CacheLevel> out;
    for (int index = 0; index < 16; ++index) {
        const std::string dir = cpuCacheFolder + "/index" + std::to_string(index);
        std::ifstream levelFile(dir + "/level"), typeFile(dir + "/type"), sizeFile(dir + "/size");
        if (!levelFile || !typeFile || !sizeFile) continue;
        int lvl = 0;
        std::string type, size;
        levelFile >> lvl;
        typeFile >> type;
        sizeFile >> size;
        if (type == "Instruction" || size.empty() || lvl < 1) continue;
        std::int64_t bytes = 0;
        try {
            bytes = std::stoll(size);
        } catch (const std::logic_error&) {
            continue;
        }
        const char unit = size.back();
        if (unit == 'K') bytes *= 1024;
        if (unit == 'M') bytes *= 1024 * 1024;
        if (unit == 'G') bytes *= 1024LL * 1024 * 1024;
        if (bytes <= 0) continue;
        out.push_back(level(lvl, type == "Data" ? 1 : 3, bytes));
    }
    sortByLevel(out);
    return out;
}

std::vector<CacheLevel> cachesFromCpuid()
{
    const CpuIdentity id = hostCpuIdentity();
    if (!id.valid) return {};
    std::vector<CacheLevel> out;
    const bool amd = id.vendor == "AuthenticAMD" || id.vendor == "HygonGenuine";
    if (amd) {
        // 0x8000001D is there where the topology extensions are (0x80000001 ECX bit 22).
        Regs r;
        if (cpuid(0x80000001, 0, r) && (r.ecx & (1u << 22)))
            out = deterministicCacheLeaves(0x8000001D);
        if (out.empty()) out = legacyAmdCacheLeaves();
    } else {
        out = deterministicCacheLeaves(4);
    }
    sortByLevel(out);
    return out;
}

const HostCaches& hostCacheInfo()
{
    static const HostCaches caches = [] {
        HostCaches c;
        c.levels = cachesFromSysfs("/sys/devices/system/cpu/cpu0/cache");
        if (!c.levels.empty()) {
            c.source = "sysfs";
            return c;
        }
        c.levels = cachesFromCpuid();
        if (!c.levels.empty()) c.source = "CPUID";
        return c;
    }();
    return caches;
}

std::vector<CacheLevel> hostCaches()
{
    return hostCacheInfo().levels;
}

std::string byteSize(double bytes)
{
    std::ostringstream s;
    s.setf(std::ios::fixed);
    if (bytes < 1024)
        s << static_cast<std::int64_t>(bytes) << " B";
    else if (bytes < 1024.0 * 1024)
        s << std::setprecision(bytes < 10 * 1024 ? 1 : 0) << bytes / 1024 << " KiB";
    else if (bytes < 1024.0 * 1024 * 1024)
        s << std::setprecision(bytes < 10.0 * 1024 * 1024 ? 1 : 0) << bytes / 1024 / 1024 << " MiB";
    else
        s << std::setprecision(1) << bytes / 1024 / 1024 / 1024 << " GiB";
    return s.str();
}

std::string cacheSummary(const std::vector<CacheLevel>& caches)
{
    std::string s;
    for (auto& c : caches)
        s += (s.empty() ? "" : ", ") + c.name + " " + byteSize(static_cast<double>(c.bytes));
    return s.empty() ? "cache sizes unknown" : s;
}

std::string describeHostCaches(const HostCaches& caches)
{
    if (caches.levels.empty()) return "cache sizes unknown: neither sysfs nor CPUID lists them";
    return cacheSummary(caches.levels) + ", from " + caches.source;
}

int usableCores()
{
    static const int cores = [] {
        // The affinity mask, in a set large enough for any machine.
        constexpr int kMaxCpus = 8192;
        cpu_set_t* set = CPU_ALLOC(kMaxCpus);
        if (set) {
            const std::size_t size = CPU_ALLOC_SIZE(kMaxCpus);
            CPU_ZERO_S(size, set);
            int n = 0;
            if (sched_getaffinity(0, size, set) == 0) n = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            if (n > 0) return n;
        }
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        if (online > 0) return static_cast<int>(online);
        return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }();
    return cores;
}

std::string hostName()
{
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
    return name;
}

} // namespace loopscope
