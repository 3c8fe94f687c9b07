// What the product reads from the machine, and its fallbacks: the caches from a sysfs folder (a
// made-up one here, so the parser is tested on every machine), from CPUID against what glibc
// reads from the same source, the CPU's identity, and the cores this process may use.
#include "ir/Host.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <sched.h>
#include <unistd.h>

using namespace loopscope;

namespace {

namespace fs = std::filesystem;

struct TempFolder {
    fs::path path;
    TempFolder()
    {
        path = fs::temp_directory_path() / ("loopscope-host-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        fs::create_directories(path);
    }
    ~TempFolder()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void writeIndex(const fs::path& root, int index, const std::string& level, const std::string& type,
                const std::string& size)
{
    const fs::path dir = root / ("index" + std::to_string(index));
    fs::create_directories(dir);
    std::ofstream(dir / "level") << level << "\n";
    std::ofstream(dir / "type") << type << "\n";
    std::ofstream(dir / "size") << size << "\n";
}

TEST(Host, ReadsCachesFromASysfsFolder)
{
    TempFolder t;
    // As Linux lists a Zen 5 core's caches; the instruction cache is left out.
    writeIndex(t.path, 0, "1", "Data", "48K");
    writeIndex(t.path, 1, "1", "Instruction", "32K");
    writeIndex(t.path, 2, "2", "Unified", "1024K");
    writeIndex(t.path, 3, "3", "Unified", "32768K");
    const auto caches = cachesFromSysfs(t.path.string());
    ASSERT_EQ(caches.size(), 3u);
    EXPECT_EQ(caches[0].name, "L1d");
    EXPECT_EQ(caches[0].bytes, 48 * 1024);
    EXPECT_EQ(caches[1].name, "L2");
    EXPECT_EQ(caches[1].bytes, 1024 * 1024);
    EXPECT_EQ(caches[2].name, "L3");
    EXPECT_EQ(caches[2].bytes, 32 * 1024 * 1024);
    EXPECT_EQ(cacheSummary(caches), "L1d 48 KiB, L2 1.0 MiB, L3 32 MiB");
    HostCaches h{caches, "sysfs"};
    EXPECT_EQ(describeHostCaches(h), "L1d 48 KiB, L2 1.0 MiB, L3 32 MiB, from sysfs");
}

TEST(Host, AFolderWithoutCachesGivesNone)
{
    TempFolder t;
    EXPECT_TRUE(cachesFromSysfs(t.path.string()).empty());
    EXPECT_TRUE(cachesFromSysfs((t.path / "missing").string()).empty());
    // Unreadable sizes are skipped, not guessed.
    writeIndex(t.path, 0, "1", "Data", "");
    writeIndex(t.path, 1, "2", "Unified", "lots");
    EXPECT_TRUE(cachesFromSysfs(t.path.string()).empty());
    EXPECT_EQ(cacheSummary({}), "cache sizes unknown");
    EXPECT_EQ(describeHostCaches(HostCaches{}),
              "cache sizes unknown: neither sysfs nor CPUID lists them");
}

// CPUID gives the caches glibc gives (it reads the same leaves), whether or not sysfs lists them.
TEST(Host, CpuidGivesTheCachesGlibcReads)
{
    const CpuIdentity id = hostCpuIdentity();
#if defined(__x86_64__) || defined(__i386__)
    ASSERT_TRUE(id.valid);
    EXPECT_EQ(id.vendor.size(), 12u);
    EXPECT_GT(id.family, 0);
#endif
    const auto caches = cachesFromCpuid();
    auto bytesOf = [&](const std::string& name) -> long {
        for (auto& c : caches)
            if (c.name == name) return static_cast<long>(c.bytes);
        return 0;
    };
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l1 > 0) {
        EXPECT_EQ(bytesOf("L1d"), l1) << cacheSummary(caches);
    }
    if (l2 > 0) {
        EXPECT_EQ(bytesOf("L2"), l2) << cacheSummary(caches);
    }
    if (l1 <= 0 && l2 <= 0 && caches.empty())
        GTEST_SKIP() << "neither CPUID nor glibc says this machine's caches";
    ASSERT_FALSE(caches.empty());
    for (std::size_t i = 1; i < caches.size(); ++i)
        EXPECT_GE(caches[i].level, caches[i - 1].level);
}

// The host's caches come from sysfs where it lists them, else from CPUID: every machine the
// product has met says them one way or the other.
TEST(Host, TheHostSaysItsCachesOneWayOrTheOther)
{
    const HostCaches& host = hostCacheInfo();
    ASSERT_FALSE(host.levels.empty()) << describeHostCaches(host);
    const bool sysfs = !cachesFromSysfs("/sys/devices/system/cpu/cpu0/cache").empty();
    EXPECT_EQ(host.source, sysfs ? "sysfs" : "CPUID");
    for (std::size_t i = 1; i < host.levels.size(); ++i)
        EXPECT_GE(host.levels[i].bytes, host.levels[i - 1].bytes);
    EXPECT_NE(describeHostCaches(host).find(", from " + host.source), std::string::npos);
}

// The cores this process may run on: its affinity, which taskset or a cluster's CPU set narrow
// below what the machine has online.
TEST(Host, UsableCoresFollowTheAffinity)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    // Whatever the online count says (a container's /sys may say fewer or more).
    EXPECT_EQ(usableCores(), CPU_COUNT(&set));
    EXPECT_GE(usableCores(), 1);
}

} // namespace
