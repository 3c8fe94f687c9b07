#include "runtime/LocalRun.h"

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"
#include "ir/Limits.h"
#include "ir/Printer.h"
#include "lower/gpu/EmulateThreads.h"
#include "lower/gpu/SharedRaces.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "lower/gpu/ThreadSync.h"
#include "runtime/FlopCount.h"
#include "runtime/Reference.h"

#include <chrono>
#include <cstdio>
#include <cstring>

#include <unistd.h>

namespace loopscope {

std::int64_t physicalMemoryBytes()
{
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    return pages > 0 && pageSize > 0 ? static_cast<std::int64_t>(pages) * pageSize : 0;
}

namespace {

std::string gigabytes(long double bytes)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.1Lf GB", bytes / 1e9L);
    return text;
}

// Refuses, at the variant, buffers that need more memory than the machine has.
void checkFitsInMemory(long double bytes, const Variant& variant)
{
    const std::int64_t memory = physicalMemoryBytes();
    if (memory > 0 && bytes > static_cast<long double>(memory) * 0.9L) {
        throw UserError(variant.loc, "the buffers of variant '" + variant.name + "' need " +
                                         gigabytes(bytes) + "; this machine has " +
                                         gigabytes(static_cast<long double>(memory)));
    }
}

} // namespace

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::int64_t evalSize(const Expr& e, const SizeValues& symbols, const std::string& what)
{
    std::int64_t n;
    if (!evaluateSize(e, symbols, &n)) throw UserError({}, "the size of " + what + " is not known");
    if (n <= 0)
        throw UserError({}, what + " has " + std::to_string(n) + " elements along a dimension");
    return n;
}

// A race on shared memory, said at the line of the step that computes the raced buffer's stage
// where it is (its compute_at), else at the variant.
std::string raceNote(const Schedule& schedule, const Variant& variant, const SharedRace& race)
{
    SourceLoc at = variant.loc;
    for (const Stage& st : schedule.stages())
        if (scriptName(st.name()) == race.buffer && st.attachLoc.line > 0) at = st.attachLoc;
    return "line " + std::to_string(at.line) + ": " + describeSharedRace(race);
}

} // namespace

std::unique_ptr<PreparedRun> PreparedRun::prepare(const Program& program, const Variant& variant,
                                                  const RunConfig& config, int step)
{
    LS_ASSERT(step < static_cast<int>(variant.snapshots.size()), "no such step");
    const Schedule& schedule =
        step < 0 ? variant.schedule() : variant.snapshots[static_cast<std::size_t>(step)];
    std::unique_ptr<PreparedRun> r(new PreparedRun());
    r->m_variant = &variant;
    r->m_seed = config.seed;
    for (auto& sv : program.sizeVars) {
        auto it = config.symbols.find(sv.name);
        std::int64_t value = config.defaultSymbolValue;
        if (it != config.symbols.end()) {
            value = it->second;
        } else {
            r->m_notes.push_back("symbolic size " + sv.name + " = " + std::to_string(value) +
                                 " (no --set " + sv.name + "=V given)");
        }
        r->m_symbols[sv.var.get()] = value;
    }

    // A target that amounts to the host (say -mcpu=znver3 on a Zen 3 with all its features) runs
    // as it would be exported; anything else gets a note.
    bool otherMachine;
    try {
        otherMachine = !targetIsHost(variant.target);
    } catch (const CodegenError&) {
        otherMachine = true;
    }
    if (otherMachine)
        r->m_notes.push_back("target '" + variant.target +
                             "' applies to exported code; this run is compiled for the host CPU");

    // The arguments' buffers, sized before any work: more than the machine's memory is refused.
    std::vector<std::vector<std::int64_t>> shapes;
    long double bytes = 0;
    for (const Tensor& t : variant.args) {
        std::vector<std::int64_t> shape;
        long double elements = 1;
        for (auto& s : t->shape) {
            shape.push_back(evalSize(s, r->m_symbols, "tensor '" + t->name + "'"));
            elements *= static_cast<long double>(shape.back());
        }
        if (elements > static_cast<long double>(kMaxIndex)) {
            char count[64];
            std::snprintf(count, sizeof count, "%.0Lf", elements);
            throw UserError(variant.loc, "tensor '" + t->name + "' would have " + count +
                                             " elements with these sizes; tensors are indexed "
                                             "with 32-bit integers, so at most " +
                                             std::to_string(kMaxIndex) + " are supported");
        }
        bytes += elements * t->dtype.bytes();
        shapes.push_back(std::move(shape));
    }
    checkFitsInMemory(bytes, variant);

    auto t0 = std::chrono::steady_clock::now();
    r->m_lowered = lowerSchedule(schedule, variant.args, variant.funcName);
    r->m_lowerMs = msSince(t0);
    for (const Diagnostic& w : r->m_lowered.warnings)
        r->m_notes.push_back("line " + std::to_string(w.loc.line) + ": " + w.message);
    t0 = std::chrono::steady_clock::now();
    LS_ASSERT(config.jit, "a run needs a JIT to compile with (RunConfig::jit)");
    PrimFunc compiled = r->m_lowered.func;
    if (launchesThreads(compiled.body)) {
        // A GPU schedule is checked here: its kernels as CPU loops, with the barriers tvm.build
        // would put in, so that a missing or misplaced one gives a wrong result; reductions
        // across threads as their GPU code does them, each shuffle an exchange through shared
        // memory.
        const Stmt device = lowerForDevice(compiled.body, true);
        if (auto race = findSharedRace(device))
            r->m_notes.push_back(raceNote(schedule, variant, *race));
        compiled.body = emulateThreadsOnCpu(device);
        r->m_gpu = true;
    }
    r->m_kernel = config.jit->compile(compiled, config.optLevel, config.lineInfo);
    r->m_compileMs = msSince(t0);

    for (std::size_t i = 0; i < variant.args.size(); ++i) {
        const Tensor& t = variant.args[i];
        // Arguments 17 cache lines apart within their pages: the same in every run.
        HostBuffer b(t->dtype, shapes[i], i * 17 * HostBuffer::kAlignment);
        if (t->isPlaceholder()) b.fillRandom(r->inputSeed(i));
        r->m_buffers.push_back(std::move(b));
    }
    for (auto& b : r->m_buffers)
        r->m_pointers.push_back(b.data());
    for (auto& v : r->m_kernel->sizes()) {
        auto it = r->m_symbols.find(v.get());
        r->m_sizes.push_back(it == r->m_symbols.end() ? config.defaultSymbolValue : it->second);
    }
    r->m_flops = flopCount(variant.snapshots.front().outputs(), r->m_symbols);
    return r;
}

void PreparedRun::setContents(std::size_t arg, const std::string& bytes)
{
    HostBuffer& b = m_buffers.at(arg);
    LS_ASSERT(bytes.size() == static_cast<std::size_t>(b.byteSize()),
              "contents of " << bytes.size() << " bytes for a buffer of " << b.byteSize());
    std::memcpy(b.data(), bytes.data(), bytes.size());
}

void PreparedRun::run() const
{
    m_kernel->run(m_pointers.data(), m_sizes.data());
}

std::vector<OutputCheck> PreparedRun::check() const
{
    ReferenceEvaluator::Inputs inputs;
    for (std::size_t i = 0; i < m_variant->args.size(); ++i)
        if (m_variant->args[i]->isPlaceholder()) inputs[m_variant->args[i].get()] = &m_buffers[i];
    ReferenceEvaluator reference(inputs, m_symbols);
    std::vector<OutputCheck> out;
    const auto& outputs = m_variant->snapshots.front().outputs();
    for (std::size_t i = 0; i < m_variant->args.size(); ++i) {
        const Tensor& t = m_variant->args[i];
        if (t->isPlaceholder()) continue;
        bool isOutput = std::find(outputs.begin(), outputs.end(), t) != outputs.end();
        if (!isOutput) continue;
        Tolerance tol = defaultTolerance(t->dtype);
        out.push_back(
            {t->name, checkOutput(reference, t, m_buffers[i], tol.rtol, tol.atol, m_seed)});
    }
    return out;
}

Measurement PreparedRun::benchmark(const BenchmarkOptions& options,
                                   const std::function<bool()>& cancelled) const
{
    return measure([this] { run(); }, options, cancelled);
}

} // namespace loopscope
