#include "runtime/CpuCheckSize.h"

#include "runtime/FlopCount.h"
#include "runtime/GpuRun.h"

#include <algorithm>
#include <set>

namespace loopscope {

namespace {

double flopsOf(const Variant& v)
{
    return flopCount(v.snapshots.front().outputs());
}

// The constant factors the variant splits by: a TE schedule's split relations, a TensorIR
// variant's `factors=[...]` as its trace records them.
std::set<std::int64_t> splitFactors(const Variant& v)
{
    std::set<std::int64_t> out;
    for (const Stage& st : v.schedule().stages())
        for (const IterRelation& r : st.relations) {
            if (r.kind != IterRelation::Kind::Split) continue;
            std::int64_t k = 0;
            if (r.factor.defined() && isConstInt(r.factor, &k) && k > 1) out.insert(k);
            if (r.nparts.defined() && isConstInt(r.nparts, &k) && k > 1) out.insert(k);
        }
    for (const std::string& line : v.trace) {
        const std::size_t at = line.find("factors=[");
        if (at == std::string::npos) continue;
        const std::size_t end = line.find(']', at);
        std::string list = line.substr(at + 9, end == std::string::npos ? 0 : end - at - 9);
        std::size_t pos = 0;
        while (pos < list.size()) {
            const std::size_t comma = std::min(list.find(',', pos), list.size());
            const std::string item = list.substr(pos, comma - pos);
            char* stop = nullptr;
            const long long k = std::strtoll(item.c_str(), &stop, 10);
            if (stop != item.c_str() && k > 1) out.insert(k);
            pos = comma + 1;
        }
    }
    return out;
}

const Variant* sameVariant(const EvalResult& r, const Variant& v)
{
    if (!r.ok) return nullptr;
    return r.program.findVariant(v.name);
}

} // namespace

std::optional<CpuCheckSize> cpuCheckSize(const std::string& source,
                                         const std::map<std::string, std::int64_t>& given,
                                         const Program& program, const Variant& variant,
                                         double budgetFlops)
{
    double flops = flopsOf(variant);
    if (flops <= budgetFlops) return std::nullopt;
    std::map<std::string, std::int64_t> original = given;
    for (const Parameter& p : program.parameters)
        original.emplace(p.name, p.value);
    const std::set<std::int64_t> factors = splitFactors(variant);
    auto evaluate = [&](const std::map<std::string, std::int64_t>& values) {
        return evaluateScript(source, values);
    };
    auto keepsDivisors = [&](const std::string& name, std::int64_t value) {
        const std::int64_t was = original.at(name);
        return std::all_of(factors.begin(), factors.end(),
                           [&](std::int64_t f) { return was % f != 0 || value % f == 0; });
    };
    // The size parameters: those whose halving alone lowers the operation count.
    std::vector<std::string> sizes;
    for (const Parameter& p : program.parameters) {
        const std::int64_t v = original.at(p.name);
        if (v < 2 || v % 2 != 0) continue;
        std::map<std::string, std::int64_t> halved = original;
        halved[p.name] = v / 2;
        const EvalResult r = evaluate(halved);
        const Variant* h = sameVariant(r, variant);
        if (h && flopsOf(*h) < flops) sizes.push_back(p.name);
    }
    std::map<std::string, std::int64_t> values = original;
    EvalResult last;
    bool changed = false;
    for (bool progressed = true; progressed && flops > budgetFlops;) {
        progressed = false;
        // The largest first, so that the sizes shrink together.
        std::sort(sizes.begin(), sizes.end(), [&](const std::string& a, const std::string& b) {
            return values[a] > values[b];
        });
        for (const std::string& name : sizes) {
            const std::int64_t v = values[name];
            if (v < 2 || v % 2 != 0 || !keepsDivisors(name, v / 2)) continue;
            std::map<std::string, std::int64_t> next = values;
            next[name] = v / 2;
            EvalResult r = evaluate(next);
            const Variant* h = sameVariant(r, variant);
            if (!h) continue;
            const double f = flopsOf(*h);
            if (f >= flops) continue;
            values = std::move(next);
            flops = f;
            last = std::move(r);
            changed = progressed = true;
            if (flops <= budgetFlops) break;
        }
    }
    if (!changed) return std::nullopt;
    CpuCheckSize out;
    out.values = values;
    for (const Parameter& p : program.parameters)
        if (values.at(p.name) != original.at(p.name))
            out.text +=
                (out.text.empty() ? "" : ", ") + p.name + "=" + std::to_string(values.at(p.name));
    out.evaluated = std::move(last);
    return out;
}

std::optional<CpuCheckSize> cpuCheckSizeWithoutGpu(const std::string& source,
                                                   const std::map<std::string, std::int64_t>& given,
                                                   const Program& program, const Variant& variant,
                                                   GpuRunner* gpu)
{
    if (!bindsGpuThreads(variant) || (gpu && gpu->device())) return std::nullopt;
    return cpuCheckSize(source, given, program, variant);
}

} // namespace loopscope
