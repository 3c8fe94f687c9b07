#include "Cli.h"
#include "Commands.h"

#include "codegen/Nvptx.h"
#include "ir/GpuTarget.h"
#include "ir/Host.h"
#include "ir/Printer.h"
#include "lower/Footprint.h"
#include "lower/Lower.h"
#include "lower/Tails.h"
#include "lower/gpu/GpuAccess.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "lower/gpu/ThreadSync.h"
#include "runtime/VariantRun.h"

#include <iostream>
#include <map>
#include <sstream>

namespace loopscope::cli {

namespace {

struct LowerOptions : Options {
    bool structured = false; // --structured
    bool compiled = false;   // --compiled: a TensorIR variant after TVM's lowering passes
    bool trace = false;      // --trace: a TensorIR variant's steps as sch.trace.show() prints them
    bool footprint = false;  // --footprint
    bool tails = false;      // --tails
    bool access = false;     // --access
    std::string target;      // --target, for --access
};

// --access: a GPU variant's kernels (threads, shared memory, registers, occupancy for the
// target's architecture) and each of their memory accesses, at its line of the TIR.
struct AccessReport {
    json kernels = json::array();
    std::string text;
};

AccessReport accessReport(const LoweredFunc& f, const Variant& v, const std::string& targetOverride)
{
    AccessReport out;
    const std::string target = !targetOverride.empty() ? targetOverride
                               : isGpuTarget(v.target) ? v.target
                                                       : std::string("cuda");
    std::string why;
    const std::optional<GpuTarget> gpu = parseGpuTarget(target, &why);
    if (!gpu) throw CodegenError("target '" + target + "': " + why);
    const int sm = gpu->sm ? gpu->sm : 50;
    const std::vector<GpuKernelShape> shapes = analyzeGpuKernels(f.func.body);
    PrimFunc device = f.func;
    device.body = lowerForDevice(device.body, false);
    const PtxModule ptx = generatePtx(device, *gpu);
    const PrintedFunction printed = printTVMScriptWithLines(f.func);
    auto lineOf = [&](const StmtNode* stmt) {
        for (std::size_t l = 0; l < printed.lineStatements.size(); ++l)
            for (const StmtNode* s : printed.lineStatements[l])
                if (s == stmt) return static_cast<int>(l) + 1;
        return 0;
    };
    std::map<int, std::vector<std::string>> notes; // line -> what its accesses do
    std::string header;
    for (std::size_t k = 0; k < shapes.size() && k < ptx.kernels.size(); ++k) {
        const GpuKernelShape& shape = shapes[k];
        const GpuKernel& kernel = ptx.kernels[k];
        // The registers ptxas allocates are known only from the driver (the runner reports
        // them): the PTX's virtual ones are no measure of them, so they do not limit here.
        const GpuOccupancy occ = gpuOccupancy(sm, shape.threadsPerBlock, shape.sharedBytes, 0);
        json accesses = json::array();
        for (const GpuAccess& a : shape.accesses) {
            const int line = lineOf(a.stmt);
            const std::string text = describeGpuAccess(a);
            notes[line].push_back(text);
            json j = {{"line", line},
                      {"buffer", a.buffer},
                      {"scope", a.scope},
                      {"kind", a.store ? "store" : "load"},
                      {"element_bytes", a.elementBytes},
                      {"lanes", a.lanes},
                      {"known", a.known},
                      {"text", text}};
            if (a.strideX) j["stride_x"] = *a.strideX;
            if (a.known && a.scope == "global") {
                j["bytes_used"] = a.bytesUsed;
                j["bytes_fetched"] = a.bytesFetched;
            }
            if (a.known && a.scope == "shared") j["bank_ways"] = a.bankWays;
            accesses.push_back(j);
        }
        out.kernels.push_back({{"name", kernel.name},
                               {"threads_per_block", shape.threadsPerBlock},
                               {"shared_bytes", shape.sharedBytes},
                               {"ptx_registers", kernel.ptxRegisters},
                               {"arch", "sm_" + std::to_string(sm)},
                               {"occupancy",
                                {{"blocks_per_sm", occ.blocksPerSm},
                                 {"warps_per_sm", occ.warpsPerSm},
                                 {"max_warps_per_sm", occ.maxWarpsPerSm},
                                 {"share", occ.occupancy},
                                 {"limited_by", occ.limitedBy}}},
                               {"accesses", accesses}});
        header += "# kernel " + kernel.name + ": " + std::to_string(shape.threadsPerBlock) +
                  " threads per block, " + std::to_string(shape.sharedBytes) +
                  " bytes of shared memory; on sm_" + std::to_string(sm) + " " +
                  std::to_string(occ.blocksPerSm) + " blocks per SM, " +
                  std::to_string(occ.warpsPerSm) + " of " + std::to_string(occ.maxWarpsPerSm) +
                  " warps (" + std::to_string(static_cast<int>(occ.occupancy * 100 + 0.5)) +
                  " %), limited by " + occ.limitedBy +
                  " (registers, which ptxas sets on the GPU, " +
                  "may limit it further; the PTX declares " + std::to_string(kernel.ptxRegisters) +
                  " virtual ones)\n";
    }
    std::istringstream in(printed.text);
    std::string text = header, line;
    for (int n = 1; std::getline(in, line); ++n) {
        text += line;
        auto it = notes.find(n);
        if (it != notes.end()) {
            text += "  #";
            for (std::size_t i = 0; i < it->second.size(); ++i)
                text += (i ? "; " : " ") + it->second[i];
        }
        text += "\n";
    }
    out.text = text;
    return out;
}

json stepsJson(const Variant& v)
{
    json steps = json::array();
    for (auto& s : v.steps)
        steps.push_back({{"primitive", s.primitive},
                         {"stage", s.stage},
                         {"line", s.loc.line},
                         {"text", s.text}});
    return steps;
}

int lower(LowerOptions& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return documentError(o, err);
    json variants = json::array();
    std::string text;
    auto selected = selectVariants(o, r.program);
    for (const Variant* v : selected) {
        LoweredFunc f;
        try {
            f = lowerSchedule(v->schedule(), v->args, v->funcName);
        } catch (const UserError& e) {
            return documentError(o, e.diagnostic());
        }
        noteThreadBindings(o, *v);
        warnLowering(o, f);
        // A TensorIR variant prints as `sch.mod.show()` does, its blocks kept.
        const TirFunc* tensorIR = v->schedule().tensorIR();
        std::string tir = o.trace && tensorIR       ? traceText(*v)
                          : o.structured            ? printStructured(f.structured, f.args)
                          : tensorIR && !o.compiled ? printTensorIR(*tensorIR, tensorIR->spelling)
                                                    : printTVMScript(f.func);
        if (o.footprint) {
            const auto loops = loopFootprints(f);
            const HostCaches& host = hostCacheInfo();
            const auto& caches = host.levels;
            const auto outgrown = outgrownLevels(loops, caches);
            if (o.json) {
                json ls = json::array();
                for (std::size_t i = 0; i < loops.size(); ++i) {
                    const LoopFootprint& l = loops[i];
                    json ts = json::array();
                    for (auto& t : l.tensors)
                        ts.push_back({{"tensor", t.tensor},
                                      {"per_iteration_bytes", t.perIteration},
                                      {"whole_loop_bytes", t.wholeLoop}});
                    json levels = json::array();
                    for (auto& c : outgrown[i])
                        levels.push_back(c.name);
                    ls.push_back({{"loop", l.var},
                                  {"depth", l.depth},
                                  {"extent", l.extent},
                                  {"line", l.line},
                                  {"structured_line", l.structuredLine},
                                  {"per_iteration_bytes", l.perIteration},
                                  {"whole_loop_bytes", l.wholeLoop},
                                  {"exact", l.exact},
                                  {"outgrows", levels},
                                  {"tensors", ts}});
                }
                json cs = json::array();
                for (auto& c : caches)
                    cs.push_back({{"name", c.name}, {"bytes", c.bytes}});
                variants.push_back({{"name", v->name},
                                    {"caches", cs},
                                    {"caches_source", host.source},
                                    {"loops", ls}});
                continue;
            }
            std::ostringstream t;
            if (selected.size() > 1) t << "# variant: " << v->name << "\n";
            t << "bytes touched per loop (host caches: " << describeHostCaches(host) << ")\n";
            t << pad("loop", 28) << pad("extent", 8, true) << pad("one iteration", 16, true)
              << pad("whole loop", 14, true) << "  tensors (whole loop)\n";
            for (std::size_t i = 0; i < loops.size(); ++i) {
                const LoopFootprint& l = loops[i];
                std::string name = std::string(static_cast<std::size_t>(2 * l.depth), ' ') + l.var;
                std::string tensors;
                for (auto& x : l.tensors)
                    tensors +=
                        (tensors.empty() ? "" : ", ") + x.tensor + " " + byteSize(x.wholeLoop);
                t << pad(name, 28) << pad(std::to_string(l.extent), 8, true)
                  << pad(byteSize(l.perIteration), 16, true) << pad(byteSize(l.wholeLoop), 14, true)
                  << "  " << tensors;
                for (auto& c : outgrown[i])
                    t << "  <- outgrows " << c.name;
                if (!l.exact) t << "  (a bound)";
                t << "\n";
            }
            text += t.str();
            if (selected.size() > 1) text += "\n";
            continue;
        }
        if (o.access) {
            if (!launchesThreads(f.func.body)) {
                throw UsageError("--access is for GPU schedules: variant '" + v->name +
                                     "' binds no loop to a GPU thread",
                                 false);
            }
            AccessReport report;
            try {
                report = accessReport(f, *v, o.target);
            } catch (const CodegenError& e) {
                return documentError(o, Diagnostic{v->loc, e.what()});
            }
            if (o.json) {
                variants.push_back({{"name", v->name}, {"kernels", report.kernels}});
                continue;
            }
            text += (selected.size() > 1 ? "# variant: " + v->name + "\n" : "") + report.text;
            if (selected.size() > 1) text += "\n";
            continue;
        }
        if (o.tails) {
            const TailReport tr = guardedTails(f);
            if (o.json) {
                json ts = json::array();
                for (const GuardedTail& t : tr.tails)
                    ts.push_back({{"loop", t.loop},
                                  {"loop_line", t.loopLine},
                                  {"guard_lines", t.lines},
                                  {"loops", t.loops},
                                  {"iterations", t.iterations},
                                  {"in_tail", t.inTail},
                                  {"guarded_off", t.guardedOff}});
                variants.push_back({{"name", v->name},
                                    {"tails", ts},
                                    {"tail_share", tr.tailShare},
                                    {"guarded_off_share", tr.offShare},
                                    {"uncounted_guards", tr.uncounted}});
                continue;
            }
            std::ostringstream t;
            t.setf(std::ios::fixed);
            t.precision(1);
            t << (selected.size() > 1 ? "# variant: " + v->name + "\n" : "");
            if (tr.tails.empty()) t << "no partial tiles: every split divides its loop\n";
            for (const GuardedTail& g : tr.tails) {
                t << describeTail(g);
                if (!g.lines.empty()) t << "  (guard on line " << g.lines.front() << ")";
                t << "\n";
            }
            if (!tr.tails.empty())
                t << 100 * tr.tailShare << " % of the stores' iterations run in a partial tile, "
                  << 100 * tr.offShare << " % are guarded off\n";
            if (tr.uncounted > 0) t << tr.uncounted << " guard(s) too large to count\n";
            text += t.str();
            if (selected.size() > 1) text += "\n";
            continue;
        }
        if (o.json) {
            variants.push_back(
                {{"name", v->name}, {"line", v->loc.line}, {"steps", stepsJson(*v)}, {"tir", tir}});
        } else {
            if (selected.size() > 1) text += "# variant: " + v->name + "\n";
            text += tir;
            if (!tir.empty() && tir.back() != '\n') text += "\n";
            if (selected.size() > 1) text += "\n";
        }
    }
    if (o.json)
        std::cout << json{{"ok", true}, {"file", o.file}, {"variants", variants}}.dump(2) << "\n";
    else
        std::cout << text;
    return kOk;
}

} // namespace

int commandLower(int argc, char** argv)
{
    LowerOptions o;
    parseCommand(
        argc, argv, o,
        join({scriptOptions(o),
              {jsonOption(o),
               {"--structured", "", false, [&](const std::string&) { o.structured = true; }},
               {"--compiled", "", false, [&](const std::string&) { o.compiled = true; }},
               {"--trace", "", false, [&](const std::string&) { o.trace = true; }},
               {"--footprint", "", false, [&](const std::string&) { o.footprint = true; }},
               {"--tails", "", false, [&](const std::string&) { o.tails = true; }},
               {"--access", "", false, [&](const std::string&) { o.access = true; }},
               {"--target", "", true, [&](const std::string& v) {
                    std::string why;
                    if (!isGpuTarget(v) || !parseGpuTarget(v, &why))
                        throw UsageError("--target '" + v + "': " +
                                             (why.empty() ? "lower takes a GPU target (\"cuda "
                                                            "-arch=sm_80\"), for --access"
                                                          : why),
                                         false);
                    o.target = v;
                }}}}));
    return lower(o);
}

int commandCheck(int argc, char** argv)
{
    Options o;
    parseCommand(argc, argv, o, join({scriptOptions(o), {jsonOption(o)}}));
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return documentError(o, err);
    json variants = json::array();
    for (auto& v : r.program.variants) {
        try {
            warnLowering(o, lowerSchedule(v.schedule(), v.args, v.funcName));
        } catch (const UserError& e) {
            return documentError(o, e.diagnostic());
        }
        noteThreadBindings(o, v);
        variants.push_back({{"name", v.name}, {"line", v.loc.line}, {"steps", v.steps.size()}});
    }
    if (o.json) {
        json params = json::array();
        for (auto& p : r.program.parameters)
            params.push_back({{"name", p.name}, {"value", p.value}, {"line", p.loc.line}});
        std::cout << json{{"ok", true},
                          {"file", o.file},
                          {"parameters", params},
                          {"variants", variants}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << o.file << ": ok, " << r.program.variants.size() << " variant"
                  << (r.program.variants.size() == 1 ? "" : "s");
        for (auto& v : r.program.variants)
            std::cout << (&v == &r.program.variants.front() ? ": " : ", ") << v.name;
        std::cout << "\n";
    }
    return kOk;
}

} // namespace loopscope::cli
