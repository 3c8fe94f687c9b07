#include "runtime/Profiler.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <sstream>

namespace loopscope {

namespace {

long perfEventOpen(perf_event_attr* attr, pid_t tid, int cpu, int group, unsigned long flags)
{
    return syscall(SYS_perf_event_open, attr, tid, cpu, group, flags);
}

// A disabled event of one thread, counting user space only; with a sample period, sampling
// instruction addresses. The descriptor, or -1 with errno set.
long openThreadEvent(std::uint32_t type, std::uint64_t config, pid_t tid,
                     std::uint64_t samplePeriod = 0)
{
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    if (samplePeriod > 0) {
        a.sample_period = samplePeriod;
        a.sample_type = PERF_SAMPLE_IP;
    }
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    return perfEventOpen(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

// The process's threads, as the kernel lists them now.
std::vector<pid_t> processThreads()
{
    std::vector<pid_t> tids;
    if (DIR* d = opendir("/proc/self/task")) {
        while (dirent* e = readdir(d))
            if (e->d_name[0] != '.') tids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
        closedir(d);
    }
    if (tids.empty()) tids.push_back(static_cast<pid_t>(syscall(SYS_gettid)));
    return tids;
}

// ---- the profiling timer's samples (the fallback) ----

constexpr std::size_t kTimerSamples = std::size_t{1} << 20;
std::uintptr_t g_timerSamples[kTimerSamples];
std::atomic<std::size_t> g_timerCount{0};

void onProfilingSignal(int, siginfo_t*, void* context)
{
    auto* uc = static_cast<ucontext_t*>(context);
    const std::size_t i = g_timerCount.fetch_add(1, std::memory_order_relaxed);
    if (i < kTimerSamples)
        g_timerSamples[i] = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
}

} // namespace

// One thread's perf event and its ring buffer of samples.
struct Sampler::Stream {
    int fd = -1;
    void* map = nullptr;
    std::size_t mapBytes = 0;
    std::size_t pageBytes = 0;

    ~Stream()
    {
        if (map) munmap(map, mapBytes);
        if (fd >= 0) close(fd);
    }

    // Appends the samples written since the last drain.
    void drain(std::vector<std::uintptr_t>& out, std::int64_t& lost)
    {
        auto* meta = static_cast<perf_event_mmap_page*>(map);
        const auto* data = static_cast<const unsigned char*>(map) + pageBytes;
        const std::uint64_t size = mapBytes - pageBytes;
        const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        std::uint64_t tail = meta->data_tail;
        auto copy = [&](std::uint64_t at, void* to, std::size_t n) {
            for (std::size_t i = 0; i < n; ++i)
                static_cast<unsigned char*>(to)[i] = data[(at + i) % size];
        };
        while (tail < head) {
            perf_event_header h;
            copy(tail, &h, sizeof h);
            if (h.size < sizeof h) break;
            if (h.type == PERF_RECORD_SAMPLE) {
                std::uint64_t ip = 0;
                copy(tail + sizeof h, &ip, sizeof ip);
                out.push_back(static_cast<std::uintptr_t>(ip));
            } else if (h.type == PERF_RECORD_LOST) {
                std::uint64_t record[2] = {0, 0}; // id, lost
                copy(tail + sizeof h, record, sizeof record);
                lost += static_cast<std::int64_t>(record[1]);
            }
            tail += h.size;
        }
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    }
};

Sampler::Sampler(double periodUs) : m_periodUs(periodUs) {}

Sampler::~Sampler()
{
    stop();
    for (Stream* s : m_streams)
        delete s;
}

bool Sampler::start(std::string* why)
{
    m_addresses.clear();
    m_lost = 0;
    const long page = sysconf(_SC_PAGESIZE);
    int refusal = 0;
    for (pid_t tid : processThreads()) {
        const long fd = openThreadEvent(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, tid,
                                        static_cast<std::uint64_t>(m_periodUs * 1000));
        if (fd < 0) {
            refusal = errno;
            continue;
        }
        auto* s = new Stream;
        s->fd = static_cast<int>(fd);
        s->pageBytes = static_cast<std::size_t>(page);
        s->mapBytes = static_cast<std::size_t>(page) * (1 + 256); // 1 MB of samples a thread
        s->map = mmap(nullptr, s->mapBytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
        if (s->map == MAP_FAILED) {
            s->map = nullptr;
            refusal = errno;
            delete s;
            continue;
        }
        m_streams.push_back(s);
    }
    if (!m_streams.empty()) {
        for (Stream* s : m_streams) {
            ioctl(s->fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
        }
        m_threads = static_cast<int>(m_streams.size());
        m_method = "perf_event_open, software task clock, one sample every " +
                   std::to_string(static_cast<int>(m_periodUs)) + " us of a thread's CPU time";
        return true;
    }
    // The profiling timer: SIGPROF every period of the process's CPU time.
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onProfilingSignal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    g_timerCount = 0;
    itimerval t;
    const long us = std::max(1000L, static_cast<long>(m_periodUs));
    t.it_interval = {us / 1000000, us % 1000000};
    t.it_value = t.it_interval;
    if (sigaction(SIGPROF, &sa, nullptr) != 0 || setitimer(ITIMER_PROF, &t, nullptr) != 0) {
        *why = std::string("cannot sample: perf_event_open refused (") + std::strerror(refusal) +
               ") and the profiling timer could not be set";
        return false;
    }
    m_timer = true;
    m_threads = static_cast<int>(processThreads().size());
    m_method = "setitimer (ITIMER_PROF), one sample every " + std::to_string(us) +
               " us of the process's CPU time (perf events refused: " + std::strerror(refusal) +
               ")";
    return true;
}

void Sampler::stop()
{
    if (m_timer) {
        itimerval off{};
        setitimer(ITIMER_PROF, &off, nullptr);
        signal(SIGPROF, SIG_IGN);
        const std::size_t n = std::min(g_timerCount.load(), kTimerSamples);
        m_addresses.insert(m_addresses.end(), g_timerSamples, g_timerSamples + n);
        if (g_timerCount > kTimerSamples)
            m_lost += static_cast<std::int64_t>(g_timerCount - kTimerSamples);
        m_timer = false;
        return;
    }
    for (Stream* s : m_streams) {
        ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
        s->drain(m_addresses, m_lost);
        delete s;
    }
    m_streams.clear();
}

double LineProfile::lineShare(int line) const
{
    if (line < 1 || line > static_cast<int>(lineSamples.size()) || inKernel == 0) return 0;
    return static_cast<double>(lineSamples[static_cast<std::size_t>(line - 1)]) /
           static_cast<double>(inKernel);
}

double LineProfile::loopShare(int line) const
{
    if (line < 1 || line > static_cast<int>(loopSamples.size()) || inKernel == 0) return 0;
    return static_cast<double>(loopSamples[static_cast<std::size_t>(line - 1)]) /
           static_cast<double>(inKernel);
}

LineProfile attributeSamples(const KernelLines& lines, const std::vector<std::uintptr_t>& samples)
{
    LineProfile p;
    p.tir = lines.tir;
    std::vector<std::string> text;
    {
        std::istringstream in(lines.tir);
        for (std::string l; std::getline(in, l);)
            text.push_back(l);
    }
    const std::size_t n = text.size();
    p.lineSamples.assign(n, 0);
    p.loopSamples.assign(n, 0);
    p.isLoop.assign(n, false);
    // Each line's enclosing loops, by indentation.
    std::vector<std::vector<std::size_t>> enclosing(n);
    std::vector<std::pair<std::size_t, std::size_t>> open; // (indent, line index) of for lines
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t indent = text[i].find_first_not_of(' ');
        if (indent == std::string::npos) continue;
        while (!open.empty() && open.back().first >= indent)
            open.pop_back();
        for (auto& [ind, line] : open)
            enclosing[i].push_back(line);
        if (text[i].compare(indent, 4, "for ") == 0) {
            p.isLoop[i] = true;
            enclosing[i].push_back(i); // a loop's own line counts for it
            open.emplace_back(indent, i);
        }
    }
    // Code on no line (the prologue and epilogue the compiler adds) is the function's own: its
    // samples are charged to the `def` line, so the lines' shares add up to the kernel's.
    std::size_t defLine = n;
    for (std::size_t i = 0; i < n && defLine == n; ++i) {
        const std::size_t indent = text[i].find_first_not_of(' ');
        if (indent != std::string::npos && text[i].compare(indent, 4, "def ") == 0) defLine = i;
    }
    p.samples = static_cast<std::int64_t>(samples.size());
    p.instructionSamples.assign(lines.instructionOffsets.size(), 0);
    for (std::uintptr_t a : samples) {
        if (!lines.contains(a)) continue;
        ++p.inKernel;
        // A timer sample's address is where the thread goes on: the instruction after the one
        // it was waiting on (its "skid"). The sample is the instruction's before it.
        std::uintptr_t at = a;
        const int k = lines.instructionAt(a);
        if (k > 0 && a == lines.codeStart + lines.instructionOffsets[static_cast<std::size_t>(k)])
            at = lines.codeStart + lines.instructionOffsets[static_cast<std::size_t>(k - 1)];
        const int charged = lines.instructionAt(at);
        if (charged >= 0) ++p.instructionSamples[static_cast<std::size_t>(charged)];
        int line = lines.lineAt(at);
        if ((line < 1 || line > static_cast<int>(n)) && defLine < n)
            line = static_cast<int>(defLine) + 1;
        if (line < 1 || line > static_cast<int>(n)) continue;
        ++p.lineSamples[static_cast<std::size_t>(line - 1)];
        for (std::size_t loop : enclosing[static_cast<std::size_t>(line - 1)])
            ++p.loopSamples[loop];
    }
    return p;
}

bool profileRuns(const JitKernel& kernel, const std::function<void()>& run, double seconds,
                 int minRuns, LineProfile* profile, std::string* why)
{
    if (!kernel.lines()) {
        *why = "the kernel was compiled without line information";
        return false;
    }
    run(); // the thread pool's threads exist from here on, and are sampled
    Sampler sampler(kProfilePeriodUs);
    if (!sampler.start(why)) return false;
    const auto t0 = std::chrono::steady_clock::now();
    int runs = 0;
    double elapsed = 0;
    do {
        run();
        ++runs;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < seconds || runs < minRuns);
    sampler.stop();
    *profile = attributeSamples(*kernel.lines(), sampler.addresses());
    profile->method = sampler.method();
    profile->threads = sampler.threads();
    profile->runs = runs;
    profile->seconds = elapsed;
    profile->lost = sampler.lost();
    return true;
}

HardwareCounts countHardwareEvents(const std::function<void()>& work)
{
    HardwareCounts c;
    struct Event {
        std::uint32_t type;
        std::uint64_t config;
        double* into;
        bool* have;
        std::vector<int> fds;
    };
    const std::uint64_t l1dMiss = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    const std::uint64_t llcMiss = PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
    bool always = true;
    std::vector<Event> events{
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, &c.cycles, &always, {}},
        {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, &c.instructions, &always, {}},
        {PERF_TYPE_HW_CACHE, l1dMiss, &c.l1dMisses, &c.haveL1d, {}},
        {PERF_TYPE_HW_CACHE, llcMiss, &c.llcMisses, &c.haveLlc, {}}};
    int refusal = 0;
    for (Event& e : events) {
        for (pid_t tid : processThreads()) {
            const long fd = openThreadEvent(e.type, e.config, tid);
            if (fd < 0) {
                refusal = errno;
                break;
            }
            e.fds.push_back(static_cast<int>(fd));
        }
    }
    if (events[0].fds.empty() || events[1].fds.empty()) {
        for (Event& e : events)
            for (int fd : e.fds)
                close(fd);
        c.why = refusal == ENOENT || refusal == EOPNOTSUPP || refusal == ENODEV
                    ? "this machine exposes no hardware performance counters (a virtual machine "
                      "without a virtual PMU, for instance): no IPC or miss rates"
                    : std::string("hardware performance counters are refused here (") +
                          std::strerror(refusal) + "; see /proc/sys/kernel/perf_event_paranoid)";
        work();
        return c;
    }
    for (Event& e : events)
        for (int fd : e.fds) {
            ioctl(fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        }
    work();
    for (Event& e : events) {
        if (!e.fds.empty() && e.have != &always) *e.have = true;
        for (int fd : e.fds) {
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
            std::uint64_t v = 0;
            if (read(fd, &v, sizeof v) == sizeof v) *e.into += static_cast<double>(v);
            close(fd);
        }
    }
    c.available = true;
    return c;
}

} // namespace loopscope
