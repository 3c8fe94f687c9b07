#include "graph/ModelRun.h"

#include "codegen/Codegen.h"
#include "graph/Operators.h"
#include "ir/Diagnostic.h"
#include "ir/Host.h"
#include "lower/Lower.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"
#include "te/Program.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>

namespace loopscope {

namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The largest magnitude in a tensor, at least 1. A float32 sum that cancels to near zero keeps
// the rounding of its large terms, so an absolute tolerance is taken in units of the tensor's
// scale (a convolution deep in a network sums thousands of products of values around 10).
double scaleOf(const HostBuffer& b)
{
    double m = 1;
    if (!b.dtype().isFloat()) return m;
    for (std::int64_t i = 0; i < b.elementCount(); ++i)
        if (std::isfinite(b.get(i))) m = std::max(m, std::fabs(b.get(i)));
    return m;
}

// The tensor each placeholder variable of a task's script stands for. A script names its
// placeholders after the tensors of the task it was written for; tasks of the same workload read
// tensors of other names in the same positions, so a script written for one of them binds to
// any of them by position.
std::map<std::string, std::string>
placeholderBinding(const Task& task, const std::vector<Task>& peers, const Variant& v)
{
    auto fits = [&](const std::map<std::string, std::string>& tensorToVar) {
        std::set<std::string> vars;
        for (auto& [t, var] : tensorToVar)
            vars.insert(var);
        for (const Tensor& a : v.args)
            if (a->isPlaceholder() && !vars.count(a->name)) return false;
        return true;
    };
    std::map<std::string, std::string> out;
    const auto own = taskPlaceholders(task);
    if (fits(own)) {
        for (auto& [t, var] : own)
            out[var] = t;
        return out;
    }
    for (const Task& peer : peers) {
        if (peer.workload != task.workload || peer.inputs.size() != task.inputs.size()) continue;
        const auto theirs = taskPlaceholders(peer);
        if (!fits(theirs)) continue;
        for (std::size_t i = 0; i < peer.inputs.size(); ++i)
            out[theirs.at(peer.inputs[i])] = task.inputs[i];
        return out;
    }
    for (auto& [t, var] : own) // unbound names are reported by the caller
        out[var] = t;
    return out;
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
    for (auto& [name, t] : g.tensors()) {
        if (viewSource(g, name) == name && !HostBuffer::supports(t.dtype)) {
            *error = "tensor '" + name + "' is " + t.dtype.str() + ", which a run cannot hold";
            return nullptr;
        }
    }
    m->planStorage(tasks);
    m->m_planMs = msSince(t0);
    const std::vector<Task> peers = tasks; // tasks is consumed below
    // Tasks of one workload share their script, variant and kernel: compiled once, each bound to
    // its own tensors by position.
    struct Compiled {
        std::string script, variant, source;
        std::shared_ptr<const EvalResult> eval;
        const Variant* v = nullptr;
        std::shared_ptr<JitKernel> kernel;
    };
    std::map<std::string, Compiled> byWorkload;
    // First each workload's script evaluated and lowered, in order (a mistake is reported for
    // the first task that has it); then the kernels compiled side by side.
    std::vector<std::pair<Compiled*, PrimFunc>> toCompile;
    std::vector<std::string> firstTaskOf;
    for (const Task& task : tasks) {
        if (g.tensor(task.output).elementCount() == 0 || byWorkload.count(task.workload)) continue;
        Compiled c;
        auto script = options.scripts.find(task.workload);
        auto source = options.sources.find(task.workload);
        c.source = source != options.sources.end()   ? source->second
                   : script != options.scripts.end() ? "project file"
                                                     : "default";
        try {
            auto s0 = std::chrono::steady_clock::now();
            c.script = script != options.scripts.end() ? script->second : taskScript(g, task);
            m->m_stats.scriptMs += msSince(s0);
        } catch (const GraphError& e) {
            *error = "task " + task.name + ": " + e.what();
            return nullptr;
        }
        auto variant = options.variants.find(task.workload);
        c.variant = variant != options.variants.end() ? variant->second : "default";
        auto e0 = std::chrono::steady_clock::now();
        auto eval = std::make_shared<EvalResult>(evaluateScript(c.script));
        m->m_stats.evaluateMs += msSince(e0);
        if (!eval->ok) {
            *error = "task " + task.name + ": line " + std::to_string(eval->error.loc.line) + ": " +
                     eval->error.message;
            return nullptr;
        }
        c.v = eval->program.findVariant(c.variant);
        if (!c.v) {
            *error = "task " + task.name + " has no variant '" + c.variant + "'";
            return nullptr;
        }
        c.eval = eval;
        PrimFunc func;
        try {
            auto l0 = std::chrono::steady_clock::now();
            func = lowerSchedule(c.v->schedule(), c.v->args, task.name).func;
            m->m_stats.lowerMs += msSince(l0);
        } catch (const UserError& e) {
            *error =
                "task " + task.name + ": line " + std::to_string(e.loc().line) + ": " + e.message();
            return nullptr;
        }
        Compiled& stored = byWorkload.emplace(task.workload, std::move(c)).first->second;
        toCompile.emplace_back(&stored, std::move(func));
        firstTaskOf.push_back(task.name);
    }
    {
        auto j0 = std::chrono::steady_clock::now();
        std::vector<std::string> errors(toCompile.size());
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t i; (i = next++) < toCompile.size();) {
                try {
                    toCompile[i].first->kernel = m->m_jit->compile(toCompile[i].second);
                } catch (const CodegenError& e) {
                    errors[i] = e.what();
                } catch (const std::exception& e) {
                    errors[i] = e.what();
                }
            }
        };
        const unsigned threads =
            std::max(1u, std::min<unsigned>(static_cast<unsigned>(usableCores()),
                                            static_cast<unsigned>(toCompile.size())));
        std::vector<std::thread> pool;
        for (unsigned t = 1; t < threads; ++t)
            pool.emplace_back(work);
        work();
        for (auto& t : pool)
            t.join();
        m->m_stats.codegenMs += msSince(j0);
        m->m_stats.kernels = static_cast<int>(toCompile.size());
        m->m_stats.threads = static_cast<int>(threads);
        for (std::size_t i = 0; i < errors.size(); ++i)
            if (!errors[i].empty()) {
                *error = "task " + firstTaskOf[i] + ": " + errors[i];
                return nullptr;
            }
    }
    for (Task& task : tasks) {
        // An empty tensor (a slice past the end) has nothing to compute.
        if (g.tensor(task.output).elementCount() == 0) continue;
        auto known = byWorkload.find(task.workload);
        const Compiled& c = known->second;
        const Variant* v = c.v;
        CompiledTask ct;
        ct.script = c.script;
        ct.variant = c.variant;
        ct.source = c.source;
        ct.kernel = c.kernel;
        // The kernel's arguments by name: a placeholder is the task input it was declared for;
        // the computed argument is the task's output.
        const auto byVariable = placeholderBinding(task, peers, *v);
        std::vector<std::string> bound;
        for (const Tensor& a : v->args) {
            std::string tensor;
            if (!a->isPlaceholder()) {
                tensor = task.output;
            } else if (auto it = byVariable.find(a->name); it != byVariable.end()) {
                tensor = it->second;
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
            ct.argData.push_back(m->storage(name));
        }
        ct.task = std::move(task);
        m->m_tasks.push_back(std::move(ct));
    }
    m->m_compileMs = msSince(t0) - m->m_planMs;
    return m;
}

// Inputs, weights and outputs have storage of their own. An intermediate tensor lives from the
// task that writes it to the last task that reads it (through views too); tensors whose lives do
// not overlap share a slot. Slots are handed out best fit, a free slot too small grows, and
// sizes are settled before anything is allocated.
void CompiledModel::planStorage(const std::vector<Task>& tasks)
{
    const Graph& g = m_graph;
    std::set<std::string> outputs;
    for (auto& o : g.outputs)
        outputs.insert(viewSource(g, o));
    auto ownBuffer = [&](const std::string& name, const GraphTensor& t) {
        HostBuffer b(t.dtype, t.shape);
        if (t.constant)
            std::memcpy(b.data(), t.constant->data(), static_cast<std::size_t>(b.byteSize()));
        m_storage[name] = b.data();
        m_owned.push_back(std::move(b));
    };
    std::set<std::string> computed;
    for (const Task& task : tasks)
        computed.insert(task.output);
    for (auto& [name, t] : g.tensors())
        if (viewSource(g, name) == name && (!computed.count(name) || outputs.count(name)))
            ownBuffer(name, t);

    std::map<std::string, std::size_t> lastUse; // intermediate -> the last task reading it
    for (std::size_t k = 0; k < tasks.size(); ++k)
        for (auto& in : tasks[k].inputs)
            lastUse[viewSource(g, in)] = k;
    struct Slot {
        std::int64_t bytes = 0;
        bool busy = false;
    };
    std::vector<Slot> slots;
    std::map<std::string, std::size_t> slotOf;
    std::multimap<std::size_t, std::size_t> freedAfter; // task -> slot
    for (std::size_t k = 0; k < tasks.size(); ++k) {
        const std::string& out = tasks[k].output;
        if (outputs.count(out) || slotOf.count(out)) continue;
        const GraphTensor& t = g.tensor(out);
        const std::int64_t need = (t.elementCount() * t.dtype.bytes() +
                                   static_cast<std::int64_t>(HostBuffer::kAlignment) - 1) /
                                  static_cast<std::int64_t>(HostBuffer::kAlignment) *
                                  static_cast<std::int64_t>(HostBuffer::kAlignment);
        m_unplannedBytes += need;
        std::size_t best = slots.size(), largest = slots.size();
        for (std::size_t i = 0; i < slots.size(); ++i) {
            if (slots[i].busy) continue;
            if (slots[i].bytes >= need &&
                (best == slots.size() || slots[i].bytes < slots[best].bytes))
                best = i;
            if (largest == slots.size() || slots[i].bytes > slots[largest].bytes) largest = i;
        }
        if (best == slots.size()) best = largest; // grow the largest free slot
        if (best == slots.size()) {
            slots.push_back({});
            best = slots.size() - 1;
        }
        slots[best].bytes = std::max(slots[best].bytes, need);
        slots[best].busy = true;
        slotOf[out] = best;
        auto last = lastUse.find(out);
        freedAfter.emplace(last == lastUse.end() ? k : std::max(k, last->second), best);
        auto [from, to] = freedAfter.equal_range(k);
        for (auto it = from; it != to; ++it)
            slots[it->second].busy = false;
    }
    std::vector<void*> slotData;
    for (const Slot& slot : slots) {
        HostBuffer b(DataType{DataType::UInt, 8, 1}, {slot.bytes});
        slotData.push_back(b.data());
        m_arenaBytes += slot.bytes;
        m_owned.push_back(std::move(b));
    }
    for (auto& [tensor, slot] : slotOf)
        m_storage[tensor] = slotData[slot];
}

void* CompiledModel::storage(const std::string& tensor) const
{
    return m_storage.at(viewSource(m_graph, tensor));
}

std::int64_t CompiledModel::bufferBytes() const
{
    std::int64_t n = 0;
    for (auto& b : m_owned)
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
    std::memcpy(storage(name), value.data(), static_cast<std::size_t>(value.byteSize()));
    return true;
}

void CompiledModel::fillInputs(std::uint64_t seed)
{
    for (std::size_t i = 0; i < m_graph.inputs.size(); ++i) {
        const GraphTensor& t = m_graph.tensor(m_graph.inputs[i]);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(seed + i);
        std::memcpy(storage(t.name), b.data(), static_cast<std::size_t>(b.byteSize()));
    }
}

void CompiledModel::runTask(std::size_t index) const
{
    const CompiledTask& t = m_tasks[index];
    t.kernel->run(t.argData.data(), nullptr);
}

void CompiledModel::store(const std::string& tensor, const HostBuffer& value)
{
    const GraphTensor& t = m_graph.tensor(tensor);
    HostBuffer b(t.dtype, t.shape);
    for (std::int64_t i = 0; i < b.elementCount(); ++i)
        if (t.dtype.isFloat())
            b.set(i, value.get(i));
        else
            b.setInt(i, value.getInt(i));
    if (b.byteSize() > 0)
        std::memcpy(storage(tensor), b.data(), static_cast<std::size_t>(b.byteSize()));
}

bool ModelCheck::ok() const
{
    for (auto* list : {&tasks, &outputs})
        for (const Entry& e : *list)
            if (!e.comparison.ok) return false;
    return true;
}

ModelCheck CompiledModel::check(const std::map<std::string, HostBuffer>& inputs,
                                const std::map<std::string, HostBuffer>& reference, double rtol,
                                double atol)
{
    ModelCheck result;
    for (std::size_t i = 0; i < m_tasks.size(); ++i) {
        const CompiledTask& t = m_tasks[i];
        for (const std::string& in : t.task.inputs)
            if (!m_graph.tensor(in).isConstant()) store(in, reference.at(in));
        runTask(i);
        const HostBuffer& expected = reference.at(t.task.output);
        Comparison c =
            compareTensors(value(t.task.output), expected, rtol, atol * scaleOf(expected));
        if (!c.ok && result.firstWrongTask < 0) result.firstWrongTask = static_cast<int>(i);
        result.tasks.push_back({t.task.name, std::move(c)});
    }
    for (auto& [name, v] : inputs)
        store(name, v);
    run();
    for (const std::string& o : m_graph.outputs)
        result.outputs.push_back(
            {o, compareTensors(value(o), reference.at(o), rtol, atol * scaleOf(reference.at(o)))});
    return result;
}

void CompiledModel::run() const
{
    KeepPoolAwake awake;
    for (std::size_t i = 0; i < m_tasks.size(); ++i)
        runTask(i);
}

std::vector<double> CompiledModel::runTimed() const
{
    KeepPoolAwake awake;
    std::vector<double> ms(m_tasks.size());
    auto before = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < m_tasks.size(); ++i) {
        runTask(i);
        const auto after = std::chrono::steady_clock::now();
        ms[i] = std::chrono::duration<double, std::milli>(after - before).count();
        before = after;
    }
    return ms;
}

HostBuffer CompiledModel::value(const std::string& tensor) const
{
    const GraphTensor& t = m_graph.tensor(tensor);
    HostBuffer out(t.dtype, t.shape);
    if (out.byteSize() > 0)
        std::memcpy(out.data(), storage(tensor), static_cast<std::size_t>(out.byteSize()));
    return out;
}

} // namespace loopscope
