#include "runtime/Traffic.h"

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"

#include <set>

namespace loopscope {

namespace {

double elementsOf(const Tensor& t, const SizeValues& sizes)
{
    double n = 1;
    for (auto& e : t->shape) {
        std::int64_t extent;
        if (!evaluateSize(e, sizes, &extent)) return 0;
        n *= static_cast<double>(extent);
    }
    return n;
}

void collectInputs(const Tensor& t, std::set<const OperationNode*>& seen,
                   std::vector<Tensor>& inputs)
{
    if (!seen.insert(t.get()).second) return;
    if (t->isPlaceholder()) {
        inputs.push_back(t);
        return;
    }
    for (auto& in : inputTensors(t))
        collectInputs(in, seen, inputs);
}

} // namespace

double unavoidableBytes(const std::vector<Tensor>& outputs, const SizeValues& sizes)
{
    std::set<const OperationNode*> seen;
    std::vector<Tensor> inputs;
    for (auto& out : outputs)
        collectInputs(out, seen, inputs);
    double bytes = 0;
    for (auto& t : inputs)
        bytes += elementsOf(t, sizes) * t->dtype.bytes();
    std::set<const OperationNode*> counted;
    for (auto& t : outputs)
        if (!t->isPlaceholder() && counted.insert(t.get()).second)
            bytes += elementsOf(t, sizes) * t->dtype.bytes();
    return bytes;
}

double arithmeticIntensity(double flops, double bytes)
{
    if (flops <= 0 || bytes <= 0) return 0;
    return flops / bytes;
}

} // namespace loopscope
