// The size at which a GPU variant is checked on a machine without a GPU. Its kernels then run on
// this CPU with their threads as loops, far slower than a GPU runs them, so a GPU sample at its
// size (a 2048^3 matmul) would take minutes. The script's size parameters are halved, each while
// its value stays a multiple of every constant factor of the variant's splits it was a multiple
// of (so that what divides what, and so which tiles are whole, stays as written), until the
// operation count is within a budget the CPU finishes in about a second. A parameter whose value
// changes no operation count (a thread count, a tile size) is left as written.
#pragma once

#include "te/Program.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace loopscope {

// Operations a CPU checks a GPU variant's kernels in within about a second.
constexpr double kCpuCheckFlops = 5e8;

struct CpuCheckSize {
    std::map<std::string, std::int64_t> values; // every parameter's value for the check
    std::string text;                           // the changed ones: "N=128"
    EvalResult evaluated;                       // the script at those values
};

class GpuRunner;

// Where `variant` is run with `gpu` (null: none): the sizes to check it at on this CPU when it
// binds GPU threads and `gpu` has no GPU to run it on (cpuCheckSize); nullopt otherwise.
std::optional<CpuCheckSize> cpuCheckSizeWithoutGpu(const std::string& source,
                                                   const std::map<std::string, std::int64_t>& given,
                                                   const Program& program, const Variant& variant,
                                                   GpuRunner* gpu);

// The sizes to check `variant` of `source` at (the script evaluated at `given`, which `program`
// is) on this CPU; nullopt when it is small enough as it is, or when no parameter can be
// halved.
std::optional<CpuCheckSize> cpuCheckSize(const std::string& source,
                                         const std::map<std::string, std::int64_t>& given,
                                         const Program& program, const Variant& variant,
                                         double budgetFlops = kCpuCheckFlops);

} // namespace loopscope
