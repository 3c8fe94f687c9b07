// A whole model compiled and run: every task's script evaluated, lowered and JIT-compiled (the
// schedule the task's script names), one buffer per computed tensor (views share their source's),
// weights bound once, the tasks run in order. Inputs and outputs are HostBuffers of the graph's
// types; every tensor can be read back for a located check.
#pragma once

#include "graph/FuseOps.h"
#include "graph/Graph.h"
#include "graph/Interpreter.h"

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
    // Where each of those came from, as the run reports it ("tuned (best of 64 ...)").
    std::map<std::string, std::string> sources;
};

// A check of a compiled model against the reference interpreter: each task alone, then the model
// end to end.
struct ModelCheck {
    struct Entry {
        std::string name; // the task, or the graph output
        Comparison comparison;
    };
    std::vector<Entry> tasks;   // in order; each task on the reference's values of its inputs
    std::vector<Entry> outputs; // the model run end to end from its inputs
    int firstWrongTask = -1;    // index into tasks
    bool ok() const;
};

struct CompiledTask {
    Task task;
    std::string script;
    std::string variant;               // the one compiled
    std::string source;                // "default", "project file", ...
    std::shared_ptr<JitKernel> kernel; // shared by the tasks of one workload
    std::vector<std::string> args;     // the tensors bound to the kernel's buffers, in order
    std::vector<void*> argData;        // where each of them lives (fixed once compiled)
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
    // Where the compile time went, summed over the kernels (one per workload).
    struct CompileStats {
        int kernels = 0;
        int threads = 1;       // compiling side by side
        double scriptMs = 0;   // task scripts written (the default schedule chosen)
        double evaluateMs = 0; // scripts evaluated
        double lowerMs = 0;    // schedules lowered to TIR
        double codegenMs = 0;  // LLVM: IR, optimization, machine code (wall time)
    };
    const CompileStats& compileStats() const { return m_stats; }
    double planMs() const { return m_planMs; }
    // Every byte the run holds: inputs, weights, outputs and the planned intermediates.
    std::int64_t bufferBytes() const;
    // The bytes intermediate tensors would take each in a buffer of its own; with the plan they
    // share intermediateBytes().
    std::int64_t unplannedIntermediateBytes() const { return m_unplannedBytes; }
    std::int64_t intermediateBytes() const { return m_arenaBytes; }

    // False with why when the value's type or shape is not the input's.
    bool setInput(const std::string& name, const HostBuffer& value, std::string* why);
    // Every graph input filled from `seed` (floats uniform in [-1, 1)).
    void fillInputs(std::uint64_t seed);
    void run() const;
    // A run of the whole model that times each task where it runs (after the task before it,
    // with the caches as that one left them): milliseconds per task, in task order.
    std::vector<double> runTimed() const;
    // Checks every task against `reference` (interpret(graph(), inputs)): each task runs on the
    // reference's values of its inputs, converted to their types, so a wrong task is found as
    // itself and not through the rounding of the tasks before it; then the whole model runs
    // from `inputs` and its outputs are compared. At ONNX's backend-test tolerance by default,
    // `atol` in units of each tensor's largest magnitude (when that is over 1).
    ModelCheck check(const std::map<std::string, HostBuffer>& inputs,
                     const std::map<std::string, HostBuffer>& reference, double rtol = 1e-3,
                     double atol = 1e-5);
    // One task alone (its inputs as the last run left them: an intermediate tensor shares its
    // storage with others that are never alive at the same time, so runTask(i) right after
    // runTask(0..i-1) computes what run() does).
    void runTask(std::size_t index) const;
    // A tensor's value, in the graph's type and shape (views included): inputs, weights and
    // outputs after a run; an intermediate tensor only while it is alive (just after the task
    // that writes it, before its storage is reused).
    HostBuffer value(const std::string& tensor) const;

private:
    CompiledModel() = default;
    void planStorage(const std::vector<Task>& tasks);
    void* storage(const std::string& tensor) const;
    // Writes a tensor's storage from a value of the same element count, converting its type.
    void store(const std::string& tensor, const HostBuffer& value);

    Graph m_graph;
    std::unique_ptr<Jit> m_jit;
    std::vector<CompiledTask> m_tasks;
    std::vector<HostBuffer> m_owned;        // inputs, weights, outputs, the shared slots
    std::map<std::string, void*> m_storage; // by the tensor that owns its storage
    std::int64_t m_arenaBytes = 0, m_unplannedBytes = 0;
    double m_compileMs = 0, m_planMs = 0;
    CompileStats m_stats;
};

} // namespace loopscope
