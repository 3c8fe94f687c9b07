// The CPU code is generated for when LLVM 16 does not know the host: the nearest model it knows,
// from CPUID's vendor and family and the features (identities as CPUID gives them on the CPUs
// named), every answer a CPU LLVM accepts; and the host's own answer, both names kept.
#include "codegen/Codegen.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace loopscope;

namespace {

CpuIdentity cpu(const char* vendor, int family, int model)
{
    CpuIdentity id;
    id.valid = true;
    id.vendor = vendor;
    id.family = family;
    id.model = model;
    return id;
}

const std::set<std::string> kAvx2 = {"sse4.2", "popcnt", "avx", "avx2", "fma", "bmi2", "f16c"};

std::set<std::string> with(std::set<std::string> base, std::initializer_list<const char*> more)
{
    for (const char* f : more)
        base.insert(f);
    return base;
}

const std::set<std::string> kAvx512 =
    with(kAvx2, {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "clflushopt"});

// A name LLVM accepts as -mcpu.
void expectKnown(const std::string& name)
{
    EXPECT_NO_THROW(checkTarget("llvm -mcpu=" + name)) << name;
}

TEST(HostCpu, Zen5IsScheduledAsZen4)
{
    // Zen 5 (EPYC 9005, Ryzen 9000): family 0x1a, AVX-512.
    const auto zen5 = with(kAvx512, {"avx512vnni", "avx512vbmi2", "avx512bf16", "avxvnni"});
    EXPECT_EQ(nearestKnownCpu(cpu("AuthenticAMD", 0x1a, 0x02), zen5), "znver4");
    EXPECT_EQ(nearestKnownCpu(cpu("AuthenticAMD", 0x1a, 0x44), zen5), "znver4");
    // One whose hypervisor hides AVX-512: Zen 3's model, which has none.
    EXPECT_EQ(nearestKnownCpu(cpu("AuthenticAMD", 0x1a, 0x02), kAvx2), "znver3");
    // Zen 2 and Zen 1 by what Zen 2 added.
    EXPECT_EQ(nearestKnownCpu(cpu("AuthenticAMD", 0x17, 0x31), with(kAvx2, {"clwb"})), "znver2");
    EXPECT_EQ(nearestKnownCpu(cpu("AuthenticAMD", 0x17, 0x01), kAvx2), "znver1");
}

TEST(HostCpu, NewerIntelCoresByTheirFeatures)
{
    // Granite Rapids (model 0xad) and Emerald Rapids (0xcf): AMX, as Sapphire Rapids.
    EXPECT_EQ(nearestKnownCpu(cpu("GenuineIntel", 6, 0xad), with(kAvx512, {"amx-tile"})),
              "sapphirerapids");
    // Arrow Lake (0xc6) and Lunar Lake (0xbd): AVX-VNNI without AVX-512, as Alder Lake.
    EXPECT_EQ(nearestKnownCpu(cpu("GenuineIntel", 6, 0xc6), with(kAvx2, {"avxvnni"})), "alderlake");
    // A future family (Diamond Rapids is family 0x13) is read by its features too.
    EXPECT_EQ(nearestKnownCpu(cpu("GenuineIntel", 0x13, 0x01),
                              with(kAvx512, {"avx512vnni", "avx512vbmi2"})),
              "icelake-server");
    EXPECT_EQ(nearestKnownCpu(cpu("GenuineIntel", 6, 0x55), with(kAvx512, {"avx512vnni"})),
              "cascadelake");
    EXPECT_EQ(nearestKnownCpu(cpu("GenuineIntel", 6, 0x55), kAvx512), "skylake-avx512");
}

TEST(HostCpu, OtherVendorsByTheirPsAbiLevel)
{
    EXPECT_EQ(nearestKnownCpu(cpu("CentaurHauls", 7, 0x3b), kAvx2), "x86-64-v3");
    EXPECT_EQ(nearestKnownCpu(cpu("  Shanghai  ", 7, 0x5b), kAvx512), "x86-64-v4");
    EXPECT_EQ(nearestKnownCpu(cpu("HygonGenuine", 0x18, 0x02), kAvx2), "znver1");
    EXPECT_EQ(nearestKnownCpu(CpuIdentity{}, {"sse4.2", "popcnt"}), "x86-64-v2");
    EXPECT_EQ(nearestKnownCpu(CpuIdentity{}, {}), "");
}

TEST(HostCpu, EveryAnswerIsACpuLlvmKnows)
{
    for (const char* name : {"znver1", "znver2", "znver3", "znver4", "sapphirerapids",
                             "icelake-server", "cascadelake", "skylake-avx512", "alderlake",
                             "skylake", "haswell", "x86-64-v2", "x86-64-v3", "x86-64-v4"})
        expectKnown(name);
}

// The host: LLVM's name and the one code is generated for, the same where LLVM knows the CPU,
// else the nearest with a reason (LOOPSCOPE_LLVM_HOST_CPU=generic tests that on any machine).
TEST(HostCpu, TheHostKeepsBothNames)
{
    const HostCpu& host = hostCpu();
    ASSERT_FALSE(host.llvmName.empty());
    ASSERT_FALSE(host.name.empty());
    expectKnown(host.name);
    if (host.llvmName == host.name) {
        EXPECT_TRUE(host.reason.empty()) << host.reason;
        EXPECT_NE(host.name, "generic") << "every machine so far is one LLVM 16 or its nearest "
                                           "model describes";
    } else {
        EXPECT_EQ(host.llvmName, "generic");
        EXPECT_NE(host.reason.find("the nearest model it knows"), std::string::npos) << host.reason;
    }
    const HostTarget t = hostTarget();
    EXPECT_EQ(t.cpu, host.name);
    EXPECT_EQ(t.llvmCpu, host.llvmName);
}

} // namespace
