// OpenBLAS as the sweeps' reference line: it computes, and once a call returns its idle threads
// soon stop spinning, so that they do not take a core from the kernel timed next.
#include "runtime/BlasReference.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// Threads of this process other than the calling one that are running or ready to run (state R
// in /proc/self/task/TID/stat).
int otherRunningThreads()
{
    int running = 0;
    const std::string self = std::to_string(gettid());
    DIR* dir = opendir("/proc/self/task");
    if (!dir) return -1;
    while (dirent* e = readdir(dir)) {
        std::string tid = e->d_name;
        if (tid == "." || tid == ".." || tid == self) continue;
        std::ifstream in("/proc/self/task/" + tid + "/stat");
        std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto close = stat.rfind(')'); // the name in parentheses may hold spaces
        if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'R')
            ++running;
    }
    closedir(dir);
    return running;
}

} // namespace

TEST(BlasLibrary, IdleThreadsStopSpinningSoonAfterACall)
{
    if (const char* v = std::getenv("OPENBLAS_THREAD_TIMEOUT"); v && std::string(v) != "19")
        GTEST_SKIP() << "OPENBLAS_THREAD_TIMEOUT is set to " << v;
    const loopscope::BlasLibrary* blas = loopscope::BlasLibrary::openblas();
    if (!blas) GTEST_SKIP() << "libopenblas.so.0 is not installed";
    blas->setThreads(2);
    const int n = 256;
    std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, 0.0f);
    for (int r = 0; r < 3; ++r)
        blas->sgemm(n, n, n, a.data(), b.data(), c.data());
    EXPECT_EQ(c[0], 128.0f);
    EXPECT_EQ(c[n * n - 1], 128.0f);
    // With OpenBLAS's default its worker keeps running for about 0.1 s after the call.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    int running = otherRunningThreads();
    while (running != 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        running = otherRunningThreads();
    }
    EXPECT_EQ(running, 0);
}
