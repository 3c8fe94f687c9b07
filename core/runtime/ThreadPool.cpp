#include "runtime/ThreadPool.h"

#include "ir/Host.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace loopscope {

namespace {

using Body = void (*)(std::int64_t, std::int64_t, void*);

thread_local bool t_insideParallel = false;

inline void cpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// How long a thread spins before it sleeps, waiting for the next loop (a worker) or for the
// others to finish (the caller). Generated code enters parallel loops back to back (a packing
// loop, then the compute loop; or the same kernel timed again): a futex wake-up costs tens of
// microseconds on a virtual machine, a spinning thread sees the store at once.
constexpr auto kSpinTime = std::chrono::microseconds(200);

// How many KeepPoolAwake are alive: while any is, a waiting thread keeps spinning.
std::atomic<int> g_keptAwake{0};

// A word threads wait on: spin first, then sleep in the kernel (Linux futex); wakers make the
// system call only when somebody sleeps.
class WaitWord {
public:
    std::uint32_t load() const { return m_value.load(std::memory_order_acquire); }
    void store(std::uint32_t v) { m_value.store(v, std::memory_order_release); }
    // Sequentially consistent with the sleepers' count: a waker that sees no sleeper changed the
    // value before any sleeper looked at it, so no sleeper misses the change.
    std::uint32_t add(std::uint32_t d)
    {
        return m_value.fetch_add(d, std::memory_order_seq_cst) + d;
    }
    std::uint32_t sub(std::uint32_t d)
    {
        return m_value.fetch_sub(d, std::memory_order_seq_cst) - d;
    }

    void wakeAll()
    {
        if (m_sleepers.load(std::memory_order_seq_cst) == 0) return;
        syscall(SYS_futex, &m_value, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
    }

    // Returns the value once it differs from `old`.
    std::uint32_t awaitChange(std::uint32_t old)
    {
        auto deadline = std::chrono::steady_clock::time_point{};
        for (unsigned i = 0;; ++i) {
            std::uint32_t now = load();
            if (now != old) return now;
            cpuRelax();
            if (i % 64 == 63) {
                auto t = std::chrono::steady_clock::now();
                if (deadline == std::chrono::steady_clock::time_point{} ||
                    g_keptAwake.load(std::memory_order_relaxed) > 0)
                    deadline = t + kSpinTime;
                else if (t > deadline)
                    break;
            }
        }
        for (;;) {
            m_sleepers.fetch_add(1, std::memory_order_seq_cst);
            std::uint32_t now = m_value.load(std::memory_order_seq_cst);
            if (now == old)
                syscall(SYS_futex, &m_value, FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
            m_sleepers.fetch_sub(1, std::memory_order_seq_cst);
            now = load();
            if (now != old) return now;
        }
    }

private:
    alignas(64) std::atomic<std::uint32_t> m_value{0};
    std::atomic<int> m_sleepers{0};
};

// Every worker takes part in every loop (those beyond the loop's task count only acknowledge
// it), so a loop is over for everybody before the next one is published.
class Pool {
public:
    ~Pool()
    {
        m_stop.store(true, std::memory_order_release);
        m_generation.add(1);
        m_generation.wakeAll();
        for (auto& t : m_workers)
            t.join();
    }

    void setThreads(int n) { m_threads = n; }

    int threads() const
    {
        int n = m_threads;
        return n > 0 ? n : usableCores(); // read once
    }

    void run(std::int64_t n, Body body, void* closure)
    {
        if (n <= 0) return;
        int want = threads();
        if (t_insideParallel || want <= 1 || n == 1) {
            body(0, n, closure);
            return;
        }
        std::lock_guard<std::mutex> runLock(m_run); // one parallel loop at a time
        int tasks = static_cast<int>(std::min<std::int64_t>(want, n));
        ensureWorkers(tasks - 1);
        m_body = body;
        m_closure = closure;
        m_n = n;
        m_tasks = tasks;
        m_pending.store(static_cast<std::uint32_t>(m_workers.size()));
        m_generation.add(1); // publishes the fields above
        m_generation.wakeAll();
        t_insideParallel = true;
        runTask(0);
        t_insideParallel = false;
        for (std::uint32_t left = m_pending.load(); left != 0; left = m_pending.load())
            m_pending.awaitChange(left);
    }

private:
    void runTask(int task) const
    {
        std::int64_t chunk = m_n / m_tasks, rest = m_n % m_tasks;
        std::int64_t begin = task * chunk + std::min<std::int64_t>(task, rest);
        std::int64_t end = begin + chunk + (task < rest ? 1 : 0);
        if (begin < end) m_body(begin, end, m_closure);
    }

    void ensureWorkers(int count)
    {
        while (static_cast<int>(m_workers.size()) < count) {
            int index = static_cast<int>(m_workers.size()) + 1;
            std::uint32_t current = m_generation.load();
            m_workers.emplace_back([this, index, current] { workerLoop(index, current); });
        }
    }

    void workerLoop(int task, std::uint32_t seen)
    {
        t_insideParallel = true;
        for (;;) {
            seen = m_generation.awaitChange(seen);
            if (m_stop.load(std::memory_order_acquire)) return;
            if (task < m_tasks) runTask(task);
            if (m_pending.sub(1) == 0) m_pending.wakeAll();
        }
    }

    std::mutex m_run;
    std::vector<std::thread> m_workers;
    std::atomic<int> m_threads{0};
    std::atomic<bool> m_stop{false};
    WaitWord m_generation; // bumped to publish a loop
    WaitWord m_pending;    // workers yet to finish it
    // The loop being run: written by the caller before m_generation changes, read after.
    Body m_body = nullptr;
    void* m_closure = nullptr;
    std::int64_t m_n = 0;
    int m_tasks = 0;
};

Pool& pool()
{
    static Pool p;
    return p;
}

} // namespace

KeepPoolAwake::KeepPoolAwake()
{
    g_keptAwake.fetch_add(1, std::memory_order_relaxed);
}

KeepPoolAwake::~KeepPoolAwake()
{
    g_keptAwake.fetch_sub(1, std::memory_order_relaxed);
}

void setParallelThreads(int threads)
{
    pool().setThreads(threads);
}
int parallelThreads()
{
    return pool().threads();
}

} // namespace loopscope

extern "C" void loopscope_parallel_for(std::int64_t n,
                                       void (*body)(std::int64_t, std::int64_t, void*),
                                       void* closure)
{
    loopscope::pool().run(n, body, closure);
}
