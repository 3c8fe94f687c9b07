// Operators that move data without arithmetic: Reshape, Flatten, Squeeze and Unsqueeze (views
// of their input), Transpose, Concat, Split, Slice and Gather (copies), and Constant and Shape,
// which only make constants (folded at import); LayoutTransform, which the layout pass puts where
// data in blocks of channels meets an operator that reads it as N x C x S... .
#include "graph/Operators.h"

#include <algorithm>
#include <numeric>

namespace loopscope {

namespace {

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

std::int64_t product(const std::vector<std::int64_t>& s)
{
    return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

// The elements of a shape, refused at the node where they overflow int64 (a model's shapes can
// say anything; a product that wraps around is undefined).
std::int64_t elements(const std::vector<std::int64_t>& s, const OpContext& c)
{
    std::int64_t n = 1;
    for (std::int64_t d : s)
        if (__builtin_mul_overflow(n, d, &n))
            c.fail("the shape " + dimsText(s) + " has more elements than a tensor can");
    return n;
}

// ---- views: the same elements in row-major order under another shape ----

std::vector<std::int64_t> viewShape(const OpContext& c)
{
    const auto& x = c.shape(0);
    const std::string& op = c.node().op;
    if (op == "Reshape") {
        std::vector<std::int64_t> target =
            c.opset() >= 5 ? c.constantInts(1, "the shape") : c.node().intsAttr("shape");
        const bool allowZero = c.node().intAttr("allowzero", 0) != 0;
        std::int64_t known = 1, unknown = -1;
        for (std::size_t d = 0; d < target.size(); ++d) {
            if (target[d] == 0 && !allowZero) {
                if (d >= x.size())
                    c.fail("shape value 0 at " + num(static_cast<std::int64_t>(d)) +
                           " has no input dimension to copy");
                target[d] = x[d];
            }
            if (target[d] == -1) {
                if (unknown >= 0) c.fail("the shape has more than one -1");
                unknown = static_cast<std::int64_t>(d);
                continue;
            }
            if (target[d] < 0) c.fail("negative dimension in the shape");
            if (__builtin_mul_overflow(known, target[d], &known))
                c.fail("the shape " + dimsText(target) + " has more elements than a tensor can");
        }
        if (unknown >= 0) {
            if (known == 0 || elements(x, c) % known)
                c.fail("cannot reshape " + dimsText(x) + " to " + dimsText(target));
            target[static_cast<std::size_t>(unknown)] = elements(x, c) / known;
        }
        if ((unknown >= 0 ? known * target[static_cast<std::size_t>(unknown)] : known) !=
            elements(x, c))
            c.fail("cannot reshape " + dimsText(x) + " to " + dimsText(target));
        return target;
    }
    if (op == "Flatten") {
        const std::int64_t axis = c.node().intAttr("axis", 1);
        const std::int64_t r = static_cast<std::int64_t>(x.size());
        if (axis < -r || axis > r) c.fail("axis " + num(axis) + " is out of range");
        const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
        return {elements({x.begin(), x.begin() + static_cast<long>(a)}, c),
                elements({x.begin() + static_cast<long>(a), x.end()}, c)};
    }
    std::vector<std::int64_t> axes = c.node().intsAttr("axes");
    if (c.opset() >= 13 && c.hasInput(1)) axes = c.constantInts(1, "axes");
    if (op == "Squeeze") {
        std::vector<std::int64_t> out;
        for (auto& a : axes)
            a = normalizeAxis(a, x.size(), c);
        for (std::size_t d = 0; d < x.size(); ++d) {
            const bool listed =
                std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
            if (listed && x[d] != 1)
                c.fail("cannot squeeze axis " + num(static_cast<std::int64_t>(d)) + " of size " +
                       num(x[d]));
            if (axes.empty() ? x[d] != 1 : !listed) out.push_back(x[d]);
        }
        return out;
    }
    // Unsqueeze
    const std::size_t rank = x.size() + axes.size();
    for (auto& a : axes)
        a = normalizeAxis(a, rank, c);
    std::vector<std::int64_t> out;
    std::size_t next = 0;
    for (std::size_t d = 0; d < rank; ++d) {
        if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end())
            out.push_back(1);
        else if (next < x.size())
            out.push_back(x[next++]);
        else
            c.fail("repeated axes");
    }
    return out;
}

std::vector<TensorType> viewInfer(const OpContext& c)
{
    return {{c.input(0).dtype, viewShape(c)}};
}

std::vector<HostBuffer> viewEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    HostBuffer out(in[0]->dtype(), viewShape(c));
    for (std::int64_t i = 0; i < out.elementCount(); ++i)
        out.set(i, in[0]->get(i));
    if (!out.dtype().isFloat())
        for (std::int64_t i = 0; i < out.elementCount(); ++i)
            out.setInt(i, in[0]->getInt(i));
    return {std::move(out)};
}

// In a task, a view is an index computation: the flat index of the output element, unflattened
// in the input's shape.
void viewEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const auto& x = c.shape(0);
    const auto shape = viewShape(c);
    w.compute(
        out[0], shape,
        [&](const std::vector<std::string>& idx) {
            if (x.empty()) return ScriptWriter::load(in[0], {});
            std::string flat;
            for (std::size_t d = 0; d < idx.size(); ++d)
                flat = flat.empty() ? idx[d] : "(" + flat + ") * " + num(shape[d]) + " + " + idx[d];
            if (flat.empty()) flat = "0";
            std::vector<std::string> src;
            std::int64_t inner = product(x);
            for (std::size_t d = 0; d < x.size(); ++d) {
                inner /= x[d];
                std::string v = inner == 1 ? "(" + flat + ")" : "(" + flat + ") // " + num(inner);
                src.push_back(d == 0 ? v : v + " % " + num(x[d]));
            }
            return ScriptWriter::load(in[0], src);
        },
        out[0]);
}

// ---- Transpose ----

std::vector<std::int64_t> permOf(const OpContext& c)
{
    const std::size_t r = c.shape(0).size();
    std::vector<std::int64_t> perm = c.node().intsAttr("perm");
    if (perm.empty())
        for (std::size_t d = 0; d < r; ++d)
            perm.insert(perm.begin(), static_cast<std::int64_t>(d));
    std::vector<std::int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t d = 0; d < sorted.size(); ++d)
        if (sorted[d] != static_cast<std::int64_t>(d) || perm.size() != r)
            c.fail("perm is not a permutation of the axes");
    return perm;
}

std::vector<TensorType> transposeInfer(const OpContext& c)
{
    auto perm = permOf(c);
    std::vector<std::int64_t> shape;
    for (auto p : perm)
        shape.push_back(c.shape(0)[static_cast<std::size_t>(p)]);
    return {{c.input(0).dtype, shape}};
}

std::vector<HostBuffer> transposeEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    auto perm = permOf(c);
    const auto& x = c.shape(0);
    auto shape = transposeInfer(c)[0].shape;
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<std::int64_t> idx, src(x.size());
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        unflatten(i, shape, idx);
        for (std::size_t d = 0; d < perm.size(); ++d)
            src[static_cast<std::size_t>(perm[d])] = idx[d];
        out.set(i, in[0]->get(in[0]->flatIndex(src)));
    }
    return {std::move(out)};
}

void transposeEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                   const std::vector<std::string>& out)
{
    auto perm = permOf(c);
    w.compute(
        out[0], transposeInfer(c)[0].shape,
        [&](const std::vector<std::string>& idx) {
            std::vector<std::string> src(perm.size());
            for (std::size_t d = 0; d < perm.size(); ++d)
                src[static_cast<std::size_t>(perm[d])] = idx[d];
            return ScriptWriter::load(in[0], src);
        },
        out[0]);
}

// ---- Concat ----

std::vector<TensorType> concatInfer(const OpContext& c)
{
    const auto& first = c.shape(0);
    const std::int64_t axis = normalizeAxis(c.node().intAttr("axis", 0), first.size(), c);
    auto shape = first;
    for (int i = 1; i < c.inputCount(); ++i) {
        const auto& s = c.shape(i);
        if (s.size() != first.size())
            c.fail("inputs of ranks " + num(static_cast<std::int64_t>(first.size())) + " and " +
                   num(static_cast<std::int64_t>(s.size())));
        for (std::size_t d = 0; d < s.size(); ++d)
            if (static_cast<std::int64_t>(d) != axis && s[d] != first[d])
                c.fail("shapes " + dimsText(first) + " and " + dimsText(s) +
                       " differ off the axis");
        shape[static_cast<std::size_t>(axis)] += s[static_cast<std::size_t>(axis)];
    }
    return {{c.input(0).dtype, shape}};
}

std::vector<HostBuffer> concatEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const std::int64_t axis = normalizeAxis(c.node().intAttr("axis", 0), c.shape(0).size(), c);
    auto shape = concatInfer(c)[0].shape;
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        unflatten(i, shape, idx);
        std::int64_t at = idx[static_cast<std::size_t>(axis)];
        int k = 0;
        while (at >= c.shape(k)[static_cast<std::size_t>(axis)])
            at -= c.shape(k++)[static_cast<std::size_t>(axis)];
        idx[static_cast<std::size_t>(axis)] = at;
        const HostBuffer& src = *in[static_cast<std::size_t>(k)];
        if (out.dtype().isFloat())
            out.set(i, src.get(src.flatIndex(idx)));
        else
            out.setInt(i, src.getInt(src.flatIndex(idx)));
    }
    return {std::move(out)};
}

void concatEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const std::int64_t axis = normalizeAxis(c.node().intAttr("axis", 0), c.shape(0).size(), c);
    const auto a = static_cast<std::size_t>(axis);
    w.compute(
        out[0], concatInfer(c)[0].shape,
        [&](const std::vector<std::string>& idx) {
            // The last input is the fallback; each earlier one is chosen when the index is
            // below its end.
            std::vector<std::int64_t> starts;
            std::int64_t at = 0;
            for (int k = 0; k < c.inputCount(); ++k) {
                starts.push_back(at);
                at += c.shape(k)[a];
            }
            auto loadFrom = [&](int k) {
                std::vector<std::string> src = idx;
                if (starts[static_cast<std::size_t>(k)] > 0)
                    src[a] = idx[a] + " - " + num(starts[static_cast<std::size_t>(k)]);
                return ScriptWriter::load(in[static_cast<std::size_t>(k)], src);
            };
            std::string expr = loadFrom(c.inputCount() - 1);
            for (int k = c.inputCount() - 2; k >= 0; --k)
                expr = "tvm.tir.if_then_else(" + idx[a] + " < " +
                       num(starts[static_cast<std::size_t>(k) + 1]) + ", " + loadFrom(k) + ", " +
                       expr + ")";
            return expr;
        },
        out[0]);
}

// ---- Split ----

std::vector<std::int64_t> splitSizes(const OpContext& c, std::int64_t* axisOut)
{
    const auto& x = c.shape(0);
    const std::int64_t axis = normalizeAxis(c.node().intAttr("axis", 0), x.size(), c);
    *axisOut = axis;
    std::vector<std::int64_t> sizes = c.node().intsAttr("split");
    if (c.opset() >= 13 && c.hasInput(1)) sizes = c.constantInts(1, "split");
    const auto n = static_cast<std::int64_t>(c.node().outputs.size());
    const std::int64_t extent = x[static_cast<std::size_t>(axis)];
    if (sizes.empty()) {
        if (n == 0 || extent % n)
            c.fail("cannot split " + num(extent) + " into " + num(n) + " equal parts");
        sizes.assign(static_cast<std::size_t>(n), extent / n);
    }
    if (static_cast<std::int64_t>(sizes.size()) != n ||
        std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) != extent)
        c.fail("split sizes do not add up to " + num(extent) + " in " + num(n) + " outputs");
    return sizes;
}

std::vector<TensorType> splitInfer(const OpContext& c)
{
    std::int64_t axis;
    auto sizes = splitSizes(c, &axis);
    std::vector<TensorType> out;
    for (auto s : sizes) {
        auto shape = c.shape(0);
        shape[static_cast<std::size_t>(axis)] = s;
        out.push_back({c.input(0).dtype, shape});
    }
    return out;
}

std::vector<HostBuffer> splitEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    std::int64_t axis;
    auto sizes = splitSizes(c, &axis);
    std::vector<HostBuffer> outs;
    std::int64_t start = 0;
    std::vector<std::int64_t> idx;
    for (auto s : sizes) {
        auto shape = c.shape(0);
        shape[static_cast<std::size_t>(axis)] = s;
        HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
        for (std::int64_t i = 0; i < out.elementCount(); ++i) {
            unflatten(i, shape, idx);
            idx[static_cast<std::size_t>(axis)] += start;
            out.set(i, in[0]->get(in[0]->flatIndex(idx)));
        }
        start += s;
        outs.push_back(std::move(out));
    }
    return outs;
}

void splitEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
               const std::vector<std::string>& out)
{
    std::int64_t axis;
    auto sizes = splitSizes(c, &axis);
    std::int64_t start = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        auto shape = c.shape(0);
        shape[static_cast<std::size_t>(axis)] = sizes[k];
        if (!out[k].empty())
            w.compute(
                out[k], shape,
                [&](const std::vector<std::string>& idx) {
                    auto src = idx;
                    if (start > 0) src[static_cast<std::size_t>(axis)] += " + " + num(start);
                    return ScriptWriter::load(in[0], src);
                },
                out[k]);
        start += sizes[k];
    }
}

// ---- Slice ----

struct SliceSpec {
    std::vector<std::int64_t> start, step, shape;
};

SliceSpec sliceOf(const OpContext& c)
{
    const auto& x = c.shape(0);
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (c.opset() < 10) {
        starts = c.node().intsAttr("starts");
        ends = c.node().intsAttr("ends");
        axes = c.node().intsAttr("axes");
    } else {
        starts = c.constantInts(1, "starts");
        ends = c.constantInts(2, "ends");
        if (c.hasInput(3)) axes = c.constantInts(3, "axes");
        if (c.hasInput(4)) steps = c.constantInts(4, "steps");
    }
    if (axes.empty())
        for (std::size_t d = 0; d < starts.size(); ++d)
            axes.push_back(static_cast<std::int64_t>(d));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size())
        c.fail("starts, ends, axes and steps differ in length");
    SliceSpec s;
    s.start.assign(x.size(), 0);
    s.step.assign(x.size(), 1);
    s.shape = x;
    for (std::size_t k = 0; k < axes.size(); ++k) {
        const auto a = static_cast<std::size_t>(normalizeAxis(axes[k], x.size(), c));
        const std::int64_t dim = x[a], step = steps[k];
        if (step == 0) c.fail("a step of 0");
        auto clampIndex = [&](std::int64_t v, bool isEnd) {
            if (v < 0) v += dim;
            if (step > 0) return std::clamp<std::int64_t>(v, 0, dim);
            return std::clamp<std::int64_t>(v, isEnd ? -1 : 0, dim - 1);
        };
        const std::int64_t b = clampIndex(starts[k], false), e = clampIndex(ends[k], true);
        const std::int64_t n = step > 0 ? std::max<std::int64_t>(0, (e - b + step - 1) / step)
                                        : std::max<std::int64_t>(0, (b - e - step - 1) / -step);
        s.start[a] = b;
        s.step[a] = step;
        s.shape[a] = n;
    }
    return s;
}

std::vector<TensorType> sliceInfer(const OpContext& c)
{
    return {{c.input(0).dtype, sliceOf(c).shape}};
}

std::vector<HostBuffer> sliceEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const SliceSpec s = sliceOf(c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, s.shape);
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        unflatten(i, s.shape, idx);
        for (std::size_t d = 0; d < idx.size(); ++d)
            idx[d] = s.start[d] + idx[d] * s.step[d];
        if (out.dtype().isFloat())
            out.set(i, in[0]->get(in[0]->flatIndex(idx)));
        else
            out.setInt(i, in[0]->getInt(in[0]->flatIndex(idx)));
    }
    return {std::move(out)};
}

void sliceEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
               const std::vector<std::string>& out)
{
    const SliceSpec s = sliceOf(c);
    w.compute(
        out[0], s.shape,
        [&](const std::vector<std::string>& idx) {
            std::vector<std::string> src;
            for (std::size_t d = 0; d < idx.size(); ++d) {
                std::string v = s.step[d] == 1 ? idx[d] : idx[d] + " * " + num(s.step[d]);
                if (s.start[d] != 0) v = num(s.start[d]) + " + " + v;
                src.push_back(v);
            }
            return ScriptWriter::load(in[0], src);
        },
        out[0]);
}

// ---- Gather: along one axis, at indices (a constant here) ----

std::vector<TensorType> gatherInfer(const OpContext& c)
{
    const auto& x = c.shape(0);
    const auto& ind = c.shape(1);
    if (!c.input(1).dtype.isIntegral()) c.fail("the indices must be integers");
    const auto a =
        static_cast<std::size_t>(normalizeAxis(c.node().intAttr("axis", 0), x.size(), c));
    std::vector<std::int64_t> shape(x.begin(), x.begin() + static_cast<long>(a));
    shape.insert(shape.end(), ind.begin(), ind.end());
    shape.insert(shape.end(), x.begin() + static_cast<long>(a) + 1, x.end());
    return {{c.input(0).dtype, shape}};
}

std::vector<HostBuffer> gatherEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const auto& x = c.shape(0);
    const auto& ind = c.shape(1);
    const auto a =
        static_cast<std::size_t>(normalizeAxis(c.node().intAttr("axis", 0), x.size(), c));
    auto shape = gatherInfer(c)[0].shape;
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<std::int64_t> idx, src(x.size()), at(ind.size());
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        unflatten(i, shape, idx);
        for (std::size_t d = 0; d < ind.size(); ++d)
            at[d] = idx[a + d];
        std::int64_t k = ind.empty() ? in[1]->getInt(0) : in[1]->getInt(in[1]->flatIndex(at));
        if (k < 0) k += x[a];
        if (k < 0 || k >= x[a]) c.fail("index " + num(k) + " is out of range for " + num(x[a]));
        for (std::size_t d = 0; d < x.size(); ++d)
            src[d] = d < a ? idx[d] : d == a ? k : idx[d - 1 + ind.size()];
        if (out.dtype().isFloat())
            out.set(i, in[0]->get(in[0]->flatIndex(src)));
        else
            out.setInt(i, in[0]->getInt(in[0]->flatIndex(src)));
    }
    return {std::move(out)};
}

void gatherEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const auto& x = c.shape(0);
    const auto& ind = c.shape(1);
    const auto a =
        static_cast<std::size_t>(normalizeAxis(c.node().intAttr("axis", 0), x.size(), c));
    w.compute(
        out[0], gatherInfer(c)[0].shape,
        [&](const std::vector<std::string>& idx) {
            std::vector<std::string> at(idx.begin() + static_cast<long>(a),
                                        idx.begin() + static_cast<long>(a + ind.size()));
            // A negative index counts from the end.
            const std::string k = ScriptWriter::load(in[1], at) + ".astype(\"int32\")";
            const std::string wrapped =
                "tvm.tir.if_then_else(" + k + " < 0, " + k + " + " + num(x[a]) + ", " + k + ")";
            std::vector<std::string> src;
            for (std::size_t d = 0; d < x.size(); ++d)
                src.push_back(d < a ? idx[d] : d == a ? wrapped : idx[d - 1 + ind.size()]);
            return ScriptWriter::load(in[0], src);
        },
        out[0]);
}

// ---- constants: Constant (its value attribute), Shape (of a static shape) ----

std::vector<HostBuffer> constantEval(const OpContext& c, const std::vector<const HostBuffer*>&)
{
    const GraphNode& n = c.node();
    if (const HostBuffer* t = n.tensorAttr("value")) return {*t};
    if (n.has("value_float")) {
        HostBuffer b(DataType::float32(), {});
        b.set(0, n.floatAttr("value_float", 0));
        return {b};
    }
    if (n.has("value_int")) {
        HostBuffer b(DataType::int64(), {});
        b.setInt(0, n.intAttr("value_int", 0));
        return {b};
    }
    if (n.has("value_ints")) {
        auto v = n.intsAttr("value_ints");
        HostBuffer b(DataType::int64(), {static_cast<std::int64_t>(v.size())});
        for (std::size_t i = 0; i < v.size(); ++i)
            b.setInt(static_cast<std::int64_t>(i), v[i]);
        return {b};
    }
    c.fail("no value (a tensor, value_float, value_int or value_ints) Loopscope can read");
}

std::vector<TensorType> constantInfer(const OpContext& c)
{
    HostBuffer b = constantEval(c, {})[0];
    return {{b.dtype(), b.shape()}};
}

std::vector<HostBuffer> shapeEval(const OpContext& c, const std::vector<const HostBuffer*>&)
{
    const auto& x = c.shape(0);
    auto r = static_cast<std::int64_t>(x.size());
    std::int64_t start = c.node().intAttr("start", 0), end = c.node().intAttr("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<std::int64_t>(start, 0, r);
    end = std::clamp<std::int64_t>(end, start, r);
    HostBuffer b(DataType::int64(), {end - start});
    for (std::int64_t i = start; i < end; ++i)
        b.setInt(i - start, x[static_cast<std::size_t>(i)]);
    return {b};
}

std::vector<TensorType> shapeInfer(const OpContext& c)
{
    HostBuffer b = shapeEval(c, {})[0];
    return {{b.dtype(), b.shape()}};
}

void constantEmit(const OpContext& c, ScriptWriter&, const std::vector<std::string>&,
                  const std::vector<std::string>&)
{
    c.fail("a constant is folded before tasks are made");
}

// ---- LayoutTransform: between N x C x S... and blocks of channels (kFromBlock -> kToBlock) ----

struct Layouts {
    std::int64_t from, to;
    std::vector<std::int64_t> plain; // the tensor as N x C x S...
};

Layouts layoutsOf(const OpContext& c)
{
    Layouts l{c.node().intAttr(kFromBlock, 0), c.node().intAttr(kToBlock, 0), {}};
    const auto& x = c.shape(0);
    if (l.from < 0 || l.to < 0 || x.size() < (l.from > 0 ? 4U : 3U))
        c.fail("moves N x C x S... data between blocks of channels, not " + dimsText(x));
    if (l.from > 0 && x.back() != l.from)
        c.fail("the input " + dimsText(x) + " is not in blocks of " + num(l.from) + " channels");
    l.plain = l.from > 0 ? plainShape(x) : x;
    if (l.to > 0 && l.plain[1] % l.to != 0)
        c.fail(num(l.plain[1]) + " channels do not fill blocks of " + num(l.to));
    return l;
}

std::vector<TensorType> layoutInfer(const OpContext& c)
{
    const Layouts l = layoutsOf(c);
    return {{c.input(0).dtype, l.to > 0 ? blockedShape(l.plain, l.to) : l.plain}};
}

std::vector<HostBuffer> layoutEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Layouts l = layoutsOf(c);
    return {relayout(*in[0], l.plain, l.from, l.to)};
}

void layoutEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const Layouts l = layoutsOf(c);
    w.compute(
        out[0], l.to > 0 ? blockedShape(l.plain, l.to) : l.plain,
        [&](const std::vector<std::string>& i) {
            const std::size_t spatial = l.plain.size() - 2;
            const std::string channel =
                l.to > 0 ? i[1] + " * " + num(l.to) + " + " + i[2 + spatial] : i[1];
            std::string at = in[0] + "[" + i[0] + ", ";
            at += l.from > 0 ? "(" + channel + ") // " + num(l.from) : channel;
            for (std::size_t a = 0; a < spatial; ++a)
                at += ", " + i[2 + a];
            if (l.from > 0) at += ", (" + channel + ") % " + num(l.from);
            return at + "]";
        },
        out[0]);
}

} // namespace

void registerShapeOps(std::vector<OpSpec>& out)
{
    for (const char* view : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"})
        out.push_back({view, OpPattern::Injective, viewInfer, viewEval, viewEmit, true});
    out.push_back(
        {"Transpose", OpPattern::Injective, transposeInfer, transposeEval, transposeEmit});
    out.push_back({"Concat", OpPattern::Injective, concatInfer, concatEval, concatEmit});
    out.push_back({"Split", OpPattern::Injective, splitInfer, splitEval, splitEmit});
    out.push_back({"Slice", OpPattern::Injective, sliceInfer, sliceEval, sliceEmit});
    out.push_back({"Gather", OpPattern::Injective, gatherInfer, gatherEval, gatherEmit});
    out.push_back({"Constant", OpPattern::Opaque, constantInfer, constantEval, constantEmit});
    out.push_back({"Shape", OpPattern::Opaque, shapeInfer, shapeEval, constantEmit});
    out.push_back({"LayoutTransform", OpPattern::Injective, layoutInfer, layoutEval, layoutEmit,
                   false, true});
}

} // namespace loopscope
