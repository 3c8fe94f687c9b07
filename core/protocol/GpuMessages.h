// The GPU family's fields, written once for both directions: gpu_run, answered by the GPU
// runner, and the device it reports. See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"

namespace loopscope::protocol::detail {

template <class V> void fields(V& v, GpuDevice& d)
{
    v("name", d.name);
    v("compute_capability", d.computeCapability);
    v("multiprocessors", d.multiprocessors);
    v("driver", d.driverVersion);
    v("shared_per_block", d.sharedPerBlock);
    v("max_threads_per_block", d.maxThreadsPerBlock);
    v("clock_mhz", d.clockMhz, {.write = d.clockMhz > 0});
    v("memory_clock_mhz", d.memoryClockMhz, {.write = d.memoryClockMhz > 0});
}

// A grid's or a block's [x, y, z] (1 for each when absent).
template <class V> void dims(V& v, const char* name, std::array<std::int64_t, 3>& out)
{
    if constexpr (!V::kReading) {
        v(name, out);
    } else {
        const Fields& f = v.in();
        const json* x = f.find(name);
        if (!x) return;
        if (!x->is_array() || x->size() != 3)
            f.fail(std::string("\"") + name + "\" must be [x, y, z]");
        for (std::size_t i = 0; i < 3; ++i) {
            const json& d = (*x)[i];
            if (!d.is_number_integer() || d.get<std::int64_t>() < 1 ||
                d.get<std::int64_t>() > 2147483647)
                f.fail(std::string("\"") + name + "\" must be three integers of at least 1");
            out[i] = d.get<std::int64_t>();
        }
    }
}

// Sizes read as numbers (the JSON of a list of integers), each checked by `valid`.
template <class V, class T, class Valid>
void sizes(V& v, const char* name, std::vector<T>& out, Valid valid, const std::string& message)
{
    if constexpr (!V::kReading) {
        v(name, out);
    } else {
        for (double d : v.in().numbers(name)) {
            if (!valid(d)) v.in().fail(message);
            out.push_back(static_cast<T>(d));
        }
    }
}

template <class V> void fields(V& v, GpuBuffer& b)
{
    v("name", b.name);
    v("dtype", b.dtype);
    sizes(
        v, "shape", b.shape,
        [](double d) { return !(d < 0 || d != static_cast<double>(static_cast<std::int64_t>(d))); },
        "a buffer's \"shape\" must be sizes");
    v("seed", b.seed);
    v("returned", b.returned, {.write = b.returned});
}

template <class V> void fields(V& v, GpuLaunch& l, std::size_t buffers)
{
    v("kernel", l.kernel, {.required = ", the kernel's name"});
    dims(v, "grid", l.grid);
    dims(v, "block", l.block);
    v("shared_bytes", l.sharedBytes, {.min = 0, .max = 1 << 30});
    sizes(
        v, "buffers", l.buffers,
        [&](double d) {
            return !(d < 0 || d >= static_cast<double>(buffers) ||
                     d != static_cast<double>(static_cast<int>(d)));
        },
        "a launch's \"buffers\" must be indices of the request's buffers");
    sizes(
        v, "sizes", l.sizes, [](double) { return true; }, "");
}

template <class V> void fields(V& v, GpuGemm& g, int lastBuffer)
{
    v("m", g.m, {.min = 1, .max = 1 << 30});
    v("n", g.n, {.min = 1, .max = 1 << 30});
    v("k", g.k, {.min = 1, .max = 1 << 30});
    v("a", g.a, {.min = 0, .max = lastBuffer});
    v("b", g.b, {.min = 0, .max = lastBuffer});
    v("c", g.c, {.min = 0, .max = lastBuffer});
    v("trans_a", g.transA);
    v("trans_b", g.transB);
}

template <class V> void fields(V& v, GpuConv& c)
{
    for (auto [name, value] : {std::pair{"n", &c.n},
                               {"c", &c.c},
                               {"h", &c.h},
                               {"w", &c.w},
                               {"k", &c.k},
                               {"r", &c.r},
                               {"s", &c.s}})
        v(name, *value, {.min = 1, .max = std::int64_t{1} << 24});
    v("pad_h", c.padH, {.min = 0, .max = 1024});
    v("pad_w", c.padW, {.min = 0, .max = 1024});
    v("stride_h", c.strideH, {.min = 1, .max = 1024});
    v("stride_w", c.strideW, {.min = 1, .max = 1024});
}

template <class V> void fields(V& v, GpuRunRequest& r)
{
    v("ptx", r.ptx, {.required = ", the kernels' PTX"});
    v("buffers", r.buffers);
    v.list("launches", r.launches, [&](auto& l, GpuLaunch& x) { fields(l, x, r.buffers.size()); });
    v.require(!r.launches.empty(), "\"launches\" must name at least one kernel to launch");
    v("warmup", r.warmup, {.min = 0, .max = 1000});
    v("number", r.number, {.min = 0, .max = 1000000});
    v("repeat", r.repeat, {.min = 0, .max = kMaxRepeat});
    v("device", r.device, {.min = 0, .max = 64});
    if (v.present("cublas", r.cublas.has_value())) {
        if (!r.cublas) r.cublas.emplace();
        const int last = static_cast<int>(r.buffers.size()) - 1;
        v.object("cublas", [&](auto& g) { fields(g, *r.cublas, last); });
    }
    if (v.present("cudnn", r.cudnn.has_value())) {
        if (!r.cudnn) r.cudnn.emplace();
        v.object("cudnn", [&](auto& c) { fields(c, *r.cudnn); });
    }
    v("copy_bytes", r.copyBytes,
      {.min = 0, .max = std::int64_t{1} << 36, .write = r.copyBytes > 0});
}

template <class V> void fields(V& v, GpuKernelInfo& k)
{
    v("name", k.name);
    v("registers", k.registers);
    v("local_bytes", k.localBytes);
    v("shared_bytes", k.sharedBytes);
    v("max_threads_per_block", k.maxThreadsPerBlock);
    v("blocks_per_sm", k.blocksPerSm);
}

template <class V> void fields(V& v, GpuRunReply& r)
{
    v("device", r.device);
    v("kernels", r.kernels);
    v("ms", r.ms);
    v("outputs", Base64List{r.outputs});
    v("log", r.log);
    v("cublas_ms", r.cublasMs);
    v("cublas", r.cublas);
    v("cublas_note", r.cublasNote);
    v("cudnn_ms", r.cudnnMs, {.write = !r.cudnnMs.empty()});
    v("cudnn", r.cudnn, {.write = !r.cudnn.empty()});
    v("cudnn_note", r.cudnnNote, {.write = !r.cudnnNote.empty()});
    v("copy_ms", r.copyMs, {.write = !r.copyMs.empty()});
}

} // namespace loopscope::protocol::detail
