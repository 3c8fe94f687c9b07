// A whole model compiled and run: every task's script evaluated, lowered and JIT-compiled (the
// schedule the task's script names), one buffer per computed tensor (views share their source's),
// weights bound once, the tasks run in order. Inputs and outputs are HostBuffers of the graph's
// types; every tensor can be read back for a located check.
#pragma once

#include "graph/FuseOps.h"
#include "graph/Graph.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loopscope {

class Jit;
class JitKernel;

struct ModelOptions {
    FuseOptions fusion;
    // A task's script instead of the default one (from the model's project file), by workload,
    // and the variant to run from it ("default" unless named).
    std::map<std::string, std::string> scripts;
    std::map<std::string, std::string> variants;
};

struct CompiledTask {
    Task task;
    std::string script;
    std::string variant; // the one compiled
    std::string source;  // "default", "project file", ...
    double compileMs = 0;
    std::unique_ptr<JitKernel> kernel;
    std::vector<std::string> args; // the tensors bound to the kernel's buffers, in order
};

class CompiledModel {
public:
    ~CompiledModel();
    // Null with the error (naming the task) when a task cannot be made or compiled.
    static std::unique_ptr<CompiledModel> compile(const Graph& graph, const ModelOptions& options,
                                                  std::string* error);

    const Graph& graph() const { return m_graph; }
    const std::vector<CompiledTask>& tasks() const { return m_tasks; }
    double compileMs() const { return m_compileMs; }
    double planMs() const { return m_planMs; }
    std::int64_t bufferBytes() const; // every buffer the run owns, weights included

    // False with why when the value's type or shape is not the input's.
    bool setInput(const std::string& name, const HostBuffer& value, std::string* why);
    // Every graph input filled from `seed` (floats uniform in [-1, 1)).
    void fillInputs(std::uint64_t seed);
    void run() const;
    // One task alone (its inputs as the last run left them).
    void runTask(std::size_t index) const;
    // A tensor's value after a run, in the graph's type and shape (views included).
    HostBuffer value(const std::string& tensor) const;

private:
    CompiledModel() = default;
    HostBuffer& storage(const std::string& tensor);
    const HostBuffer& storage(const std::string& tensor) const;

    Graph m_graph;
    std::unique_ptr<Jit> m_jit;
    std::vector<CompiledTask> m_tasks;
    std::map<std::string, HostBuffer> m_buffers; // by the tensor that owns the storage
    double m_compileMs = 0, m_planMs = 0;
};

} // namespace loopscope
