// The machine family's fields, written once for both directions: ping (the worker's build, CPU
// and GPU) and machine (the CPU's peak and bandwidth). See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"
#include "protocol/GpuMessages.h"

namespace loopscope::protocol::detail {

template <class V> void fields(V&, PingRequest&) {}

template <class V> void fields(V& v, PingReply& r)
{
    v("version", r.version);
    v("protocol", r.protocol);
    v("commands", r.commands);
    v("triple", r.triple);
    v("cpu", r.cpu);
    v("llvm_cpu", r.llvmCpu);
    v("cpu_note", r.cpuNote);
    v("cpu_name", r.cpuName);
    v("host", r.host);
    v("features", r.features);
    v("vector_bits", r.vectorBits);
    v("llvm", r.llvmVersion);
    v("threads", r.threads);
    v("testing", r.testing);
    v("gpu", r.gpu);
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
