#include "RandomSchedule.h"

#include "schedule/Primitives.h"
#include "schedule/Schedule.h"
#include "te/Program.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

namespace loopscope {

namespace {

using V = std::vector<std::string>;

// A statement as the primitive catalogue prints it, on the schedule `s`.
std::string statement(const std::string& primitive, const std::string& stageVar,
                      const std::vector<PrintedArg>& args,
                      const std::vector<std::string>& results = {})
{
    const PrimitiveSpec* p = findPrimitive(primitive);
    if (!p) throw std::logic_error("no primitive " + primitive + " in the catalogue");
    return printStatement(*p, "s", stageVar, args, results);
}

// How often each primitive of the catalogue is drawn. A primitive the catalogue gains must be
// given a weight here (or a reason to leave it out), else no case can be generated.
const std::vector<std::pair<std::string, int>>& primitiveWeights()
{
    static const std::vector<std::pair<std::string, int>> weights = [] {
        const std::map<std::string, int> weight = {
            {"split", 18},      {"tile", 6},           {"fuse", 8},         {"reorder", 10},
            {"vectorize", 10},  {"unroll", 7},         {"parallel", 7},     {"pragma", 1},
            {"compute_at", 12}, {"compute_inline", 8}, {"compute_root", 2}, {"cache_write", 6},
            {"cache_read", 5},  {"rfactor", 7},        {"storage_align", 3}};
        // bind: the CPU code generator refuses bound loops, so no case could be compiled.
        const std::set<std::string> leftOut = {"bind"};
        std::vector<std::pair<std::string, int>> out;
        for (const PrimitiveSpec& p : primitiveCatalogue()) {
            if (leftOut.count(p.name)) continue;
            auto w = weight.find(p.name);
            if (w == weight.end())
                throw std::logic_error("the random schedule generator has no weight for the "
                                       "primitive " +
                                       p.name);
            out.emplace_back(p.name, w->second);
        }
        return out;
    }();
    return weights;
}

// splitmix64: small, fast and the same on every platform (std distributions are not).
class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull)
    {
    }

    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi].
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        if (hi <= lo) return lo;
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1p-53 < p; }
    template <typename T> const T& pick(const std::vector<T>& v)
    {
        return v[static_cast<std::size_t>(range(0, static_cast<std::int64_t>(v.size()) - 1))];
    }
    template <typename T> void shuffle(std::vector<T>& v)
    {
        for (std::size_t i = v.size(); i > 1; --i)
            std::swap(v[i - 1],
                      v[static_cast<std::size_t>(range(0, static_cast<std::int64_t>(i) - 1))]);
    }

private:
    std::uint64_t m_state;
};

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ")
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? sep : "") + items[i];
    return out;
}

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

// Small sizes, many of them prime or odd so that splits rarely divide evenly.
std::int64_t pickDim(Rng& rng, std::int64_t maxValue)
{
    static const std::vector<std::int64_t> pool = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                                                   10, 11, 12, 13, 15, 16, 17, 19, 20,
                                                   23, 24, 29, 31, 32, 37, 48, 64};
    std::vector<std::int64_t> ok;
    for (auto d : pool)
        if (d <= maxValue) ok.push_back(d);
    // Sizes of 1 are legal but make most schedules trivial: keep them rare.
    if (ok.size() > 1 && ok.front() == 1 && !rng.chance(0.05)) ok.erase(ok.begin());
    return rng.pick(ok);
}

struct ElemType {
    std::string name = "float32";

    bool isInt() const { return name == "int32" || name == "int64"; }
    // float16 has 11 significant bits: an addition that nearly cancels leaves an error no fair
    // tolerance covers, so float16 programs only scale and map values.
    bool addsSafely() const { return name != "float16"; }
    std::string shifted(const std::string& x, int v) const
    {
        if (!addsSafely()) return x + " * 2";
        return v < 0 ? x + " - " + lit(-v) : x + " + " + lit(v);
    }
    std::string dtypeArg(Rng& rng) const
    {
        if (name == "float32" && !rng.chance(0.2)) return "";
        return ", dtype=\"" + name + "\"";
    }
    std::string lit(int v) const { return isInt() ? num(v) : num(v) + ".0"; }
    std::string konst(int v) const { return "tvm.tir.const(" + lit(v) + ", \"" + name + "\")"; }
};

// A TE program as script text: everything before te.create_schedule.
struct ProgramDraft {
    std::vector<std::string> lines;
    std::string symbols; // "# set: N=13" when a size is a te.var
    std::string output;
    std::string description;

    void add(const std::string& line) { lines.push_back(line); }
};

std::string shapeText(const std::vector<std::int64_t>& shape)
{
    std::vector<std::string> parts;
    for (auto d : shape)
        parts.push_back(num(d));
    return "(" + join(parts) + (shape.size() == 1 ? ",)" : ")");
}

std::string reducerName(Rng& rng, double sumShare)
{
    if (rng.chance(sumShare)) return "sum";
    return rng.chance(0.5) ? "max" : "min";
}

// An elementwise function of `x` for a producer/consumer stage; keeps values small. `index`
// names the stage's index variables, for conditions and arithmetic on the position.
std::string unaryOp(Rng& rng, const ElemType& t, const std::string& x,
                    const std::vector<std::string>& index = {})
{
    const std::string i = index.empty() ? "" : rng.pick(index);
    const std::string j = index.size() < 2 ? i : index[index.size() - 1];
    switch (rng.range(0, 9)) {
    case 0: return t.shifted(x, 1);
    case 1: return x + " * 2";
    case 2: return "te.max(" + x + ", " + t.konst(0) + ")";
    case 3: return "te.min(" + x + ", " + t.lit(3) + ")";
    case 4:
        return std::string(rng.chance(0.5) ? "tvm.tir.if_then_else(" : "tvm.tir.Select(") + x +
               " > " + t.lit(0) + ", " + x + ", " + x + " * 3)";
    case 5: return t.shifted(x, -2);
    case 6:
        if (i.empty()) return "te.abs(" + x + ") * " + t.lit(2);
        switch (rng.range(0, 3)) {
        case 0: return "tvm.tir.if_then_else(" + i + " % 2 == 0, " + x + ", " + x + " * 2)";
        case 1: return "tvm.tir.if_then_else(" + i + " < " + j + ", " + x + ", " + t.konst(1) + ")";
        case 2:
            if (!t.addsSafely()) return x + " * 3";
            return x + " + (" + i + " * 3 - " + j + ").astype(\"" + t.name + "\")";
        default: return x + " * (" + i + " % 3).astype(\"" + t.name + "\")";
        }
    default:
        if (t.isInt()) {
            switch (rng.range(0, 6)) {
            case 0: return x + " // 3";
            case 1: return x + " % 3";
            case 2: return "tvm.tir.floordiv(" + x + ", 4)";
            case 3: return "tvm.tir.floormod(" + x + ", 5)";
            case 4: return "tvm.tir.truncdiv(" + x + ", 3)";
            case 5: return "tvm.tir.truncmod(" + x + ", 4)";
            default: return "(" + x + ".astype(\"float32\") * 0.5).astype(\"" + t.name + "\")";
            }
        }
        switch (rng.range(0, 6)) {
        case 0: return "te.abs(" + x + ") * " + t.lit(2);
        case 1: return x + " * " + x;
        case 2:
            // exp turns an absolute error of its argument into a relative error of its value:
            // in float16, exp(exp(x)) at x near 2 is off by a percent after rounding each stage,
            // against the reference's unrounded one. Of a non-positive argument, its value is at
            // most 1 and that error stays within the absolute tolerance.
            return t.addsSafely() ? "te.exp(" + x + ")" : "te.exp(0.0 - te.abs(" + x + "))";
        case 3: return "te.sqrt(te.abs(" + x + "))";
        case 4: return "te.tanh(" + x + ")";
        case 5: return "te.sigmoid(" + x + ")";
        default:
            // In float16, 1 + |x| keeps only 10 bits of a small x and log(1 + |x|) ~ |x| keeps
            // that absolute error: a relative error of percents that no compiler can avoid.
            // Adding 2 keeps the logarithm away from 0.
            return "te.log(te.abs(" + x + ") + " + (t.addsSafely() ? "1.0" : "2.0") + ")";
        }
    }
}

// C = A x B (optionally batched, with transposed operands, a prologue on A and an epilogue).
ProgramDraft matmulProgram(Rng& rng, const ElemType& t, bool batched)
{
    ProgramDraft p;
    std::int64_t bt = batched ? rng.range(1, 4) : 1;
    std::int64_t m = pickDim(rng, 48), n = pickDim(rng, 48), k = pickDim(rng, 64);
    while (bt * m * n > 2048)
        (m > n ? m : n) = ((m > n ? m : n) + 1) / 2;
    while (bt * m * n * k > 32768)
        k = (k + 1) / 2;
    bool ta = rng.chance(0.3), tb = rng.chance(0.3);
    std::string b = batched ? "BT, " : "";
    std::string bi = batched ? "b, " : "";
    p.add("M = " + num(m));
    p.add("N = " + num(n));
    p.add("K = " + num(k));
    if (batched) p.add("BT = " + num(bt));
    // Quantized-style inputs: narrow types widened inside the reduction.
    std::string narrow;
    if (t.isInt() && rng.chance(0.4)) narrow = rng.chance(0.7) ? "int8" : "uint8";
    if (t.name == "float32" && rng.chance(0.1)) narrow = "float16";
    std::string inType = narrow.empty() ? t.dtypeArg(rng) : ", dtype=\"" + narrow + "\"";
    std::string widen = narrow.empty() ? "" : ".astype(\"" + t.name + "\")";
    p.add("A = te.placeholder((" + b + (ta ? "K, M" : "M, K") + "), name=\"A\"" + inType + ")");
    p.add("B = te.placeholder((" + b + (tb ? "N, K" : "K, N") + "), name=\"B\"" + inType + ")");
    std::string a = "A";
    if (narrow.empty() && rng.chance(0.3)) {
        std::string ps = batched ? "z, p, q" : "p, q";
        p.add("AP = te.compute(A.shape, lambda " + ps + ": " +
              unaryOp(rng, t, "A[" + ps + "]",
                      batched ? std::vector<std::string>{"z", "p", "q"}
                              : std::vector<std::string>{"p", "q"}) +
              ", name=\"AP\")");
        a = "AP";
    }
    std::string red = reducerName(rng, 0.8);
    std::string bRead = "B[" + bi + (tb ? "j, k" : "k, j") + "]";
    std::int64_t bn = 0;
    if (!batched && narrow.empty() && rng.chance(0.2)) {
        // Array packing, as in TVM's GEMM tutorial: B in blocks of bn columns, read back with
        // floordiv/floormod; a partial last block is padded by a guarded read.
        bn = rng.pick(std::vector<std::int64_t>{2, 3, 4, 8});
        std::string col = "bigN * " + num(bn) + " + littleN";
        std::string src = tb ? "B[" + col + ", kk]" : "B[kk, " + col + "]";
        if (n % bn) src = "tvm.tir.if_then_else(" + col + " < N, " + src + ", " + t.konst(0) + ")";
        p.add("PB = te.compute((" + num((n + bn - 1) / bn) + ", K, " + num(bn) +
              "), lambda bigN, kk, littleN: " + src + ", name=\"PB\")");
        bRead = rng.chance(0.5) ? "PB[j // " + num(bn) + ", k, j % " + num(bn) + "]"
                                : "PB[tvm.tir.indexdiv(j, " + num(bn) +
                                      "), k, tvm.tir.indexmod(j, " + num(bn) + ")]";
    }
    p.add("k = te.reduce_axis((0, K), name=\"k\")");
    std::string lam = batched ? "b, i, j" : "i, j";
    p.add("C = te.compute((" + b + "M, N), lambda " + lam + ": te." + red + "(" + a + "[" + bi +
          (ta ? "k, i" : "i, k") + "]" + widen + " * " + bRead + widen + ", axis=k), name=\"C\")");
    p.output = "C";
    int epilogues = rng.chance(0.45) ? static_cast<int>(rng.range(1, 2)) : 0;
    const char* names[] = {"D", "E"};
    for (int e = 0; e < epilogues; ++e) {
        std::string x = p.output + "[" + lam + "]";
        std::string body;
        if (rng.chance(0.35) && e == 0) {
            p.add("bias = te.placeholder((N,), name=\"bias\"" + t.dtypeArg(rng) + ")");
            body = x + " + bias[j]";
        } else {
            body = unaryOp(rng, t, x, {"i", "j"});
        }
        p.add(std::string(names[e]) + " = te.compute((" + b + "M, N), lambda " + lam + ": " + body +
              ", name=\"" + names[e] + "\")");
        p.output = names[e];
    }
    p.description = std::string(batched ? "batch matmul BT=" + num(bt) + " " : "matmul ") +
                    "M=" + num(m) + " N=" + num(n) + " K=" + num(k) + (ta ? " A^T" : "") +
                    (tb ? " B^T" : "") + " " + red + (a == "AP" ? " +prologue" : "") +
                    (narrow.empty() ? "" : " " + narrow + " inputs") +
                    (bn ? " packed B bn=" + num(bn) : "") +
                    (epilogues ? " +" + num(epilogues) + " epilogue" : "");
    return p;
}

// NCHW convolution (or depthwise), with an optional zero-padding stage and an epilogue.
ProgramDraft convProgram(Rng& rng, const ElemType& t)
{
    ProgramDraft p;
    std::int64_t nb = rng.chance(0.8) ? 1 : 2;
    std::int64_t ci = rng.range(1, 4), co = rng.range(1, 5);
    std::int64_t ih = rng.range(3, 13), iw = rng.range(3, 13);
    std::int64_t kh = rng.range(1, 3), kw = rng.chance(0.8) ? kh : rng.range(1, 3);
    std::int64_t pad = rng.range(0, 2), stride = rng.chance(0.75) ? 1 : 2;
    bool depthwise = rng.chance(0.2);
    if (depthwise) co = ci;
    std::int64_t oh = (ih + 2 * pad - kh) / stride + 1, ow = (iw + 2 * pad - kw) / stride + 1;
    while (nb * co * oh * ow > 2048 && co > 1) {
        co = co / 2;
        if (depthwise) ci = co;
    }
    p.add("NB = " + num(nb));
    p.add("CI = " + num(ci));
    p.add("CO = " + num(co));
    p.add("IH = " + num(ih));
    p.add("IW = " + num(iw));
    p.add("KH = " + num(kh));
    p.add("KW = " + num(kw));
    p.add("PAD = " + num(pad));
    p.add("STRIDE = " + num(stride));
    p.add("OH = (IH + 2 * PAD - KH) // STRIDE + 1");
    p.add("OW = (IW + 2 * PAD - KW) // STRIDE + 1");
    p.add("Data = te.placeholder((NB, CI, IH, IW), name=\"Data\"" + t.dtypeArg(rng) + ")");
    p.add(std::string("Kern = te.placeholder(") +
          (depthwise ? "(CI, KH, KW)" : "(CO, CI, KH, KW)") + ", name=\"Kern\"" + t.dtypeArg(rng) +
          ")");
    std::string src = "Data";
    if (pad > 0) {
        p.add("Pad = te.compute((NB, CI, IH + 2 * PAD, IW + 2 * PAD), lambda n, c, y, x: "
              "tvm.tir.if_then_else(tvm.tir.all(y >= PAD, y < IH + PAD, x >= PAD, x < IW + PAD), "
              "Data[n, c, y - PAD, x - PAD], " +
              t.konst(0) + "), name=\"Pad\")");
        src = "Pad";
    }
    p.add("ry = te.reduce_axis((0, KH), name=\"ry\")");
    p.add("rx = te.reduce_axis((0, KW), name=\"rx\")");
    if (depthwise) {
        p.add("Conv = te.compute((NB, CO, OH, OW), lambda n, f, y, x: te.sum(" + src +
              "[n, f, y * STRIDE + ry, x * STRIDE + rx] * Kern[f, ry, rx], axis=[ry, rx]), "
              "name=\"Conv\")");
    } else {
        p.add("rc = te.reduce_axis((0, CI), name=\"rc\")");
        p.add("Conv = te.compute((NB, CO, OH, OW), lambda n, f, y, x: te.sum(" + src +
              "[n, rc, y * STRIDE + ry, x * STRIDE + rx] * Kern[f, rc, ry, rx], "
              "axis=[rc, ry, rx]), name=\"Conv\")");
    }
    p.output = "Conv";
    if (rng.chance(0.4)) {
        p.add("Out = te.compute((NB, CO, OH, OW), lambda n, f, y, x: " +
              unaryOp(rng, t, "Conv[n, f, y, x]", {"f", "y", "x"}) + ", name=\"Out\")");
        p.output = "Out";
    }
    p.description = std::string(depthwise ? "depthwise conv2d" : "conv2d") + " N=" + num(nb) +
                    " CI=" + num(ci) + " CO=" + num(co) + " " + num(ih) + "x" + num(iw) +
                    " kernel " + num(kh) + "x" + num(kw) + " pad " + num(pad) + " stride " +
                    num(stride);
    return p;
}

// Max/min/sum pooling over a 3-D or 4-D input, optionally padded, optionally averaged.
ProgramDraft poolProgram(Rng& rng, const ElemType& t)
{
    ProgramDraft p;
    bool four = rng.chance(0.5);
    std::int64_t c = rng.range(1, 6), ih = rng.range(2, 17), iw = rng.range(2, 17);
    std::int64_t kh = rng.range(1, 3), kw = rng.range(1, 3);
    std::int64_t pad = rng.chance(0.3) ? 1 : 0, stride = rng.range(1, 2);
    kh = std::min(kh, ih + 2 * pad);
    kw = std::min(kw, iw + 2 * pad);
    std::int64_t oh = (ih + 2 * pad - kh) / stride + 1, ow = (iw + 2 * pad - kw) / stride + 1;
    std::string lead = four ? "1, " : "";
    std::string leadVar = four ? "n, " : "";
    std::string red = reducerName(rng, 0.4);
    p.add("C = " + num(c));
    p.add("IH = " + num(ih));
    p.add("IW = " + num(iw));
    p.add("Data = te.placeholder((" + lead + "C, IH, IW), name=\"Data\"" + t.dtypeArg(rng) + ")");
    std::string src = "Data";
    if (pad) {
        std::string data = "Data[" + leadVar + "c, y - 1, x - 1]";
        std::string pick =
            rng.chance(0.5)
                ? "tvm.tir.all(y >= 1, y <= IH, x >= 1, x <= IW), " + data + ", " + t.konst(0)
                : "tvm.tir.any(y < 1, y > IH, x < 1, x > IW), " + t.konst(0) + ", " + data;
        p.add("Pad = te.compute((" + lead + "C, IH + 2, IW + 2), lambda " + leadVar +
              "c, y, x: tvm.tir.if_then_else(" + pick + "), name=\"Pad\")");
        src = "Pad";
    }
    p.add("ry = te.reduce_axis((0, " + num(kh) + "), name=\"ry\")");
    p.add("rx = te.reduce_axis((0, " + num(kw) + "), name=\"rx\")");
    p.add("Pool = te.compute((" + lead + "C, " + num(oh) + ", " + num(ow) + "), lambda " + leadVar +
          "c, y, x: te." + red + "(" + src + "[" + leadVar + "c, y * " + num(stride) +
          " + ry, x * " + num(stride) + " + rx], axis=[ry, rx]), name=\"Pool\")");
    p.output = "Pool";
    if (rng.chance(0.4)) {
        std::string x = "Pool[" + leadVar + "c, y, x]";
        std::string body = red == "sum" && !t.isInt() ? x + " / " + t.lit(static_cast<int>(kh * kw))
                                                      : unaryOp(rng, t, x, {"c", "y", "x"});
        p.add("Out = te.compute((" + lead + "C, " + num(oh) + ", " + num(ow) + "), lambda " +
              leadVar + "c, y, x: " + body + ", name=\"Out\")");
        p.output = "Out";
    }
    p.description = red + " pool " + num(c) + "x" + num(ih) + "x" + num(iw) + " window " + num(kh) +
                    "x" + num(kw) + " stride " + num(stride) + " pad " + num(pad);
    return p;
}

// A chain of 2-4 elementwise stages, some of which transpose, shift, reverse or subsample.
ProgramDraft elementwiseProgram(Rng& rng, const ElemType& t)
{
    ProgramDraft p;
    int ndim = static_cast<int>(rng.range(1, 3));
    std::vector<std::int64_t> shape;
    if (ndim == 1)
        shape = {rng.pick(std::vector<std::int64_t>{7, 13, 16, 17, 64, 100, 257, 1000, 4096})};
    for (int d = 0; ndim > 1 && d < ndim; ++d)
        shape.push_back(pickDim(rng, ndim == 2 ? 64 : 16));
    const std::vector<std::string> vars = {"i", "j", "l"};
    auto lead = [&](std::size_t n) {
        return std::vector<std::string>(vars.begin(), vars.begin() + static_cast<long>(n));
    };
    auto lambdaVars = [&](std::size_t n) { return join(lead(n)); };
    p.add("A = te.placeholder(" + shapeText(shape) + ", name=\"A\"" + t.dtypeArg(rng) + ")");
    p.add("B = te.placeholder(" + shapeText(shape) + ", name=\"B\"" + t.dtypeArg(rng) + ")");
    std::string iv = lambdaVars(shape.size());
    std::vector<std::int64_t> cur = shape;
    std::string prev;
    int stages = static_cast<int>(rng.range(2, 6));
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> earlier; // (stage, shape)
    std::vector<std::string> earlierType; // each earlier stage's element type
    ElemType et = t;                      // the element type of the previous stage
    bool cast = false;
    std::vector<std::string> kinds;
    for (int s = 1; s <= stages; ++s) {
        std::string name = "T" + num(s);
        std::vector<std::int64_t> next = cur;
        std::string body;
        std::string lv = lambdaVars(cur.size());
        if (prev.empty()) {
            body = rng.chance(0.5) && t.addsSafely()
                       ? "A[" + iv + "] + B[" + iv + "]"
                       : unaryOp(rng, t, "A[" + iv + "]", lead(cur.size()));
            kinds.push_back("map");
        } else {
            std::string x = prev + "[" + lv + "]";
            int kind = static_cast<int>(rng.range(0, 12));
            std::string last = vars[cur.size() - 1];
            std::vector<std::string> outer = lead(cur.size() - 1);
            auto withLast = [&](const std::string& e) {
                std::vector<std::string> v = outer;
                v.push_back(e);
                return prev + "[" + join(v) + "]";
            };
            if (kind == 0 && cur.size() == 2) {
                next = {cur[1], cur[0]};
                body = prev + "[j, i] * 2";
                kinds.push_back("transpose");
            } else if (kind == 1 && cur.back() >= 3 && et.addsSafely()) {
                next.back() = cur.back() - 2;
                body = withLast(last) + " + " + withLast(last + " + 1") + " + " +
                       withLast(last + " + 2");
                kinds.push_back("stencil");
            } else if (kind == 2) {
                body = et.shifted(withLast(num(cur.back() - 1) + " - " + last), -1);
                kinds.push_back("reverse");
            } else if (kind == 3 && cur.back() >= 2) {
                next.back() = (cur.back() + 1) / 2;
                body = et.shifted(withLast(last + " * 2"), 1);
                kinds.push_back("subsample");
            } else if (kind == 4 && et.addsSafely()) {
                std::string bias = "bias" + num(s);
                p.add(bias + " = te.placeholder((" + num(cur.back()) + ",), name=\"" + bias + "\"" +
                      et.dtypeArg(rng) + ")");
                body = x + " + " + bias + "[" + last + "]";
                kinds.push_back("broadcast");
            } else if (kind == 5 && cur == shape && et.name == t.name) {
                body = x + " * B[" + lv + "]";
                kinds.push_back("binary");
            } else if (kind == 7 && cur.size() >= 2) {
                // Flatten: one index split back with floordiv/floormod.
                std::int64_t total = 1;
                for (auto d : cur)
                    total *= d;
                next = {total};
                std::vector<std::string> idx;
                std::int64_t stride = total;
                for (std::size_t d = 0; d < cur.size(); ++d) {
                    stride /= cur[d];
                    std::string e = stride == 1 ? "i" : "i // " + num(stride);
                    if (d > 0)
                        e = (rng.chance(0.5) ? e + " % " + num(cur[d])
                                             : "tvm.tir.floormod(" + e + ", " + num(cur[d]) + ")");
                    idx.push_back(e);
                }
                body = et.shifted(prev + "[" + join(idx) + "]", 1);
                kinds.push_back("flatten");
            } else if (kind == 8 && cur.size() == 1 && cur[0] >= 4) {
                // Unflatten into rows of a width that may not divide the length: the tail is
                // padded by a guarded read.
                std::int64_t w = rng.range(2, std::min<std::int64_t>(cur[0] / 2, 16));
                std::int64_t rows = (cur[0] + w - 1) / w;
                next = {rows, w};
                if (cur[0] % w == 0) {
                    body = prev + "[i * " + num(w) + " + j]";
                } else {
                    body = "tvm.tir.if_then_else(i * " + num(w) + " + j < " + num(cur[0]) + ", " +
                           prev + "[i * " + num(w) + " + j], " + et.konst(0) + ")";
                }
                kinds.push_back("unflatten");
            } else if (kind == 9 && !cast) {
                // A cast whose result the output's tolerance covers: integers to floats (exact)
                // and float64 to float32. Widening float32 would hold float32 rounding (1 ulp
                // against the reference's double arithmetic) to float64's tolerance.
                ElemType to = et;
                if (et.isInt())
                    to.name = rng.chance(0.5) ? "float64" : "float32";
                else if (et.name == "float64")
                    to.name = "float32";
                if (to.name == et.name) {
                    body = unaryOp(rng, et, x, lead(cur.size()));
                    kinds.push_back("map");
                } else {
                    body = x + ".astype(\"" + to.name + "\")";
                    et = to;
                    cast = true;
                    kinds.push_back("cast " + to.name);
                }
            } else if (kind == 6 && earlier.size() >= 2 &&
                       earlier[earlier.size() - 2].second == cur &&
                       earlierType[earlierType.size() - 2] == et.name) {
                // A diamond: this stage also reads the stage before the previous one.
                body = "te.max(" + x + ", " + earlier[earlier.size() - 2].first + "[" + lv + "])";
                kinds.push_back("diamond");
            } else {
                body = unaryOp(rng, et, x, lead(cur.size()));
                kinds.push_back("map");
            }
        }
        p.add(name + " = te.compute(" + shapeText(next) + ", lambda " + lambdaVars(next.size()) +
              ": " + body + ", name=\"" + name + "\")");
        prev = name;
        cur = next;
        earlier.emplace_back(name, cur);
        earlierType.push_back(et.name);
    }
    p.output = prev;
    std::string dims;
    for (auto d : shape)
        dims += (dims.empty() ? "" : "x") + num(d);
    p.description = "elementwise " + dims + " " + join(kinds, "->");
    return p;
}

// Row/column/full reductions (sum, max, min), with a prologue and a normalizing epilogue;
// softmax for floats.
ProgramDraft reductionProgram(Rng& rng, const ElemType& t)
{
    ProgramDraft p;
    std::int64_t m = pickDim(rng, 64), n = pickDim(rng, 64);
    while (m * n > 4096)
        n = (n + 1) / 2;
    if (!t.isInt() && rng.chance(0.2)) {
        p.add("M = " + num(m));
        p.add("N = " + num(n));
        p.add("A = te.placeholder((M, N), name=\"A\"" + t.dtypeArg(rng) + ")");
        p.add("k1 = te.reduce_axis((0, N), name=\"k1\")");
        p.add("Mx = te.compute((M,), lambda i: te.max(A[i, k1], axis=k1), name=\"Mx\")");
        p.add("Ex = te.compute((M, N), lambda i, j: te.exp(A[i, j] - Mx[i]), name=\"Ex\")");
        p.add("k2 = te.reduce_axis((0, N), name=\"k2\")");
        p.add("Sm = te.compute((M,), lambda i: te.sum(Ex[i, k2], axis=k2), name=\"Sm\")");
        p.add("Out = te.compute((M, N), lambda i, j: Ex[i, j] / Sm[i], name=\"Out\")");
        p.output = "Out";
        p.description = "softmax " + num(m) + "x" + num(n);
        return p;
    }
    bool three = rng.chance(0.3);
    std::int64_t l = three ? pickDim(rng, 16) : 1;
    if (three)
        while (m * n * l > 4096)
            m = (m + 1) / 2;
    std::string red = reducerName(rng, 0.5);
    p.add("M = " + num(m));
    p.add("N = " + num(n));
    if (three) p.add("L = " + num(l));
    p.add("A = te.placeholder(" + std::string(three ? "(M, N, L)" : "(M, N)") + ", name=\"A\"" +
          t.dtypeArg(rng) + ")");
    std::string x = "A";
    if (rng.chance(0.3)) {
        std::string v = three ? "i, j, l" : "i, j";
        p.add("X = te.compute(A.shape, lambda " + v + ": " +
              unaryOp(rng, t, "A[" + v + "]",
                      three ? std::vector<std::string>{"i", "j", "l"}
                            : std::vector<std::string>{"i", "j"}) +
              ", name=\"X\")");
        x = "X";
    }
    std::string mode;
    if (three) {
        if (rng.chance(0.5)) {
            mode = "middle";
            p.add("k = te.reduce_axis((0, N), name=\"k\")");
            p.add("R = te.compute((M, L), lambda i, l: te." + red + "(" + x +
                  "[i, k, l], axis=k), name=\"R\")");
        } else {
            mode = "last two";
            p.add("k = te.reduce_axis((0, N), name=\"k\")");
            p.add("k2 = te.reduce_axis((0, L), name=\"k2\")");
            p.add("R = te.compute((M,), lambda i: te." + red + "(" + x +
                  "[i, k, k2], axis=[k, k2]), name=\"R\")");
        }
    } else {
        int kind = static_cast<int>(rng.range(0, 5));
        if (kind <= 2) {
            mode = "row";
            std::string where = rng.chance(0.15) ? ", where=k <= i" : "";
            if (!where.empty()) mode += " where k<=i";
            p.add("k = te.reduce_axis((0, N), name=\"k\")");
            p.add("R = te.compute((M,), lambda i: te." + red + "(" + x + "[i, k], axis=k" + where +
                  "), name=\"R\")");
            if (where.empty() && rng.chance(0.5)) {
                p.add("O = te.compute((M, N), lambda i, j: " + x + "[i, j] - R[i], name=\"O\")");
                mode += " +normalize";
            }
        } else if (kind <= 4) {
            mode = "column";
            std::string where = rng.chance(0.15) ? ", where=k % 3 != j % 2" : "";
            if (!where.empty()) mode += " where k%3!=j%2";
            p.add("k = te.reduce_axis((0, M), name=\"k\")");
            p.add("R = te.compute((N,), lambda j: te." + red + "(" + x + "[k, j], axis=k" + where +
                  "), name=\"R\")");
        } else {
            mode = "full";
            p.add("k = te.reduce_axis((0, M), name=\"k\")");
            p.add("k2 = te.reduce_axis((0, N), name=\"k2\")");
            p.add("R = te.compute((1,), lambda z: te." + red + "(" + x +
                  "[k, k2], axis=[k, k2]), name=\"R\")");
        }
    }
    p.output = p.lines.back().substr(0, p.lines.back().find(' '));
    p.description = red + " reduction (" + mode + ") " + num(m) + "x" + num(n) +
                    (three ? "x" + num(l) : "") + (x == "X" ? " +prologue" : "");
    return p;
}

ProgramDraft drawFamily(Rng& rng, const ElemType& t)
{
    int family = static_cast<int>(rng.range(0, 99));
    if (family < 25) return matmulProgram(rng, t, false);
    if (family < 35) return matmulProgram(rng, t, true);
    if (family < 52) return convProgram(rng, t);
    if (family < 64) return poolProgram(rng, t);
    if (family < 82) return elementwiseProgram(rng, t);
    return reductionProgram(rng, t);
}

// Sometimes one size becomes symbolic (te.var): its value comes from a `# set:` line, and the loop
// program keeps it as a variable (guards, symbolic bounds, runtime extents).
ProgramDraft drawProgram(Rng& rng, const ElemType& t)
{
    ProgramDraft p = drawFamily(rng, t);
    if (!rng.chance(0.15)) return p;
    static const std::set<std::string> sizes = {"M", "N",  "K",  "BT", "L",
                                                "C", "IH", "IW", "CI", "CO"};
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < p.lines.size(); ++i) {
        auto eq = p.lines[i].find(" = ");
        if (eq == std::string::npos || !sizes.count(p.lines[i].substr(0, eq))) continue;
        const std::string value = p.lines[i].substr(eq + 3);
        if (!value.empty() && std::all_of(value.begin(), value.end(), ::isdigit))
            candidates.push_back(i);
    }
    if (candidates.empty()) return p;
    std::string& line = p.lines[rng.pick(candidates)];
    auto eq = line.find(" = ");
    std::string name = line.substr(0, eq), value = line.substr(eq + 3);
    line = name + " = te.var(\"" + name + "\")";
    p.symbols = "# set: " + name + "=" + value;
    p.description += " (" + name + " symbolic)";
    return p;
}

// ---- the schedule ----

struct AxisVar {
    std::string var;         // the script variable bound to the axis
    std::int64_t extent = 1; // nominal: what the split/fuse arithmetic says
    bool symbolic = false;   // the extent depends on a te.var
};

struct StageVars {
    std::string tensorVar; // the script variable of the stage's tensor (s[tensorVar])
    std::map<std::string, AxisVar> byAxisName;
    bool usable = true; // false when a leaf could not be given a name
};

struct Leaf {
    std::string var;
    bool reduce = false;
    std::int64_t extent = 1;
    ForKind kind = ForKind::Serial;
    bool attachPoint = false; // another stage is computed at this loop
    bool symbolic = false;
};

struct Proposal {
    std::string text;
    std::string primitive;
    std::string stage; // receives newAxes, in leaf order
    std::vector<AxisVar> newAxes;
    std::string newStage; // the stage a cache_read/cache_write/rfactor creates
    std::string newTensorVar;
    std::string attachTo; // for the new stage: the consumer to compute it at later
};

std::string identifier(const std::string& s)
{
    std::string out;
    for (char c : s)
        out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

std::string lower(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

class CaseBuilder {
public:
    CaseBuilder(Rng& rng, const ProgramDraft& draft) : m_rng(rng)
    {
        m_prefix = draft.symbols.empty() ? "" : draft.symbols + "\n";
        m_prefix += "import tvm\nfrom tvm import te\n\n";
        for (auto& l : draft.lines)
            m_prefix += l + "\n";
        m_prefix += "\n# variant: fuzz\ns = te.create_schedule(" + draft.output + ".op)\n";
        EvalResult r = evaluateScript(m_prefix);
        if (!r.ok) {
            throw std::logic_error("generated program does not evaluate (line " +
                                   num(r.error.loc.line) + ": " + r.error.message + "):\n" +
                                   m_prefix);
        }
        m_eval = std::move(r);
        for (auto& st : schedule().stages()) {
            m_vars[st.name()].tensorVar = st.name();
        }
        bindNewLeaves({});
        EvalResult check = evaluateScript(script());
        if (!check.ok) {
            throw std::logic_error("axis bindings do not evaluate (line " +
                                   num(check.error.loc.line) + ": " + check.error.message + "):\n" +
                                   script());
        }
        m_eval = std::move(check);
    }

    std::string script() const
    {
        std::string s = m_prefix;
        for (auto& l : m_lines)
            s += l + "\n";
        return s;
    }
    const std::vector<std::string>& primitives() const { return m_primitives; }

    void build(int targetSteps)
    {
        int attempts = targetSteps * 10;
        for (int a = 0; a < attempts && static_cast<int>(m_primitives.size()) < targetSteps; ++a) {
            std::optional<Proposal> p = propose();
            if (p) tryApply(*p);
        }
    }

private:
    const Schedule& schedule() const { return m_eval.program.variants.back().schedule(); }

    const Stage* stageNamed(const std::string& name) const
    {
        for (auto& st : schedule().stages())
            if (st.name() == name) return &st;
        return nullptr;
    }

    std::string freshVar(const std::string& base)
    {
        std::string v = identifier(base);
        if (v.empty() || std::isdigit(static_cast<unsigned char>(v[0]))) v = "v" + v;
        std::string out = v;
        for (int n = 2; m_usedVars.count(out); ++n)
            out = v + num(n);
        m_usedVars.insert(out);
        return out;
    }

    std::string axisVarName(const std::string& tensorVar, const std::string& axisName)
    {
        std::string a = axisName;
        auto replaceAll = [&](const std::string& from, const std::string& to) {
            for (std::size_t p; (p = a.find(from)) != std::string::npos;)
                a.replace(p, from.size(), to);
        };
        replaceAll(".outer", "o");
        replaceAll(".inner", "i");
        replaceAll(".fused", "f");
        replaceAll(".", "_");
        return lower(identifier(tensorVar)) + "_" + a;
    }

    // Gives every leaf without a script variable one: the axes a step returned (in leaf order),
    // else a binding to the stage's root axes (new stages, stages rebuilt by cache_write/rfactor).
    void bindNewLeaves(const Proposal& p)
    {
        std::vector<AxisVar> pending = p.newAxes;
        std::size_t next = 0;
        std::vector<std::string> bindings;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder()) {
                if (!m_vars.count(st.name())) m_vars[st.name()].tensorVar = st.name();
                continue;
            }
            StageVars& sv = m_vars[st.name()];
            if (sv.tensorVar.empty()) sv.tensorVar = identifier(st.name());
            std::vector<const IterVar*> unknown;
            for (auto& iv : st.leafIterVars)
                if (!sv.byAxisName.count(iv->name())) unknown.push_back(&iv);
            if (st.name() == p.stage) {
                for (auto* iv : unknown) {
                    if (next >= pending.size()) break;
                    sv.byAxisName[(*iv)->name()] = pending[next++];
                }
                unknown.erase(unknown.begin(),
                              unknown.begin() + static_cast<long>(std::min(unknown.size(), next)));
            }
            if (unknown.empty()) continue;
            // Only root axes can be bound through op.axis / op.reduce_axis.
            for (auto* iv : unknown) {
                auto isRoot = [&](const std::vector<IterVar>& roots) {
                    return std::find(roots.begin(), roots.end(), *iv) != roots.end();
                };
                if (!isRoot(st.op->axes) && !isRoot(st.op->reduceAxes)) sv.usable = false;
            }
            if (!sv.usable) continue;
            auto isUnknown = [&](const IterVar& r) {
                return std::any_of(unknown.begin(), unknown.end(),
                                   [&](const IterVar* u) { return *u == r; });
            };
            for (int reduce = 0; reduce < 2; ++reduce) {
                const auto& roots = reduce ? st.op->reduceAxes : st.op->axes;
                std::vector<std::string> names;
                bool all = !roots.empty() && std::all_of(roots.begin(), roots.end(), isUnknown);
                std::string access =
                    "s[" + sv.tensorVar + "].op." + (reduce ? "reduce_axis" : "axis");
                for (std::size_t d = 0; d < roots.size(); ++d) {
                    const IterVar& r = roots[d];
                    if (!isUnknown(r)) continue;
                    // Symbolic extents (te.var) get a typical value: extents only guide choices.
                    std::int64_t extent = 16;
                    bool symbolic = !r->dom.extent.defined() || !isConstInt(r->dom.extent, &extent);
                    std::string var = freshVar(axisVarName(sv.tensorVar, r->name()));
                    sv.byAxisName[r->name()] = {var, extent, symbolic};
                    names.push_back(var);
                    if (!all)
                        bindings.push_back(var + " = " + access + "[" + num(static_cast<int>(d)) +
                                           "]");
                }
                if (all && names.size() == 1)
                    bindings.push_back("(" + names[0] + ",) = " + access);
                else if (all)
                    bindings.push_back(join(names) + " = " + access);
            }
        }
        for (auto& b : bindings)
            m_lines.push_back(b);
    }

    bool tryApply(const Proposal& p)
    {
        std::string text = script() + p.text + "\n";
        EvalResult r = evaluateScript(text);
        if (!r.ok) return false;
        m_eval = std::move(r);
        m_lines.push_back(p.text);
        m_primitives.push_back(p.primitive);
        if (!p.newStage.empty()) {
            m_vars[p.newStage].tensorVar = p.newTensorVar;
            m_usedVars.insert(p.newTensorVar);
            if (!p.attachTo.empty()) m_pendingAttach.emplace_back(p.newStage, p.attachTo);
        }
        if (p.primitive == "compute_at") {
            m_pendingAttach.erase(std::remove_if(m_pendingAttach.begin(), m_pendingAttach.end(),
                                                 [&](auto& pa) { return pa.first == p.stage; }),
                                  m_pendingAttach.end());
        }
        std::size_t before = m_lines.size();
        bindNewLeaves(p);
        if (m_lines.size() != before) {
            EvalResult check = evaluateScript(script());
            if (!check.ok) {
                throw std::logic_error("axis bindings do not evaluate (line " +
                                       num(check.error.loc.line) + ": " + check.error.message +
                                       "):\n" + script());
            }
            m_eval = std::move(check);
        }
        return true;
    }

    // ---- proposals ----

    std::vector<Leaf> leaves(const Stage& st) const
    {
        std::vector<Leaf> out;
        auto it = m_vars.find(st.name());
        if (it == m_vars.end() || !it->second.usable) return out;
        for (auto& iv : st.leafIterVars) {
            auto a = it->second.byAxisName.find(iv->name());
            if (a == it->second.byAxisName.end()) return {};
            const IterVarAttr* attr = st.attr(iv);
            bool attachPoint = false;
            for (auto& other : schedule().stages()) {
                attachPoint |= other.attach == AttachType::Scope && other.attachOp == st.op &&
                               other.attachIvar == iv;
            }
            out.push_back({a->second.var, iv->kind == IterKind::Reduce, a->second.extent,
                           attr ? attr->kind : ForKind::Serial, attachPoint, a->second.symbolic});
        }
        return out;
    }

    const std::string& tensorVar(const std::string& stage) const
    {
        return m_vars.at(stage).tensorVar;
    }

    // Stages with loops that a step can name.
    std::vector<const Stage*> schedulable(bool includeInlined = false) const
    {
        std::vector<const Stage*> out;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder() || (!includeInlined && st.attach == AttachType::Inline))
                continue;
            if (leaves(st).empty()) continue;
            out.push_back(&st);
        }
        return out;
    }

    // Leaves a split or fuse may replace: not a loop another stage is computed at (the attachment
    // would dangle and lowering refuses it, as TVM does), except now and then to exercise that.
    std::vector<Leaf> reshapeable(std::vector<Leaf> ls)
    {
        if (m_rng.chance(0.03)) return ls;
        ls.erase(std::remove_if(ls.begin(), ls.end(), [](const Leaf& l) { return l.attachPoint; }),
                 ls.end());
        return ls;
    }

    // Whether a stage is computed inside `st`'s loops.
    bool hasAttachedStages(const Stage& st) const
    {
        for (auto& other : schedule().stages())
            if (other.attach == AttachType::Scope && other.attachOp == st.op) return true;
        return false;
    }

    std::int64_t pickFactor(std::int64_t extent)
    {
        std::vector<std::int64_t> nonDivisors;
        for (std::int64_t f = 2; f < extent; ++f)
            if (extent % f) nonDivisors.push_back(f);
        int roll = static_cast<int>(m_rng.range(0, 99));
        if (roll < 45 && !nonDivisors.empty()) return m_rng.pick(nonDivisors);
        if (roll < 75 && extent >= 2) return m_rng.range(2, std::min<std::int64_t>(extent, 16));
        if (roll < 85) return extent + m_rng.range(1, 3);
        if (roll < 90) return 1;
        return m_rng.pick(std::vector<std::int64_t>{2, 3, 4, 5, 7, 8, 16});
    }

    std::optional<Proposal> proposeSplit(const Stage& st)
    {
        auto ls = reshapeable(leaves(st));
        if (ls.empty()) return std::nullopt;
        std::vector<Leaf> big;
        for (auto& l : ls)
            if (l.extent >= 2) big.push_back(l);
        const Leaf& l = !big.empty() && !m_rng.chance(0.05) ? m_rng.pick(big) : m_rng.pick(ls);
        Proposal p{"", "split", st.name(), {}, "", "", ""};
        std::string o = freshVar(l.var + "o"), i = freshVar(l.var + "i");
        if (m_rng.chance(0.2)) {
            std::int64_t n = m_rng.range(1, l.extent + 2);
            p.text = statement("split", tensorVar(st.name()), {V{l.var}, {}, V{num(n)}}, {o, i});
            p.newAxes = {{o, n, false}, {i, (l.extent + n - 1) / n, l.symbolic}};
            p.primitive = "split(nparts)";
        } else {
            std::int64_t f = pickFactor(l.extent);
            p.text = statement("split", tensorVar(st.name()), {V{l.var}, V{num(f)}}, {o, i});
            p.newAxes = {{o, (l.extent + f - 1) / f, l.symbolic}, {i, f, false}};
            if (l.extent % f) p.primitive = "split(non-divisible)";
        }
        return p;
    }

    std::optional<Proposal> proposeTile(const Stage& st)
    {
        auto ls = reshapeable(leaves(st));
        std::vector<std::size_t> data;
        for (std::size_t i = 0; i < ls.size(); ++i)
            if (!ls[i].reduce) data.push_back(i);
        if (data.size() < 2) return std::nullopt;
        std::size_t a =
            static_cast<std::size_t>(m_rng.range(0, static_cast<std::int64_t>(data.size()) - 2));
        std::size_t b =
            m_rng.chance(0.8)
                ? a + 1
                : static_cast<std::size_t>(m_rng.range(static_cast<std::int64_t>(a) + 1,
                                                       static_cast<std::int64_t>(data.size()) - 1));
        const Leaf& x = ls[data[a]];
        const Leaf& y = ls[data[b]];
        std::int64_t fx = pickFactor(x.extent), fy = pickFactor(y.extent);
        std::string xo = freshVar(x.var + "o"), yo = freshVar(y.var + "o");
        std::string xi = freshVar(x.var + "i"), yi = freshVar(y.var + "i");
        Proposal p{"", "tile", st.name(), {}, "", "", ""};
        // Now and then the factors positionally, as scripts also write them.
        p.text = m_rng.chance(0.5)
                     ? statement("tile", tensorVar(st.name()),
                                 {V{x.var}, V{y.var}, V{num(fx)}, V{num(fy)}}, {xo, yo, xi, yi})
                     : join({xo, yo, xi, yi}) + " = s[" + tensorVar(st.name()) + "].tile(" + x.var +
                           ", " + y.var + ", " + num(fx) + ", " + num(fy) + ")";
        p.newAxes = {{xo, (x.extent + fx - 1) / fx, x.symbolic},
                     {yo, (y.extent + fy - 1) / fy, y.symbolic},
                     {xi, fx, false},
                     {yi, fy, false}};
        return p;
    }

    std::optional<Proposal> proposeFuse(const Stage& st)
    {
        auto ls = reshapeable(leaves(st));
        if (ls.size() < 2) return std::nullopt;
        std::vector<std::size_t> starts;
        for (std::size_t i = 0; i + 1 < ls.size(); ++i)
            if (ls[i].reduce == ls[i + 1].reduce) starts.push_back(i);
        std::vector<Leaf> chosen;
        if (starts.empty() || m_rng.chance(0.05)) {
            // Occasionally an illegal pair: the evaluator must refuse it.
            std::vector<Leaf> shuffled = ls;
            m_rng.shuffle(shuffled);
            chosen = {shuffled[0], shuffled[1]};
        } else {
            std::size_t s = m_rng.pick(starts);
            chosen = {ls[s], ls[s + 1]};
            if (s + 2 < ls.size() && ls[s + 2].reduce == ls[s].reduce && m_rng.chance(0.25))
                chosen.push_back(ls[s + 2]);
            else if (m_rng.chance(0.15))
                std::swap(chosen[0], chosen[1]); // TVM accepts fuse(inner, outer)
        }
        std::int64_t extent = 1;
        bool symbolic = false;
        std::vector<std::string> names;
        for (auto& c : chosen)
            extent *= c.extent, symbolic |= c.symbolic, names.push_back(c.var);
        std::string f = freshVar(chosen[0].var + "f");
        Proposal p{statement("fuse", tensorVar(st.name()), {names}, {f}),
                   "fuse",
                   st.name(),
                   {{f, extent, symbolic}},
                   "",
                   "",
                   ""};
        return p;
    }

    std::optional<Proposal> proposeReorder(const Stage& st)
    {
        auto ls = leaves(st);
        if (ls.size() < 2) return std::nullopt;
        std::vector<Leaf> pickFrom = ls;
        m_rng.shuffle(pickFrom);
        std::size_t n =
            static_cast<std::size_t>(m_rng.range(2, static_cast<std::int64_t>(ls.size())));
        pickFrom.resize(n);
        std::vector<std::string> names;
        for (auto& l : pickFrom)
            names.push_back(l.var);
        bool reduceMoved =
            std::any_of(pickFrom.begin(), pickFrom.end(), [](const Leaf& l) { return l.reduce; });
        return Proposal{statement("reorder", tensorVar(st.name()), {names}),
                        reduceMoved ? "reorder(with reduction)" : "reorder",
                        st.name(),
                        {},
                        "",
                        "",
                        ""};
    }

    std::optional<Proposal> proposeAnnotation(const Stage& st, const std::string& what)
    {
        auto ls = leaves(st);
        if ((what == "vectorize" || what == "unroll") && !m_rng.chance(0.05)) {
            // A loop of symbolic extent cannot be vectorized or unrolled (lowering says so).
            ls.erase(std::remove_if(ls.begin(), ls.end(), [](const Leaf& l) { return l.symbolic; }),
                     ls.end());
            if (ls.empty()) return std::nullopt;
        }
        std::vector<Leaf> options;
        if (what == "vectorize") {
            if (!ls.back().reduce && ls.back().extent <= 64 && m_rng.chance(0.8))
                options = {ls.back()};
            else
                for (auto& l : ls)
                    if ((!l.reduce || m_rng.chance(0.05)) && l.extent <= 64) options.push_back(l);
        } else if (what == "unroll") {
            for (auto& l : ls)
                if (l.extent <= 16) options.push_back(l);
        } else if (what == "parallel") {
            if (!ls.front().reduce && m_rng.chance(0.6))
                options = {ls.front()};
            else
                for (auto& l : ls)
                    if (!l.reduce || m_rng.chance(0.05)) options.push_back(l);
        } else { // pragma
            options = ls;
        }
        if (options.empty()) return std::nullopt;
        const Leaf& l = m_rng.pick(options);
        std::vector<PrintedArg> args = {V{l.var}};
        std::string primitive = what;
        if (what == "pragma") {
            // The CPU pragmas: unroll and vectorize are the primitives of the same name.
            std::string key;
            PrintedArg value;
            switch (m_rng.range(0, 3)) {
            case 0:
                key = "auto_unroll_max_step";
                value = V{num(m_rng.pick(std::vector<std::int64_t>{0, 4, 16, 64}))};
                break;
            case 1:
                key = "unroll_explicit";
                value = V{num(m_rng.range(0, 1))};
                break;
            case 2: key = "unroll"; break;
            default: key = "vectorize"; break;
            }
            args = {V{l.var}, V{key}, value};
            primitive = "pragma " + key;
        }
        return Proposal{
            statement(what, tensorVar(st.name()), args), primitive, st.name(), {}, "", "", ""};
    }

    // The stages that read `st`, directly or through inlined stages.
    std::vector<const Stage*> consumers(const Stage& st) const
    {
        std::vector<const Stage*> out;
        std::vector<const Stage*> work{&st};
        std::set<const Stage*> seen;
        while (!work.empty()) {
            const Stage* cur = work.back();
            work.pop_back();
            for (int idx : schedule().readers(cur->op)) {
                const Stage* r = &schedule().stages()[static_cast<std::size_t>(idx)];
                if (!seen.insert(r).second) continue;
                if (r->attach == AttachType::Inline)
                    work.push_back(r);
                else
                    out.push_back(r);
            }
        }
        return out;
    }

    std::optional<Proposal> proposeComputeAt(const std::string& producer,
                                             const std::string& consumer)
    {
        const Stage* p = stageNamed(producer);
        const Stage* c = stageNamed(consumer);
        if (!p || !c) return std::nullopt;
        auto ls = leaves(*c);
        if (ls.empty() || m_vars.at(producer).tensorVar.empty()) return std::nullopt;
        const Leaf& axis = m_rng.pick(ls);
        return Proposal{
            statement("compute_at", tensorVar(producer), {V{tensorVar(consumer)}, V{axis.var}}),
            "compute_at",
            producer,
            {},
            "",
            "",
            ""};
    }

    std::optional<Proposal> proposeAttachment(const std::string& what)
    {
        std::vector<const Stage*> producers;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder() || st.isOutput || st.attach == AttachType::Inline) continue;
            if (!m_vars.count(st.name())) continue;
            if (what == "compute_root" && st.attach != AttachType::Scope) continue;
            if (what == "compute_inline" && st.op->isReduction() && !m_rng.chance(0.05)) continue;
            // Inlining a stage that has producers computed in its loops leaves them nowhere.
            if (what == "compute_inline" && hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
            producers.push_back(&st);
        }
        if (producers.empty()) return std::nullopt;
        const Stage* p = m_rng.pick(producers);
        if (what == "compute_at") {
            auto cs = consumers(*p);
            if (cs.empty()) return std::nullopt;
            // With several consumers, the others would read it outside the loop it is computed
            // in, which lowering refuses (the evaluator only checks the one named).
            if (cs.size() > 1 && !m_rng.chance(0.1)) return std::nullopt;
            return proposeComputeAt(p->name(), m_rng.pick(cs)->name());
        }
        return Proposal{statement(what, tensorVar(p->name()), {}), what, p->name(), {}, "", "", ""};
    }

    std::optional<Proposal> proposeCacheWrite()
    {
        std::vector<const Stage*> options;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder() || st.attach == AttachType::Inline || !m_vars.count(st.name()))
                continue;
            bool untouched =
                st.relations.empty() && st.attrs.empty() && st.attach == AttachType::Root;
            // A cache of a stage that has producers computed inside it moves their reader out of
            // the loops they are computed in: lowering refuses that.
            if (hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
            if (untouched || m_rng.chance(0.05)) options.push_back(&st);
        }
        if (options.empty()) return std::nullopt;
        const Stage* st = m_rng.pick(options);
        std::string scope = m_rng.chance(0.6) ? "local" : "global";
        std::string newStage = st->name() + "." + scope;
        if (stageNamed(newStage)) return std::nullopt;
        std::string var = freshVar(identifier(newStage));
        m_usedVars.erase(var);
        return Proposal{statement("cache_write", "", {V{tensorVar(st->name())}, V{scope}}, {var}),
                        "cache_write(" + scope + ")",
                        st->name(),
                        {},
                        newStage,
                        var,
                        m_rng.chance(0.8) ? st->name() : ""};
    }

    std::optional<Proposal> proposeCacheRead()
    {
        std::vector<std::pair<const Stage*, const Stage*>> options; // (read tensor, reader)
        for (auto& st : schedule().stages()) {
            if (st.attach == AttachType::Inline || !m_vars.count(st.name())) continue;
            // The cache would read a stage computed inside its consumer from outside that loop.
            if (st.attach == AttachType::Scope && !m_rng.chance(0.05)) continue;
            for (int idx : schedule().readers(st.op)) {
                const Stage* r = &schedule().stages()[static_cast<std::size_t>(idx)];
                if (m_vars.count(r->name())) options.emplace_back(&st, r);
            }
        }
        if (options.empty()) return std::nullopt;
        auto [src, reader] = m_rng.pick(options);
        std::string scope = m_rng.pick(std::vector<std::string>{"shared", "local", "global"});
        std::string newStage = src->name() + "." + scope;
        if (stageNamed(newStage)) return std::nullopt;
        std::string var = freshVar(identifier(newStage));
        m_usedVars.erase(var);
        // Now and then one reader without the list, as scripts also write it.
        std::string text =
            statement("cache_read", "",
                      {V{tensorVar(src->name())}, V{scope}, V{tensorVar(reader->name())}}, {var});
        if (m_rng.chance(0.5))
            text = text.substr(0, text.rfind('[')) + tensorVar(reader->name()) + ")";
        return Proposal{text,
                        "cache_read(" + scope + ")",
                        src->name(),
                        {},
                        newStage,
                        var,
                        m_rng.chance(0.7) ? reader->name() : ""};
    }

    std::optional<Proposal> proposeRfactor()
    {
        std::vector<std::pair<const Stage*, Leaf>> options;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder() || !st.op->isReduction() || st.attach != AttachType::Root)
                continue;
            if (stageNamed(st.name() + ".rf")) continue;
            // rfactor rebuilds the stage's loops: stages computed at them would dangle.
            if (hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
            for (auto& l : leaves(st))
                if (l.reduce) options.emplace_back(&st, l);
        }
        if (options.empty()) return std::nullopt;
        auto [st, axis] = m_rng.pick(options);
        std::string newStage = st->name() + ".rf";
        std::string var = freshVar(identifier(newStage));
        m_usedVars.erase(var);
        PrintedArg factorAxis;
        if (m_rng.chance(0.3)) factorAxis = V{num(m_rng.range(0, st->op->ndim()))};
        return Proposal{
            statement("rfactor", "", {V{tensorVar(st->name())}, V{axis.var}, factorAxis}, {var}),
            "rfactor",
            st->name(),
            {},
            newStage,
            var,
            m_rng.chance(0.5) ? st->name() : ""};
    }

    // Pads the rows of an intermediate buffer: storage_align(axis, factor, offset) makes the stride
    // of `axis` a multiple of factor plus offset (outputs keep their layout: they are arguments).
    std::optional<Proposal> proposeStorageAlign()
    {
        std::vector<std::pair<const Stage*, std::string>> options;
        for (auto& st : schedule().stages()) {
            if (st.isPlaceholder() || st.attach == AttachType::Inline || st.op->axes.size() < 2)
                continue;
            if (st.isOutput && !m_rng.chance(0.2)) continue;
            auto it = m_vars.find(st.name());
            if (it == m_vars.end() || !it->second.usable) continue;
            // The axis must be a root axis that is still a loop, and not the innermost dimension.
            for (std::size_t d = 0; d + 1 < st.op->axes.size(); ++d) {
                const IterVar& axis = st.op->axes[d];
                auto a = it->second.byAxisName.find(axis->name());
                if (st.leafIndex(axis) >= 0 && a != it->second.byAxisName.end())
                    options.emplace_back(&st, a->second.var);
            }
        }
        if (options.empty()) return std::nullopt;
        auto [st, var] = m_rng.pick(options);
        std::int64_t factor = m_rng.pick(std::vector<std::int64_t>{2, 4, 8, 16, 32});
        std::int64_t offset = m_rng.range(0, factor - 1);
        return Proposal{statement("storage_align", tensorVar(st->name()),
                                  {V{var}, V{num(factor)}, V{num(offset)}}),
                        "storage_align",
                        st->name(),
                        {},
                        "",
                        "",
                        ""};
    }

    std::optional<Proposal> propose()
    {
        if (!m_pendingAttach.empty() && m_rng.chance(0.5)) {
            auto [producer, consumer] = m_rng.pick(m_pendingAttach);
            const Stage* c = stageNamed(consumer);
            const Stage* p = stageNamed(producer);
            // A later cache_write may have moved the reads to another stage.
            bool reads = false;
            if (p && c)
                for (const Stage* r : consumers(*p))
                    reads |= r == c;
            // Usually after a few loop steps on the consumer: then there is a loop to attach to.
            if (reads && m_rng.chance(0.6)) return proposeComputeAt(producer, consumer);
        }
        const std::vector<std::pair<std::string, int>>& choices = primitiveWeights();
        int total = 0;
        for (auto& c : choices)
            total += c.second;
        int roll = static_cast<int>(m_rng.range(0, total - 1));
        std::string what;
        for (auto& c : choices) {
            if (roll < c.second) {
                what = c.first;
                break;
            }
            roll -= c.second;
        }
        if (what == "compute_at" || what == "compute_inline" || what == "compute_root")
            return proposeAttachment(what);
        if (what == "cache_write") return proposeCacheWrite();
        if (what == "cache_read") return proposeCacheRead();
        if (what == "rfactor") return proposeRfactor();
        if (what == "storage_align") return proposeStorageAlign();
        auto stages = schedulable();
        if (stages.empty()) return std::nullopt;
        const Stage& st = *m_rng.pick(stages);
        if (what == "split") return proposeSplit(st);
        if (what == "tile") return proposeTile(st);
        if (what == "fuse") return proposeFuse(st);
        if (what == "reorder") return proposeReorder(st);
        return proposeAnnotation(st, what);
    }

    Rng& m_rng;
    std::string m_prefix;
    std::vector<std::string> m_lines;
    std::vector<std::string> m_primitives;
    EvalResult m_eval;
    std::map<std::string, StageVars> m_vars; // by stage name
    std::set<std::string> m_usedVars;
    std::vector<std::pair<std::string, std::string>> m_pendingAttach; // (new stage, consumer)
};

} // namespace

FuzzCase generateCase(std::uint64_t seed)
{
    Rng rng(seed);
    ElemType t;
    int roll = static_cast<int>(rng.range(0, 99));
    t.name = roll < 64   ? "float32"
             : roll < 79 ? "float64"
             : roll < 92 ? "int32"
             : roll < 96 ? "int64"
                         : "float16";
    // float16 only in elementwise chains: a float16 reduction drifts beyond any fair tolerance.
    ProgramDraft draft = t.name == "float16" ? elementwiseProgram(rng, t) : drawProgram(rng, t);
    CaseBuilder builder(rng, draft);
    builder.build(static_cast<int>(rng.range(3, 10)));
    FuzzCase c;
    c.script = builder.script();
    c.description = "seed " + std::to_string(seed) + ": " + draft.description + " " + t.name +
                    "; steps: " + join(builder.primitives());
    return c;
}

} // namespace loopscope
