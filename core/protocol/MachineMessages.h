// The machine family's fields, written once for both directions: ping (the worker's build, CPU
// and GPU) and machine (the CPU's peak and bandwidth). See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"
#include "protocol/GpuMessages.h"

namespace loopscope::protocol::detail {

template <class V> void fields(V& v, PingRequest& r)
{
    v("gpu", r.gpu, {.write = r.gpu});
}

// A ping carries these at its top level; a tuning update and a record as "machine". The feature
// string and LLVM's version are left out where unknown (a record keeps neither the features).
template <class V> void fields(V& v, Machine& m)
{
    v("cpu", m.cpu);
    v("cpu_name", m.cpuName);
    v("host", m.host);
    v("features", m.features, {.write = !m.features.empty()});
    v("vector_bits", m.vectorBits);
    v("threads", m.threads);
    v("llvm", m.llvm, {.write = !m.llvm.empty()});
    v("accelerator", m.gpu, {.write = !m.gpu.empty()});
}

template <class V> void fields(V& v, PingReply& r)
{
    v("version", r.version);
    v("protocol", r.protocol);
    v("commands", r.commands);
    v("triple", r.triple);
    fields(v, r.machine);
    v("llvm_cpu", r.llvmCpu);
    v("cpu_note", r.cpuNote);
    v("testing", r.testing);
    v("gpu", r.gpu);
    v("gpu_problem", r.gpuProblem, {.write = !r.gpuProblem.empty()});
}

template <class V> void fields(V& v, MachineRequest& r)
{
    v("threads", r.threads, {.min = 0, .max = kMaxThreads});
}

template <class V> void fields(V& v, MachineReply& r)
{
    v("peak_gflops", r.peakGflops);
    v("vector_bits", r.vectorBits);
    v("bandwidth_gbs", r.bandwidthGbs);
    v("threads", r.threads);
    v("clock_ghz", r.clockGhz);
}

} // namespace loopscope::protocol::detail
