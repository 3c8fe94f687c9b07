// `loopscope-cli profile`: where a variant's time goes. The variant is compiled with line
// information, run again and again while the process is sampled by the CPU clock, and its printed
// loop nest comes out with each line's share of the samples and each loop's (its body's and its
// own), the samples outside the kernel (the thread pool waiting, the rest) counted apart, and the
// hardware counters where the machine has them.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace loopscope {

class Jit;
struct Program;
struct Variant;

struct ProfileArgs {
    std::string file;
    std::map<std::string, std::int64_t> symbols; // te.var sizes
    double seconds = 1;                          // of sampling, at least
    bool json = false;
};

// The exit code: 0, or 1 when the variant cannot run or nothing can be sampled.
int runProfileCommand(const ProfileArgs& args, const Program& program, const Variant& variant,
                      Jit& jit);

} // namespace loopscope
