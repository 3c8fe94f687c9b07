// Machine reference figures for the charts: the peak float32 GFLOPS of the host (an FMA kernel in
// its widest vectors on N threads) and its memory bandwidth (a STREAM-like triad on arrays much
// larger than the caches), and a bound no honest measurement of the peak can exceed.
#pragma once

#include <string>

namespace loopscope {

struct PeakFlops {
    double gflops = 0;
    int threads = 1;
    int vectorBits = 128; // the width that reached it: 512 (AVX-512), 256 (AVX2+FMA) or 128
};

struct Bandwidth {
    double gbPerS = 0; // triad: a[i] = b[i] + s * c[i], 24 bytes per element (STREAM convention)
    int threads = 1;
    double megabytes = 0; // of the three arrays together
};

// The peak of uint8 x int8 multiply-adds into int32 (what int8 matmuls and convolutions do), in
// giga-operations per second (a multiply-add is 2), and the instructions that reached it.
struct PeakInt8 {
    double gops = 0;
    int threads = 1;
    std::string how; // "vpdpbusd, 512-bit (AVX512-VNNI)", "vpmaddubsw + vpmaddwd, 256-bit", ...
};

// threads <= 0: every hardware thread.
PeakFlops measurePeakFlops(int threads = 0);
// The widest dot-product instructions the host has: AVX512-VNNI, AVX-VNNI, else AVX-512BW's or
// AVX2's pmaddubsw + pmaddwd (+ an add), else SSSE3's; the faster of 512 and 256 bits where
// both exist.
PeakInt8 measurePeakInt8(int threads = 0);
Bandwidth measureTriadBandwidth(int threads = 0, double megabytes = 384);

// The host's clock in GHz as the kernel reports it (cpufreq's maximum, else /proc/cpuinfo), 0
// when unknown.
double hostClockGhz();
// The widest float vector the host's FMA kernel can use: 512 with AVX-512, 256 with AVX2+FMA,
// else 128. (measurePeakFlops also times 256 bits where 512 run as two halves.)
int hostVectorBits();
// An upper bound for measurePeakFlops: threads x clock (with a 2x margin for boost over the
// reported clock) x lanes x 2 FMA units x 2 operations per FMA. Assumes 4 GHz when the clock is
// unknown.
double peakFlopsBoundGflops(int threads, int vectorBits);

} // namespace loopscope
