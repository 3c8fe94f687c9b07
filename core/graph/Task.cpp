#include "graph/Task.h"

#include "codegen/Codegen.h"
#include "graph/Operators.h"
#include "graph/Winograd.h"
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
    // The task's computes; again with the Winograd computation of its convolutions where they
    // have one (the default then runs it, and `direct` the direct one).
    const int winogradTile = winogradTileOf(graph, task);
    const bool winograd = winogradTile > 0;
    auto emitAll = [&] {
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
    };
    emitAll();
    const std::string directVar = vars.at(task.output);
    const std::size_t secondPass = w.lines().size();
    if (winograd) {
        w.line("");
        w.line("# The same output by Winograd's minimal filtering F(" +
               std::to_string(winogradTile) + "x" + std::to_string(winogradTile) +
               ", 3x3): transformed input tiles times the transformed weights, transformed back");
        w.winograd = true;
        emitAll();
    }
    // Placeholders the computes never read (a scalar written as a literal, Gemm's C with beta
    // 0) are left out: a schedule's arguments are tensors it computes with.
    // Whether a placeholder's variable is read by the lines [from, to).
    auto readIn = [&](const std::string& v, std::size_t from, std::size_t to) {
        for (std::size_t l = from; l < to; ++l) {
            const std::string& text = w.lines()[l];
            for (std::size_t at = text.find(v); at != std::string::npos;
                 at = text.find(v, at + 1)) {
                auto word = [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                };
                const bool before = at > 0 && word(text[at - 1]);
                const bool after = at + v.size() < text.size() && word(text[at + v.size()]);
                if (!before && !after) return true;
            }
        }
        return false;
    };
    std::vector<std::string> unread;
    for (auto& in : task.inputs)
        if (!readIn(vars.at(in), task.inputs.size(), w.lines().size()))
            unread.push_back(vars.at(in));
    std::string decl;
    for (std::size_t l = 0; l < w.lines().size(); ++l) {
        const bool drop =
            l < task.inputs.size() &&
            std::find(unread.begin(), unread.end(), vars.at(task.inputs[l])) != unread.end();
        if (!drop) decl += w.lines()[l] + "\n";
    }
    const std::string outVar = vars.at(task.output); // Winograd's where there is one
    const std::string declarations = "import tvm\nfrom tvm import te\n" + decl;
    // The arguments of each computation: the placeholders it reads, then its output.
    auto argsOf = [&](std::size_t from, std::size_t to) {
        std::string args;
        for (auto& in : task.inputs)
            if (readIn(vars.at(in), from, to)) args += vars.at(in) + ", ";
        return args;
    };
    const std::string directArgs = argsOf(task.inputs.size(), secondPass);
    const std::string winogradArgs = argsOf(secondPass, w.lines().size());
    auto variant = [&](const std::string& name, const std::string& output, bool scheduled) {
        const std::string& args = output == directVar ? directArgs : winogradArgs;
        out << "\n# variant: " << name << "\ns = te.create_schedule(" << output << ".op)\n";
        if (scheduled)
            for (auto& stmt : defaultSchedule(declarations, output, machine))
                out << stmt << "\n";
        out << "func = tvm.build(s, [" << args << output << "], target=\"llvm\", name=\""
            << task.name << "\")\n";
    };
    out << decl;
    variant(kDefaultTaskVariant, outVar, true);
    // Where tuning starts from and a hand schedule begins: the declarations' own loops.
    variant(kNaiveTaskVariant, outVar, false);
    if (winograd) variant(kDirectTaskVariant, directVar, true);
    return out.str();
}

int winogradTileOf(const Graph& graph, const Task& task)
{
    for (int index : task.nodes)
        if (auto m = graph.nodes[static_cast<std::size_t>(index)].intAttr(kWinogradTile, 0))
            return static_cast<int>(m);
    return 0;
}

double taskFlops(const std::string& script)
{
    EvalResult r = evaluateScript(script);
    if (!r.ok || r.program.variants.empty()) return 0;
    return flopCount(r.program.variants.front().snapshots.front().outputs());
}

std::string taskArithmetic(const Graph& graph, const Task& task)
{
    std::vector<std::string> parts;
    std::string from, to;
    bool integer = false;
    auto type = [&](const std::string& t) { return graph.tensor(t).dtype.str(); };
    auto add = [&](const std::string& part) {
        if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
    };
    for (int i : task.nodes) {
        const GraphNode& n = graph.nodes[static_cast<std::size_t>(i)];
        const bool qlinear = n.op == "QLinearConv" || n.op == "QLinearMatMul" || n.op == "QGemm";
        if (qlinear || n.op == "ConvInteger" || n.op == "MatMulInteger") {
            integer = true;
            add(type(n.inputs[0]) + " x " + type(n.inputs[qlinear ? 3 : 1]) + " -> int32 sums");
            if (qlinear) add("float32 requantization to " + type(n.outputs[0]));
        } else if (n.op == "QLinearAdd") {
            integer = true;
            add(type(n.inputs[0]) + " + " + type(n.inputs[3]) + " requantized to " +
                type(n.outputs[0]));
        } else if (n.op == "DequantizeLinear") {
            from = type(n.inputs[0]);
            if (integer) add("dequantized to float32");
        } else if (n.op == "QuantizeLinear") {
            to = type(n.outputs[0]);
        } else {
            if (integer) add("then float32");
        }
    }
    if (integer) {
        std::string text;
        for (auto& p : parts)
            text += (text.empty() ? "" : "; ") + p;
        return text;
    }
    std::string text = "float32";
    if (!from.empty()) text += " from " + from;
    if (!to.empty()) text += ", to " + to;
    return text;
}

} // namespace loopscope
