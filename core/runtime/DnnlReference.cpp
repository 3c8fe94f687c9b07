#include "runtime/DnnlReference.h"

#include "ir/IRUtil.h"
#include "runtime/Benchmark.h"
#include "runtime/BlasReference.h"

#include <oneapi/dnnl/dnnl.h>

#include <dlfcn.h>

#include <functional>
#include <mutex>
#include <random>
#include <vector>

namespace loopscope {

namespace {

// The functions used, looked up once.
struct Api {
    decltype(&dnnl_engine_create) engineCreate;
    decltype(&dnnl_engine_destroy) engineDestroy;
    decltype(&dnnl_stream_create) streamCreate;
    decltype(&dnnl_stream_destroy) streamDestroy;
    decltype(&dnnl_stream_wait) streamWait;
    decltype(&dnnl_memory_desc_init_by_tag) mdInit;
    decltype(&dnnl_memory_desc_get_size) mdSize;
    decltype(&dnnl_convolution_forward_desc_init) convInit;
    decltype(&dnnl_primitive_desc_create) pdCreate;
    decltype(&dnnl_primitive_desc_destroy) pdDestroy;
    decltype(&dnnl_primitive_desc_query_md) pdQueryMd;
    decltype(&dnnl_primitive_create) primCreate;
    decltype(&dnnl_primitive_destroy) primDestroy;
    decltype(&dnnl_primitive_execute) execute;
    decltype(&dnnl_memory_create) memCreate;
    decltype(&dnnl_memory_destroy) memDestroy;
    decltype(&dnnl_memory_get_data_handle) memData;
    decltype(&dnnl_version) version;
    decltype(&dnnl_matmul_desc_init) matmulInit = nullptr; // optional: older oneDNN lacks it
    void (*ompSetThreads)(int) = nullptr;
};

Api g_api;

template <typename T> bool bind(void* handle, const char* name, T& out)
{
    out = reinterpret_cast<T>(dlsym(handle, name));
    return out != nullptr;
}

// The value of an index with `v` = value and every other variable 0.
std::int64_t pointValue(const Expr& e, const VarNode* v, std::int64_t value)
{
    if (auto* i = e.as<IntImmNode>()) return i->value;
    if (auto* var = e.as<VarNode>()) return var == v ? value : 0;
    if (auto* c = e.as<CastNode>()) return pointValue(c->value, v, value);
    auto* b = e.as<BinaryNode>();
    if (!b) return 0;
    std::int64_t x = pointValue(b->a, v, value), y = pointValue(b->b, v, value);
    switch (e.kind()) {
    case ExprKind::Add: return x + y;
    case ExprKind::Sub: return x - y;
    case ExprKind::Mul: return x * y;
    default: return 0;
    }
}

// Whether `e` uses only `allowed` variables, each with a constant stride.
bool isVar(const Expr& e, const IterVar& iv)
{
    auto* v = e.as<VarNode>();
    return v && v == iv->var.get();
}

} // namespace

std::optional<Conv2dShape> conv2dShape(const Program& program)
{
    if (program.variants.empty()) return std::nullopt;
    const auto& outputs = program.variants.front().snapshots.front().outputs();
    if (outputs.size() != 1) return std::nullopt;
    Tensor out = outputs.front();
    if (!out->isCompute() || (out->ndim() != 4 && !(out->ndim() == 5 && out->isReduction())) ||
        out->dtype != DataType::float32())
        return std::nullopt;
    // Sums in blocks of output channels (as a model's convolutions are: graph/passes/
    // AlterConvLayout), read back as out[n, f, y, x] = C[n, f // B, y, x, f % B].
    std::int64_t block = 0;
    if (!out->isReduction()) {
        auto* back = out->body.as<TensorLoadNode>();
        if (!back || back->indices.size() != 5 || !back->tensor->isCompute()) return std::nullopt;
        const auto& o = out->axes;
        auto byBlock = [&](const Expr& e, ExprKind kind) -> std::int64_t {
            auto* b = e.as<BinaryNode>();
            auto* c = b ? b->b.as<IntImmNode>() : nullptr;
            return e.kind() == kind && c && isVar(b->a, o[1]) ? c->value : 0;
        };
        block = byBlock(back->indices[1], ExprKind::FloorDiv);
        if (block < 1 || byBlock(back->indices[4], ExprKind::FloorMod) != block ||
            !isVar(back->indices[0], o[0]) || !isVar(back->indices[2], o[2]) ||
            !isVar(back->indices[3], o[3]))
            return std::nullopt;
        out = back->tensor;
        if (out->ndim() != 5 || out->dtype != DataType::float32() ||
            constIntOr(out->shape[4], -1) != block)
            return std::nullopt;
    }
    // The data in blocks of channels too (a model's convolutions between layers: graph/passes/
    // ConvertLayout): in[n, c // Bi, y*s + ky, x*s + kx, c % Bi] as two reduce axes over the
    // channels, rco and rci, and the weights read at [f // B, rco * Bi + rci, ky, kx, f % B].
    const bool blockedData = !block && out->isReduction() && out->ndim() == 5 &&
                             out->reduceAxes.size() == 4 && out->dtype == DataType::float32();
    if (blockedData) block = constIntOr(out->shape[4], -1);
    if (!out->isReduction() || out->reduceAxes.size() != (blockedData ? 4U : 3U) || block < 0)
        return std::nullopt;
    auto* reduce = out->body.as<ReduceNode>();
    if (!reduce || reduce->op != ReduceOp::Sum || reduce->condition.defined()) return std::nullopt;
    auto* mul = reduce->source.as<BinaryNode>();
    if (!mul || reduce->source.kind() != ExprKind::Mul) return std::nullopt;
    auto* a = mul->a.as<TensorLoadNode>();
    auto* b = mul->b.as<TensorLoadNode>();
    if (!a || !b) return std::nullopt;
    const auto& ax = out->axes; // n, f, y, x (n, f // B, y, x, f % B in blocks)
    // c, ky, kx; with the data in blocks rco, rci, ky, kx.
    const auto& r = out->reduceAxes;
    const std::size_t ky = blockedData ? 2 : 1;
    const TensorLoadNode* input = nullptr;
    // The input's channel block: rco * Bi + rci at the weights' channel index.
    std::int64_t inBlock = 0;
    auto isChannel = [&](const Expr& e) {
        if (!blockedData) return isVar(e, r[0]);
        VarSet used;
        collectVars(e, &used);
        inBlock = pointValue(e, r[0]->var.get(), 1);
        return used.size() == 2 && used.count(r[0]->var.get()) && used.count(r[1]->var.get()) &&
               pointValue(e, r[1]->var.get(), 1) == 1 && pointValue(e, r[0]->var.get(), 0) == 0 &&
               inBlock > 1;
    };
    auto isWeight = [&](const TensorLoadNode* l) {
        return l->tensor->isPlaceholder() && l->indices.size() == (block ? 5U : 4U) &&
               isVar(l->indices[0], ax[1]) && isChannel(l->indices[1]) &&
               isVar(l->indices[2], r[ky]) && isVar(l->indices[3], r[ky + 1]) &&
               (!block || isVar(l->indices[4], ax[4]));
    };
    const TensorLoadNode* weight = isWeight(a) ? a : isWeight(b) ? b : nullptr;
    input = weight == a ? b : a;
    if (!weight || input->indices.size() != (blockedData ? 5U : 4U) ||
        !isVar(input->indices[0], ax[0]) || !isVar(input->indices[1], r[0]) ||
        (blockedData &&
         (!isVar(input->indices[4], r[1]) || constIntOr(input->tensor->shape[4], -1) != inBlock)))
        return std::nullopt;
    Conv2dShape s;
    // y*stride + ky: stride from y, and ky with coefficient 1 (no dilation).
    for (int d : {2, 3}) {
        const Expr& idx = input->indices[static_cast<std::size_t>(d)];
        const IterVar& o = ax[static_cast<std::size_t>(d)];
        const IterVar& k = r[ky + static_cast<std::size_t>(d - 2)];
        std::int64_t base = pointValue(idx, o->var.get(), 0);
        std::int64_t stride = pointValue(idx, o->var.get(), 1) - base;
        std::int64_t kstep = pointValue(idx, k->var.get(), 1) - base;
        VarSet used;
        collectVars(idx, &used);
        if (base != 0 || stride < 1 || kstep != 1 || used.size() != 2 ||
            !used.count(o->var.get()) || !used.count(k->var.get()))
            return std::nullopt;
        (d == 2 ? s.strideH : s.strideW) = stride;
    }
    // The input: a placeholder, or a padded copy of one (same batch and channels, each side
    // padded alike).
    Tensor in = input->tensor;
    std::int64_t padH = 0, padW = 0;
    if (!in->isPlaceholder()) {
        auto reads = inputTensors(in);
        const int rank = blockedData ? 5 : 4;
        if (reads.size() != 1 || !reads[0]->isPlaceholder() || reads[0]->ndim() != rank ||
            in->ndim() != rank || in->isReduction())
            return std::nullopt;
        Tensor src = reads[0];
        for (int d : {0, 1, rank == 5 ? 4 : 1})
            if (constIntOr(src->shape[static_cast<std::size_t>(d)], -1) !=
                constIntOr(in->shape[static_cast<std::size_t>(d)], -2))
                return std::nullopt;
        std::int64_t dh = constIntOr(in->shape[2], 0) - constIntOr(src->shape[2], 0);
        std::int64_t dw = constIntOr(in->shape[3], 0) - constIntOr(src->shape[3], 0);
        if (dh < 0 || dw < 0 || dh % 2 || dw % 2) return std::nullopt;
        padH = dh / 2;
        padW = dw / 2;
        in = src;
    }
    s.n = constIntOr(in->shape[0], 0);
    s.c = constIntOr(in->shape[1], 0) * (blockedData ? inBlock : 1);
    s.h = constIntOr(in->shape[2], 0);
    s.w = constIntOr(in->shape[3], 0);
    s.f = constIntOr(weight->tensor->shape[0], 0) * (block ? block : 1);
    s.kh = constIntOr(weight->tensor->shape[2], 0);
    s.kw = constIntOr(weight->tensor->shape[3], 0);
    s.padH = padH;
    s.padW = padW;
    s.oh = constIntOr(out->shape[2], 0);
    s.ow = constIntOr(out->shape[3], 0);
    if (in->dtype != DataType::float32() || weight->tensor->dtype != DataType::float32() ||
        constIntOr(weight->tensor->shape[1], -1) != s.c || s.n <= 0 || s.c <= 0 || s.h <= 0 ||
        s.w <= 0 || s.f <= 0 || s.kh <= 0 || s.kw <= 0 || s.oh <= 0 || s.ow <= 0)
        return std::nullopt;
    // The output must fit the input as padded.
    if ((s.oh - 1) * s.strideH + s.kh > s.h + 2 * s.padH ||
        (s.ow - 1) * s.strideW + s.kw > s.w + 2 * s.padW)
        return std::nullopt;
    return s;
}

std::optional<Int8MatmulShape> int8MatmulShape(const Program& program)
{
    MatmulShape sizes;
    const OperationNode* c = matmulOutput(program, DataType::int32(), &sizes);
    if (!c) return std::nullopt;
    auto* reduce = c->body.as<ReduceNode>();
    auto* mul = reduce ? reduce->source.as<BinaryNode>() : nullptr;
    if (!mul || mul->kind != ExprKind::Mul) return std::nullopt;
    // Each side a read of an 8-bit placeholder, cast to int32.
    auto readOf = [](const Expr& e) -> DataType {
        auto* cast = e.as<CastNode>();
        auto* load = cast ? cast->value.as<TensorLoadNode>() : nullptr;
        if (!load || !load->tensor->isPlaceholder()) return DataType::float32();
        return load->tensor->dtype;
    };
    const DataType a = readOf(mul->a), b = readOf(mul->b);
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1};
    if (!((a == u8 && b == s8) || (a == s8 && b == u8))) return std::nullopt;
    return Int8MatmulShape{sizes.m, sizes.n, sizes.k};
}

std::optional<Conv2dShape> int8Conv2dShape(const Program& program)
{
    if (program.variants.empty()) return std::nullopt;
    const auto& outputs = program.variants.front().snapshots.front().outputs();
    if (outputs.size() != 1) return std::nullopt;
    const Tensor& out = outputs.front();
    if (!out->isCompute() || out->ndim() != 5 || out->reduceAxes.size() != 4 ||
        out->dtype != DataType::int32())
        return std::nullopt;
    auto* reduce = out->body.as<ReduceNode>();
    auto* mul = reduce ? reduce->source.as<BinaryNode>() : nullptr;
    if (!mul || mul->kind != ExprKind::Mul) return std::nullopt;
    auto loadOf = [](const Expr& e) -> const TensorLoadNode* {
        auto* cast = e.as<CastNode>();
        auto* load = cast ? cast->value.as<TensorLoadNode>() : nullptr;
        return load && load->tensor->isPlaceholder() ? load : nullptr;
    };
    const TensorLoadNode* data = loadOf(mul->a);
    const TensorLoadNode* w = loadOf(mul->b);
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1};
    if (!data || !w || data->tensor->dtype != u8 || w->tensor->dtype != s8 ||
        data->tensor->ndim() != 5 || w->tensor->ndim() != 6)
        return std::nullopt;
    auto dim = [](const Tensor& t, int d) { return constIntOr(t->shape[d], 0); };
    const std::int64_t lanes = dim(out, 4);
    if (dim(data->tensor, 4) != 4 || dim(w->tensor, 5) != 4 || dim(w->tensor, 4) != lanes)
        return std::nullopt;
    Conv2dShape sh;
    sh.n = dim(out, 0);
    sh.c = dim(data->tensor, 1) * 4;
    sh.h = dim(data->tensor, 2);
    sh.w = dim(data->tensor, 3);
    sh.f = dim(out, 1) * lanes;
    sh.kh = dim(w->tensor, 2);
    sh.kw = dim(w->tensor, 3);
    sh.oh = dim(out, 2);
    sh.ow = dim(out, 3);
    if (sh.n <= 0 || sh.c <= 0 || sh.f <= 0 || sh.kh <= 0 || sh.kw <= 0 || sh.oh <= 0 ||
        sh.ow <= 0 || dim(w->tensor, 1) * 4 != sh.c)
        return std::nullopt;
    sh.strideH = sh.oh > 1 ? (sh.h - sh.kh) / (sh.oh - 1) : 1;
    sh.strideW = sh.ow > 1 ? (sh.w - sh.kw) / (sh.ow - 1) : 1;
    if (sh.strideH < 1 || sh.strideW < 1 || (sh.oh - 1) * sh.strideH + sh.kh > sh.h ||
        (sh.ow - 1) * sh.strideW + sh.kw > sh.w)
        return std::nullopt;
    return sh;
}

const DnnlLibrary* DnnlLibrary::load()
{
    static std::once_flag once;
    static DnnlLibrary* library = nullptr;
    std::call_once(once, [] {
        void* h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!h) return;
        Api& a = g_api;
        bool ok = bind(h, "dnnl_engine_create", a.engineCreate) &&
                  bind(h, "dnnl_engine_destroy", a.engineDestroy) &&
                  bind(h, "dnnl_stream_create", a.streamCreate) &&
                  bind(h, "dnnl_stream_destroy", a.streamDestroy) &&
                  bind(h, "dnnl_stream_wait", a.streamWait) &&
                  bind(h, "dnnl_memory_desc_init_by_tag", a.mdInit) &&
                  bind(h, "dnnl_memory_desc_get_size", a.mdSize) &&
                  bind(h, "dnnl_convolution_forward_desc_init", a.convInit) &&
                  bind(h, "dnnl_primitive_desc_create", a.pdCreate) &&
                  bind(h, "dnnl_primitive_desc_destroy", a.pdDestroy) &&
                  bind(h, "dnnl_primitive_desc_query_md", a.pdQueryMd) &&
                  bind(h, "dnnl_primitive_create", a.primCreate) &&
                  bind(h, "dnnl_primitive_destroy", a.primDestroy) &&
                  bind(h, "dnnl_primitive_execute", a.execute) &&
                  bind(h, "dnnl_memory_create", a.memCreate) &&
                  bind(h, "dnnl_memory_destroy", a.memDestroy) &&
                  bind(h, "dnnl_memory_get_data_handle", a.memData) &&
                  bind(h, "dnnl_version", a.version);
        if (!ok) return;
        bind(h, "omp_set_num_threads", a.ompSetThreads);
        bind(h, "dnnl_matmul_desc_init", a.matmulInit);
        auto* lib = new DnnlLibrary;
        lib->m_handle = h;
        const dnnl_version_t* v = a.version();
        lib->m_label = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                       std::to_string(v->patch);
        library = lib;
    });
    return library;
}

namespace {

// Times the primitive of an initialized operation descriptor: memories in the layouts it
// chooses, filled by `fill` (bytes, size), with `threads` OpenMP threads (0: all). Negative
// when oneDNN refuses it.
double timePrimitive(const void* desc, int threads, int repeat, double minRepeatMs,
                     const std::function<void(void*, std::size_t)>& fill)
{
    const Api& a = g_api;
    if (threads > 0 && a.ompSetThreads) a.ompSetThreads(threads);
    dnnl_engine_t engine = nullptr;
    dnnl_stream_t stream = nullptr;
    if (a.engineCreate(&engine, dnnl_cpu, 0) != dnnl_success) return -1;
    if (a.streamCreate(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        a.engineDestroy(engine);
        return -1;
    }
    double ms = -1;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_t prim = nullptr;
    std::vector<dnnl_memory_t> memories;
    if (a.pdCreate(&pd, desc, nullptr, engine, nullptr) == dnnl_success &&
        a.primCreate(&prim, pd) == dnnl_success) {
        dnnl_exec_arg_t args[3];
        const std::pair<int, dnnl_query_t> roles[3] = {{DNNL_ARG_SRC, dnnl_query_src_md},
                                                       {DNNL_ARG_WEIGHTS, dnnl_query_weights_md},
                                                       {DNNL_ARG_DST, dnnl_query_dst_md}};
        bool ok = true;
        for (int i = 0; i < 3 && ok; ++i) {
            const dnnl_memory_desc_t* md = a.pdQueryMd(pd, roles[i].second, 0);
            dnnl_memory_t mem = nullptr;
            ok = md && a.memCreate(&mem, md, engine, DNNL_MEMORY_ALLOCATE) == dnnl_success;
            if (!ok) break;
            memories.push_back(mem);
            void* data = nullptr;
            a.memData(mem, &data);
            fill(data, a.mdSize(md));
            args[i] = {roles[i].first, mem};
        }
        if (ok) {
            auto run = [&] {
                a.execute(prim, stream, 3, args);
                a.streamWait(stream);
            };
            run();
            BenchmarkOptions options;
            options.repeat = repeat;
            options.minRepeatMs = minRepeatMs;
            ms = measure(run, options).median;
        }
    }
    for (auto m : memories)
        a.memDestroy(m);
    if (prim) a.primDestroy(prim);
    if (pd) a.pdDestroy(pd);
    a.streamDestroy(stream);
    a.engineDestroy(engine);
    return ms;
}

} // namespace

namespace {

// The convolution's descriptor in these types, the layouts oneDNN's choice.
bool convDesc(const Conv2dShape& s, dnnl_data_type_t src, dnnl_data_type_t wei,
              dnnl_data_type_t dst, dnnl_convolution_desc_t* desc)
{
    const Api& a = g_api;
    dnnl_dims_t srcDims = {s.n, s.c, s.h, s.w}, weiDims = {s.f, s.c, s.kh, s.kw},
                dstDims = {s.n, s.f, s.oh, s.ow};
    dnnl_dims_t strides = {s.strideH, s.strideW}, padL = {s.padH, s.padW};
    dnnl_dims_t padR = {(s.oh - 1) * s.strideH + s.kh - s.h - s.padH,
                        (s.ow - 1) * s.strideW + s.kw - s.w - s.padW};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    a.mdInit(&srcMd, 4, srcDims, src, dnnl_format_tag_any);
    a.mdInit(&weiMd, 4, weiDims, wei, dnnl_format_tag_any);
    a.mdInit(&dstMd, 4, dstDims, dst, dnnl_format_tag_any);
    return a.convInit(desc, dnnl_forward_inference, dnnl_convolution_direct, &srcMd, &weiMd,
                      nullptr, &dstMd, strides, padL, padR) == dnnl_success;
}

} // namespace

double DnnlLibrary::int8ConvMs(const Conv2dShape& s, int threads, int repeat,
                               double minRepeatMs) const
{
    dnnl_convolution_desc_t desc;
    if (!convDesc(s, dnnl_u8, dnnl_s8, dnnl_s32, &desc)) return -1;
    std::mt19937 rng(1);
    return timePrimitive(&desc, threads, repeat, minRepeatMs, [&](void* data, std::size_t bytes) {
        auto* b = static_cast<unsigned char*>(data);
        for (std::size_t k = 0; k < bytes; ++k)
            b[k] = static_cast<unsigned char>(rng() & 0x3f);
    });
}

double DnnlLibrary::convMs(const Conv2dShape& s, int threads, int repeat, double minRepeatMs) const
{
    dnnl_convolution_desc_t desc;
    if (!convDesc(s, dnnl_f32, dnnl_f32, dnnl_f32, &desc)) return -1;
    // Seeded values in [-1, 1).
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1, 1);
    return timePrimitive(&desc, threads, repeat, minRepeatMs, [&](void* data, std::size_t bytes) {
        auto* f = static_cast<float*>(data);
        for (std::size_t k = 0, n = bytes / sizeof(float); k < n; ++k)
            f[k] = u(rng);
    });
}

double DnnlLibrary::int8MatmulMs(const Int8MatmulShape& s, int threads, int repeat,
                                 double minRepeatMs) const
{
    const Api& a = g_api;
    if (!a.matmulInit) return -1;
    dnnl_dims_t src = {s.m, s.k}, wei = {s.k, s.n}, dst = {s.m, s.n};
    dnnl_memory_desc_t srcMd, weiMd, dstMd;
    a.mdInit(&srcMd, 2, src, dnnl_u8, dnnl_ab);
    a.mdInit(&weiMd, 2, wei, dnnl_s8, dnnl_format_tag_any);
    a.mdInit(&dstMd, 2, dst, dnnl_s32, dnnl_ab);
    dnnl_matmul_desc_t desc;
    if (a.matmulInit(&desc, &srcMd, &weiMd, nullptr, &dstMd) != dnnl_success) return -1;
    // Seeded bytes small enough that no int32 sum overflows.
    std::mt19937 rng(1);
    return timePrimitive(&desc, threads, repeat, minRepeatMs, [&](void* data, std::size_t bytes) {
        auto* b = static_cast<unsigned char*>(data);
        for (std::size_t k = 0; k < bytes; ++k)
            b[k] = static_cast<unsigned char>(rng() & 0x3f);
    });
}

} // namespace loopscope
