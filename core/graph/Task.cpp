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

SpaceOptions hostScheduleOptions()
{
    SpaceOptions o;
    o.vectorLanes = std::max(4, hostTarget().vectorBits / 32);
    o.vectorRegisters = vectorRegistersFor(hostTarget().vectorBits);
    o.cores = 2;
    return o;
}

std::vector<std::string> defaultSchedule(const std::string& declarations,
                                         const std::string& outputVar, const SpaceOptions& o)
{
    const std::string probe =
        declarations + "# variant: default\ns = te.create_schedule(" + outputVar + ".op)\n";
    EvalResult eval = evaluateScript(probe);
    if (!eval.ok || eval.program.variants.empty()) return {};
    const Variant& v = eval.program.variants.front();
    auto sketches = generateSketches(v, o, nullptr);
    if (sketches.empty()) return {};
    const Sketch& sk = sketches[static_cast<std::size_t>(defaultSketch(sketches))];
    Realized r = realize(v, sk, defaultKnobs(sk, o), o, true);
    return r.ok ? r.statements : std::vector<std::string>{};
}

std::string taskScript(const Graph& graph, const Task& task)
{
    return taskScript(graph, task, hostScheduleOptions());
}

std::string taskScript(const Graph& graph, const Task& task, const SpaceOptions& machine)
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
    for (auto& stmt : defaultSchedule("import tvm\nfrom tvm import te\n" + decl, outVar, machine))
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
