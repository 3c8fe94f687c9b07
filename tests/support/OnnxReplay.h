// What the ONNX loader's fuzz target does with its input, shared with the tests that replay the
// inputs it once failed on (fuzz/regressions/onnx): the bytes read as a model; a model that
// imports goes through the graph passes and fusion, every task is written as a TE script and
// evaluated, and a small one is run by the reference interpreter. Returns false with the reason
// when the model is refused (a refusal always has one); anything else that goes wrong (a crash,
// an internal error) is a bug and escapes.
#pragma once

#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Task.h"
#include "ir/Diagnostic.h"
#include "te/Program.h"

#include <map>
#include <string>

namespace loopscope {

inline bool replayOnnxBytes(const std::string& bytes, std::string* refusal)
{
    ImportResult r = importOnnxBytes(bytes, "");
    if (!r.ok) {
        *refusal = r.error;
        return false;
    }
    try {
        optimizeGraph(r.graph);
        std::int64_t elements = 0;
        for (auto& [name, t] : r.graph.tensors())
            elements += t.elementCount();
        for (const Task& t : fuseOps(r.graph))
            evaluateScript(taskScript(r.graph, t)); // an error here is a located diagnostic
        if (elements <= 4096) {
            std::map<std::string, HostBuffer> inputs;
            for (auto& name : r.graph.inputs) {
                const GraphTensor& t = r.graph.tensor(name);
                if (!HostBuffer::supports(t.dtype)) return true;
                HostBuffer b(t.dtype, t.shape);
                b.fillRandom(1);
                inputs[name] = std::move(b);
            }
            interpret(r.graph, inputs);
        }
    } catch (const GraphError& e) {
        *refusal = e.what();
        return false;
    } catch (const UserError& e) {
        *refusal = e.message();
        return false;
    }
    return true;
}

} // namespace loopscope
