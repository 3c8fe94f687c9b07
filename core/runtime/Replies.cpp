#include "runtime/Replies.h"

#include "codegen/Codegen.h"
#include "ir/Host.h"

namespace loopscope {

protocol::Machine thisMachine()
{
    const HostTarget host = hostTarget();
    protocol::Machine m;
    m.cpu = host.cpu;
    m.cpuName = hostCpuIdentity().brand;
    m.host = hostName();
    m.features = host.features;
    m.vectorBits = host.vectorBits;
    m.threads = usableCores();
    m.llvm = host.llvmVersion;
    return m;
}

protocol::MeasureReply measureReplyOf(const VariantRunOutcome& out)
{
    protocol::MeasureReply r;
    r.status =
        out.wrong ? protocol::MeasureReply::Status::Wrong : protocol::MeasureReply::Status::Ok;
    r.lowerMs = out.lowerMs;
    r.compileMs = out.compileMs;
    r.flops = out.flops;
    r.runMs = out.runMs;
    r.checked = out.checked();
    r.tooSlow = out.tooSlow;
    r.notes = out.notes;
    r.checkRan = out.checkRan;
    for (auto& c : out.checks)
        r.checks.push_back({c.tensor, c.result.ok, c.result.checked, c.result.maxAbsError,
                            c.result.maxRelError, c.result.firstMismatch, c.result.error,
                            c.result.skipped});
    if (out.timing) {
        protocol::Timing t;
        t.msMedian = out.timing->median;
        t.msMin = out.timing->min;
        t.msMax = out.timing->max;
        t.number = out.timing->number;
        t.repeat = static_cast<int>(out.timing->msPerRun.size());
        t.gflops = out.gflops();
        t.reference = out.reference;
        t.referenceMs = out.referenceMs;
        t.copyGbs = out.copyGbs;
        t.kernelGbs = out.kernelGbs;
        r.timing = t;
    }
    if (out.wrong) {
        r.firstMismatch = out.firstProblem();
        r.maxAbsError = out.maxAbsError();
    }
    return r;
}

protocol::StepProfile stepProfileOf(const LineProfile& profile, const KernelLines* lines,
                                    const HardwareCounts& counts, double profileMs)
{
    protocol::StepProfile p;
    p.tir = profile.tir;
    p.method = profile.method;
    p.threads = profile.threads;
    p.runs = profile.runs;
    p.seconds = profile.seconds;
    p.samples = profile.samples;
    p.inKernel = profile.inKernel;
    p.lost = profile.lost;
    p.profileMs = profileMs;
    for (std::size_t i = 0; i < profile.lineSamples.size(); ++i) {
        const int line = static_cast<int>(i + 1);
        p.lineShare.push_back(profile.lineShare(line));
        p.loopShare.push_back(profile.isLoop[i] ? profile.loopShare(line) : -1.0);
    }
    // The kernel's instructions as the JIT loaded them, each with its line and samples.
    if (lines)
        for (std::size_t i = 0; i < lines->instructionOffsets.size(); ++i) {
            const std::uint32_t off = lines->instructionOffsets[i];
            p.instructions.push_back(
                {off, lines->instructionText[i], lines->lineAt(lines->codeStart + off),
                 i < profile.instructionSamples.size() ? profile.instructionSamples[i] : 0});
        }
    p.counters = counts.available;
    if (counts.available) {
        p.cycles = static_cast<std::int64_t>(counts.cycles);
        p.instructionsRetired = static_cast<std::int64_t>(counts.instructions);
        p.ipc = counts.ipc();
        if (counts.haveL1d) p.l1dMisses = static_cast<std::int64_t>(counts.l1dMisses);
        if (counts.haveLlc) p.llcMisses = static_cast<std::int64_t>(counts.llcMisses);
    } else {
        p.countersUnavailable = counts.why;
    }
    return p;
}

} // namespace loopscope
