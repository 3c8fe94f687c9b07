#include "graph/Task.h"

#include "codegen/Codegen.h"
#include "graph/Operators.h"
#include "ir/Diagnostic.h"
#include "runtime/FlopCount.h"
#include "te/Program.h"
#include "tune/Space.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace loopscope {

std::string scriptVariable(const std::string& tensorName)
{
    std::string out;
    for (char c : tensorName)
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t_" + out;
    return out;
}

std::map<std::string, std::string> taskPlaceholders(const Task& task)
{
    ScriptWriter w;
    std::map<std::string, std::string> out;
    for (const std::string& in : task.inputs)
        out[in] = w.fresh(scriptVariable(in));
    return out;
}

namespace {

// Deterministic knob values that run well without tuning: inner tiles of whole vectors on the
// contiguous axis and a register tile of several rows on the axes outside it (the axis next to
// the vector one the most: its rows share the vector's loads), the reduction in chunks of up to
// 16, the outer tiles parallel, producers at the root, moderate unrolling.
Knobs defaultKnobs(const Sketch& sk, const SpaceOptions& o)
{
    Knobs k(static_cast<std::size_t>(sk.knobCount), 0);
    auto largestDivisorAtMost = [](std::int64_t n, std::int64_t limit) {
        std::int64_t best = 1;
        for (std::int64_t d : divisors(n))
            if (d <= limit) best = d;
        return best;
    };
    // The rows each stage's non-vector data-parallel axes may have in the register tile: about
    // half the vector registers as accumulators (32 with AVX-512, 16 with AVX2).
    std::map<int, std::int64_t> rowLimit; // knob index -> rows
    for (const StagePlan& pl : sk.plans) {
        std::vector<int> rows;
        bool vector = false;
        for (int t : pl.spatialTiles) {
            if (t < 0) continue;
            if (sk.knobs[static_cast<std::size_t>(t)].vectorAxis)
                vector = true;
            else
                rows.push_back(t);
        }
        const std::int64_t first = !vector ? 4 : o.vectorLanes >= 16 ? 8 : 4;
        std::int64_t limit = first;
        for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
            rowLimit[*it] = limit;
            limit = limit == first ? 2 : 1;
        }
    }
    for (std::size_t ki = 0; ki < sk.knobs.size(); ++ki) {
        const KnobSpec& spec = sk.knobs[ki];
        auto at = [&](int e) -> std::int64_t& {
            return k[static_cast<std::size_t>(spec.offset + e)];
        };
        if (spec.kind == KnobSpec::Kind::Tile) {
            std::int64_t rest = spec.extent;
            if (spec.levels == 2) { // a reduction: one inner chunk
                at(0) = largestDivisorAtMost(rest, 16);
                continue;
            }
            // S S R S R S: the register tile (whole or half vectors on the contiguous axis, the
            // rows above on the others), a middle level for the caches, the outermost for the
            // cores.
            std::int64_t inner = 1;
            if (spec.vectorAxis) {
                for (std::int64_t d : divisors(rest))
                    if (d <= o.vectorLanes && (d % 8 == 0 || (inner % 8 != 0 && d > inner)))
                        inner = d;
            } else {
                const auto limit = rowLimit.find(static_cast<int>(ki));
                inner = largestDivisorAtMost(rest, limit != rowLimit.end() ? limit->second : 1);
            }
            rest /= inner;
            const std::int64_t middle = largestDivisorAtMost(rest, spec.vectorAxis ? 4 : 2);
            at(0) = 1;
            at(1) = middle;
            at(2) = inner;
            continue;
        }
        std::int64_t& v = at(0);
        const std::string& n = spec.name;
        auto ends = [&](const char* suffix) {
            const std::string s(suffix);
            return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
        };
        if (ends("unroll"))
            v = std::find(spec.values.begin(), spec.values.end(), 64) != spec.values.end()
                    ? 64
                    : spec.values.front();
        else if (ends("vectorize") && spec.values.size() == 2 && spec.values[0] == 1)
            v = 1;
        else if (ends("vectorize")) { // a width: whole vectors if the axis allows
            v = 0;
            for (auto w : spec.values)
                if (w > 0 && w <= o.vectorLanes) v = std::max(v, w);
        } else if (ends("parallel"))
            v = spec.values.size() > 1 && spec.values[0] == 0 ? spec.values[1]
                                                              : spec.values.front();
        else if (ends("location"))
            v = 0; // root
        else if (ends("tile rows") || ends("tile columns"))
            v = 0;
        else if (ends("rfactor part"))
            v = 1;
        else
            v = spec.values[spec.values.size() / 2];
    }
    return k;
}

// The sketch a default uses: the stage tiled inside its element-wise consumer at level 2 where
// there is one, else in a local cache at level 2, else plainly; no rfactor.
int defaultSketch(const std::vector<Sketch>& sketches)
{
    int best = 0, bestRank = -1;
    for (std::size_t i = 0; i < sketches.size(); ++i) {
        const std::string& n = sketches[i].name;
        if (n.find("rfactor") != std::string::npos) continue;
        int rank = 0;
        if (n.find("at level 2") != std::string::npos) rank = 2;
        if (n.find("inside") != std::string::npos && n.find("level 2") != std::string::npos)
            rank = 3;
        if (rank > bestRank) {
            bestRank = rank;
            best = static_cast<int>(i);
        }
    }
    return best;
}

} // namespace

std::vector<std::string> defaultSchedule(const std::string& declarations,
                                         const std::string& outputVar)
{
    const std::string probe =
        declarations + "# variant: default\ns = te.create_schedule(" + outputVar + ".op)\n";
    EvalResult eval = evaluateScript(probe);
    if (!eval.ok || eval.program.variants.empty()) return {};
    const Variant& v = eval.program.variants.front();
    SpaceOptions o;
    o.vectorLanes = std::max(4, hostTarget().vectorBits / 32);
    o.cores = 2;
    auto sketches = generateSketches(v, o, nullptr);
    if (sketches.empty()) return {};
    const Sketch& sk = sketches[static_cast<std::size_t>(defaultSketch(sketches))];
    Realized r = realize(v, sk, defaultKnobs(sk, o), o, true);
    return r.ok ? r.statements : std::vector<std::string>{};
}

std::string taskScript(const Graph& graph, const Task& task)
{
    std::ostringstream out;
    out << "# Task " << task.name << " of model " << (graph.name.empty() ? "(unnamed)" : graph.name)
        << ": ";
    for (std::size_t i = 0; i < task.nodes.size(); ++i)
        out << (i ? " -> " : "") << graph.nodes[static_cast<std::size_t>(task.nodes[i])].op;
    out << "\n# Written by Loopscope from the model; the schedule below is the default one.\n";
    out << "import tvm\nfrom tvm import te\n\n";
    ScriptWriter w;
    std::map<std::string, std::string> vars;
    for (const std::string& in : task.inputs) {
        const GraphTensor& t = graph.tensor(in);
        const std::string v = w.fresh(scriptVariable(in));
        vars[in] = v;
        w.line(v + " = te.placeholder(" + ScriptWriter::shapeText(t.shape) + ", name=\"" + v +
               "\", dtype=\"" + t.dtype.str() + "\")");
    }
    for (int index : task.nodes) {
        const GraphNode& node = graph.nodes[static_cast<std::size_t>(index)];
        const OpSpec* spec = findOperator(node.op);
        LS_ASSERT(spec, "task with an unsupported operator " << node.op);
        std::vector<std::string> in, outs;
        for (auto& i : node.inputs) {
            if (i.empty()) {
                in.push_back("");
                continue;
            }
            auto it = vars.find(i);
            in.push_back(it != vars.end() ? it->second : std::string());
        }
        for (auto& o : node.outputs) {
            // Of a node with several outputs (Split), a task computes one.
            if (o.empty() || (node.outputs.size() > 1 && o != task.output)) {
                outs.push_back("");
                continue;
            }
            outs.push_back(w.fresh(scriptVariable(o)));
            vars[o] = outs.back();
        }
        spec->emit(OpContext(graph, node), w, in, outs);
    }
    // Placeholders the computes never read (a scalar written as a literal, Gemm's C with beta
    // 0) are left out: a schedule's arguments are tensors it computes with.
    std::string body;
    std::vector<std::string> unread;
    for (auto& in : task.inputs) {
        const std::string& v = vars.at(in);
        bool read = false;
        for (std::size_t l = task.inputs.size(); l < w.lines().size() && !read; ++l) {
            const std::string& text = w.lines()[l];
            for (std::size_t at = text.find(v); at != std::string::npos;
                 at = text.find(v, at + 1)) {
                auto word = [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                };
                const bool before = at > 0 && word(text[at - 1]);
                const bool after = at + v.size() < text.size() && word(text[at + v.size()]);
                if (!before && !after) {
                    read = true;
                    break;
                }
            }
        }
        if (!read) unread.push_back(v);
    }
    std::string decl;
    for (std::size_t l = 0; l < w.lines().size(); ++l) {
        const bool drop =
            l < task.inputs.size() &&
            std::find(unread.begin(), unread.end(), vars.at(task.inputs[l])) != unread.end();
        if (!drop) decl += w.lines()[l] + "\n";
    }
    const std::string outVar = vars.at(task.output);
    out << decl << "\n# variant: default\ns = te.create_schedule(" << outVar << ".op)\n";
    for (auto& stmt : defaultSchedule("import tvm\nfrom tvm import te\n" + decl, outVar))
        out << stmt << "\n";
    std::string args;
    for (auto& in : task.inputs)
        if (std::find(unread.begin(), unread.end(), vars.at(in)) == unread.end())
            args += vars.at(in) + ", ";
    const std::string build = "func = tvm.build(s, [" + args + outVar +
                              "], target=\"llvm\", name=\"" + task.name + "\")\n";
    out << build;
    // Where tuning starts from and a hand schedule begins: the declarations' own loops.
    out << "\n# variant: " << kNaiveTaskVariant << "\ns = te.create_schedule(" << outVar << ".op)\n"
        << build;
    return out.str();
}

double taskFlops(const std::string& script)
{
    EvalResult r = evaluateScript(script);
    if (!r.ok || r.program.variants.empty()) return 0;
    return flopCount(r.program.variants.front().snapshots.front().outputs());
}

} // namespace loopscope
