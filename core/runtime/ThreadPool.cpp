#include "runtime/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace loopscope {

namespace {

using Body = void (*)(std::int64_t, std::int64_t, void*);

thread_local bool t_insideParallel = false;

class Pool {
public:
    ~Pool()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (auto& t : m_workers) t.join();
    }

    void setThreads(int n)
    {
        std::lock_guard<std::mutex> lock(m_run);
        m_threads = n;
    }

    int threads() const
    {
        int n = m_threads;
        if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        return n;
    }

    void run(std::int64_t n, Body body, void* closure)
    {
        if (n <= 0) return;
        int want = threads();
        if (t_insideParallel || want <= 1 || n == 1) {
            body(0, n, closure);
            return;
        }
        std::lock_guard<std::mutex> runLock(m_run);  // one parallel loop at a time
        int tasks = static_cast<int>(std::min<std::int64_t>(want, n));
        ensureWorkers(tasks - 1);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_body = body;
            m_closure = closure;
            m_n = n;
            m_tasks = tasks;
            m_pending = tasks - 1;
            ++m_generation;
        }
        m_wake.notify_all();
        t_insideParallel = true;
        runTask(0);
        t_insideParallel = false;
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done.wait(lock, [&] { return m_pending == 0; });
    }

private:
    void runTask(int task)
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
            m_workers.emplace_back([this, index] { workerLoop(index); });
        }
    }

    void workerLoop(int task)
    {
        t_insideParallel = true;
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
                if (m_stop) return;
                seen = m_generation;
                if (task >= m_tasks) continue;
            }
            runTask(task);
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                if (--m_pending == 0) m_done.notify_one();
            }
        }
    }

    std::mutex m_run;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::vector<std::thread> m_workers;
    std::atomic<int> m_threads{0};
    bool m_stop = false;
    std::uint64_t m_generation = 0;
    Body m_body = nullptr;
    void* m_closure = nullptr;
    std::int64_t m_n = 0;
    int m_tasks = 0;
    int m_pending = 0;
};

Pool& pool()
{
    static Pool p;
    return p;
}

}  // namespace

void setParallelThreads(int threads) { pool().setThreads(threads); }
int parallelThreads() { return pool().threads(); }

}  // namespace loopscope

extern "C" void loopscope_parallel_for(std::int64_t n, void (*body)(std::int64_t, std::int64_t, void*),
                                       void* closure)
{
    loopscope::pool().run(n, body, closure);
}
