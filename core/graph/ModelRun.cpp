#include "graph/ModelRun.h"

#include "codegen/Codegen.h"
#include "graph/Operators.h"
#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "runtime/RuntimeJit.h"
#include "te/Program.h"

#include <chrono>
#include <cstring>

namespace loopscope {

namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

CompiledModel::~CompiledModel() = default;

std::unique_ptr<CompiledModel>
CompiledModel::compile(const Graph& graph, const ModelOptions& options, std::string* error)
{
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<CompiledModel> m(new CompiledModel());
    m->m_graph = graph;
    const Graph& g = m->m_graph;
    try {
        m->m_jit = createRuntimeJit();
    } catch (const CodegenError& e) {
        *error = e.what();
        return nullptr;
    }
    std::vector<Task> tasks = fuseOps(g, options.fusion);
    // Buffers: one per tensor that owns storage (inputs, constants, task outputs).
    for (auto& [name, t] : g.tensors()) {
        if (viewSource(g, name) != name) continue;
        if (!HostBuffer::supports(t.dtype)) {
            *error = "tensor '" + name + "' is " + t.dtype.str() + ", which a run cannot hold";
            return nullptr;
        }
        HostBuffer b(t.dtype, t.shape);
        if (t.constant)
            std::memcpy(b.data(), t.constant->data(), static_cast<std::size_t>(b.byteSize()));
        m->m_buffers.emplace(name, std::move(b));
    }
    m->m_planMs = msSince(t0);
    // The tasks' scripts (one per workload), each compiled once.
    std::map<std::string, std::pair<std::string, std::string>>
        byWorkload; // workload -> script, source
    for (Task& task : tasks) {
        // An empty tensor (a slice past the end) has nothing to compute.
        if (g.tensor(task.output).elementCount() == 0) continue;
        auto c0 = std::chrono::steady_clock::now();
        CompiledTask ct;
        auto script = options.scripts.find(task.workload);
        ct.source = script != options.scripts.end() ? "project file" : "default";
        try {
            ct.script = script != options.scripts.end() ? script->second : taskScript(g, task);
        } catch (const GraphError& e) {
            *error = "task " + task.name + ": " + e.what();
            return nullptr;
        }
        auto variant = options.variants.find(task.workload);
        ct.variant = variant != options.variants.end() ? variant->second : "default";
        EvalResult eval = evaluateScript(ct.script);
        if (!eval.ok) {
            *error = "task " + task.name + ": line " + std::to_string(eval.error.loc.line) + ": " +
                     eval.error.message;
            return nullptr;
        }
        const Variant* v = eval.program.findVariant(ct.variant);
        if (!v) {
            *error = "task " + task.name + " has no variant '" + ct.variant + "'";
            return nullptr;
        }
        // The kernel's arguments by name: a placeholder is the task input it was declared for;
        // the computed argument is the task's output.
        const auto placeholders = taskPlaceholders(task);
        std::vector<std::string> bound;
        for (const Tensor& a : v->args) {
            std::string tensor;
            if (!a->isPlaceholder()) {
                tensor = task.output;
            } else {
                for (auto& [t, var] : placeholders)
                    if (var == a->name) tensor = t;
            }
            if (tensor.empty() || std::find(bound.begin(), bound.end(), tensor) != bound.end()) {
                *error = "task " + task.name + "'s variant '" + ct.variant + "' takes '" + a->name +
                         "', which is none of the task's inputs (" +
                         std::to_string(task.inputs.size()) + ") or its output";
                return nullptr;
            }
            bound.push_back(tensor);
        }
        if (std::find(bound.begin(), bound.end(), task.output) == bound.end()) {
            *error = "task " + task.name + "'s variant '" + ct.variant +
                     "' does not write the task's output";
            return nullptr;
        }
        try {
            LoweredFunc f = lowerSchedule(v->schedule(), v->args, task.name);
            ct.kernel = m->m_jit->compile(f.func);
        } catch (const UserError& e) {
            *error =
                "task " + task.name + ": line " + std::to_string(e.loc().line) + ": " + e.message();
            return nullptr;
        } catch (const CodegenError& e) {
            *error = "task " + task.name + ": " + e.what();
            return nullptr;
        }
        // Each argument must be what the model binds to it.
        for (std::size_t i = 0; i < v->args.size(); ++i) {
            const std::string& name = bound[i];
            const GraphTensor& t = g.tensor(name);
            const Tensor& a = v->args[i];
            std::int64_t count = 1;
            for (auto& d : a->shape)
                count *= constIntOr(d, -1);
            if (a->dtype != t.dtype || count != std::max<std::int64_t>(t.elementCount(), 1)) {
                *error = "task " + task.name + "'s argument " + std::to_string(i + 1) + " ('" +
                         a->name + "') is " + a->dtype.str() + " of " + std::to_string(count) +
                         " elements; the model binds " + t.dtype.str() + " " + dimsText(t.shape);
                return nullptr;
            }
            ct.args.push_back(name);
        }
        ct.compileMs = msSince(c0);
        m->m_compileMs += ct.compileMs;
        ct.task = std::move(task);
        m->m_tasks.push_back(std::move(ct));
    }
    (void)byWorkload;
    return m;
}

HostBuffer& CompiledModel::storage(const std::string& tensor)
{
    return m_buffers.at(viewSource(m_graph, tensor));
}

const HostBuffer& CompiledModel::storage(const std::string& tensor) const
{
    return m_buffers.at(viewSource(m_graph, tensor));
}

std::int64_t CompiledModel::bufferBytes() const
{
    std::int64_t n = 0;
    for (auto& [name, b] : m_buffers)
        n += b.byteSize();
    return n;
}

bool CompiledModel::setInput(const std::string& name, const HostBuffer& value, std::string* why)
{
    const GraphTensor* t = m_graph.find(name);
    if (!t ||
        std::find(m_graph.inputs.begin(), m_graph.inputs.end(), name) == m_graph.inputs.end()) {
        *why = "'" + name + "' is not an input of the model";
        return false;
    }
    if (value.dtype() != t->dtype || value.shape() != t->shape) {
        *why = "input '" + name + "' is " + t->dtype.str() + " " + dimsText(t->shape) +
               "; the value given is " + value.dtype().str() + " " + dimsText(value.shape());
        return false;
    }
    HostBuffer& b = storage(name);
    std::memcpy(b.data(), value.data(), static_cast<std::size_t>(b.byteSize()));
    return true;
}

void CompiledModel::fillInputs(std::uint64_t seed)
{
    for (std::size_t i = 0; i < m_graph.inputs.size(); ++i)
        storage(m_graph.inputs[i]).fillRandom(seed + i);
}

void CompiledModel::runTask(std::size_t index) const
{
    const CompiledTask& t = m_tasks[index];
    void* pointers[64];
    std::vector<void*> many;
    void** args = pointers;
    if (t.args.size() > 64) {
        many.resize(t.args.size());
        args = many.data();
    }
    for (std::size_t i = 0; i < t.args.size(); ++i)
        args[i] = const_cast<void*>(storage(t.args[i]).data());
    t.kernel->run(args, nullptr);
}

void CompiledModel::run() const
{
    for (std::size_t i = 0; i < m_tasks.size(); ++i)
        runTask(i);
}

HostBuffer CompiledModel::value(const std::string& tensor) const
{
    const GraphTensor& t = m_graph.tensor(tensor);
    const HostBuffer& b = storage(tensor);
    HostBuffer out(t.dtype, t.shape);
    std::memcpy(out.data(), b.data(), static_cast<std::size_t>(out.byteSize()));
    return out;
}

} // namespace loopscope
