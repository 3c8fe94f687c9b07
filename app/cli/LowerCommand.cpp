#include "Cli.h"
#include "Commands.h"

#include "ir/Host.h"
#include "ir/Printer.h"
#include "lower/Footprint.h"
#include "lower/Lower.h"
#include "lower/Tails.h"
#include "runtime/VariantRun.h"

#include <iostream>

namespace loopscope::cli {

namespace {

struct LowerOptions : Options {
    bool structured = false; // --structured
    bool footprint = false;  // --footprint
    bool tails = false;      // --tails
};

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
        std::string tir =
            o.structured ? printStructured(f.structured, f.args) : printTVMScript(f.func);
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
               {"--footprint", "", false, [&](const std::string&) { o.footprint = true; }},
               {"--tails", "", false, [&](const std::string&) { o.tails = true; }}}}));
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
            lowerSchedule(v.schedule(), v.args, v.funcName);
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
