#include "tune/RunnerPool.h"

#include <chrono>
#include <set>

namespace loopscope {

std::vector<std::string> shellCommand(const std::string& command)
{
    return {"/bin/sh", "-c", command};
}

std::unique_ptr<Measurer> makeMeasurer(const std::string& worker, const std::string& runner,
                                       int runners, std::vector<std::string> environment)
{
    if (runner.empty() && runners <= 1)
        return std::make_unique<WorkerMeasurer>(worker, std::move(environment));
    if (runner.empty())
        return std::make_unique<RunnerPool>(std::vector<std::string>{worker}, runners,
                                            std::move(environment), "loopscope-worker");
    return std::make_unique<RunnerPool>(shellCommand(runner), std::max(1, runners),
                                        std::move(environment), runner);
}

struct RunnerPool::Batch {
    std::vector<std::pair<std::size_t, MeasureOutcome>> finished; // not yet handed over
    std::size_t outstanding = 0;                                  // queued or being measured
};

struct RunnerPool::Runner {
    Runner(std::vector<std::string> argv, std::vector<std::string> environment, std::string name)
        : measurer(std::move(argv), std::move(environment), std::move(name))
    {
    }
    WorkerMeasurer measurer;
    MachineInfo machine;
    RunnerStats stats;
    bool asked = false; // it has said what it is (or failed to)
    std::string name() const
    {
        return "runner " + std::to_string(index + 1) +
               (stats.host.empty() ? std::string() : " (" + stats.host + ")");
    }
    int index = 0;
};

RunnerPool::RunnerPool(std::vector<std::string> argv, int count,
                       std::vector<std::string> environment, std::string command)
    : m_command(std::move(command))
{
    for (int i = 0; i < std::max(1, count); ++i) {
        auto r = std::make_unique<Runner>(
            argv, environment, "runner " + std::to_string(i + 1) + " ('" + m_command + "')");
        r->index = i;
        m_runners.push_back(std::move(r));
    }
}

RunnerPool::~RunnerPool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_work.notify_all();
    for (auto& t : m_threads)
        t.join();
}

void RunnerPool::setTimeoutMs(double ms)
{
    for (auto& r : m_runners)
        r->measurer.setTimeoutMs(ms);
}

void RunnerPool::note(const std::string& text)
{
    if (m_note) m_note(text);
}

int RunnerPool::runners() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return liveRunners();
}

int RunnerPool::liveRunners() const
{
    int n = 0;
    for (auto& r : m_runners)
        n += r->stats.setAside ? 0 : 1;
    return n;
}

std::vector<RunnerPool::RunnerStats> RunnerPool::stats() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<RunnerStats> out;
    for (auto& r : m_runners)
        out.push_back(r->stats);
    return out;
}

MachineInfo RunnerPool::machine()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_started) {
        m_done.wait(lock, [&] { return m_settled; });
        return m_machine;
    }
    m_started = true;
    // Each runner is started, asked what it is and later restarted by a thread of its own (a
    // worker goes when the thread that started it ends: PR_SET_PDEATHSIG), all at once: a runner
    // on a busy cluster may take seconds to start.
    for (auto& r : m_runners)
        m_threads.emplace_back([this, i = r->index] { work(i); });
    m_done.wait(lock, [&] {
        for (auto& r : m_runners)
            if (!r->asked) return false;
        return true;
    });
    const Runner* first = nullptr;
    std::string firstProblem;
    for (auto& r : m_runners) {
        r->stats.host = r->machine.host;
        if (!r->machine.problem.empty() || r->machine.cpu.empty()) {
            const std::string why =
                r->machine.problem.empty() ? "it did not answer" : r->machine.problem;
            if (firstProblem.empty()) firstProblem = why;
            r->stats.setAside = true;
            // Another build: the host refuses it, and so the whole run (its numbers would not
            // be this build's).
            if (r->machine.problemKind == MachineInfo::Problem::OtherBuild &&
                m_machine.problem.empty()) {
                m_machine.problem = why;
                m_machine.problemKind = MachineInfo::Problem::OtherBuild;
            }
            note(r->name() + " set aside: " + why);
            continue;
        }
        if (!first) {
            first = r.get();
            continue;
        }
        if (!sameMachineKind(first->machine, r->machine)) {
            r->stats.setAside = true;
            note(r->name() + " set aside: it is " + describeMachine(r->machine) + ", not " +
                 describeMachine(first->machine) + " as " + first->name() +
                 " is; candidates of one task are measured on one kind of machine");
        }
    }
    if (m_machine.problem.empty() && !first) {
        m_machine.problem = "no runner could be started with '" + m_command + "'" +
                            (firstProblem.empty() ? "" : ": " + firstProblem);
        m_machine.problemKind = MachineInfo::Problem::Unavailable;
    }
    if (m_machine.problem.empty()) {
        m_machine = first->machine;
        std::set<std::string> hosts;
        std::string hostList;
        for (auto& r : m_runners)
            if (!r->stats.setAside && hosts.insert(r->machine.host).second)
                hostList += (hostList.empty() ? "" : ", ") + r->machine.host;
        m_machine.host = hostList;
    }
    m_settled = true;
    // Those set aside end their threads; the others wait for candidates.
    m_work.notify_all();
    m_done.notify_all();
    return m_machine;
}

void RunnerPool::askForGpu()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& r : m_runners)
        r->measurer.askForGpu();
}

bool RunnerPool::takeJob(int runner, Job* job)
{
    const bool alone = liveRunners() <= 1;
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
        // Not again on the runner it was lost on, unless that is the only one left.
        if (it->avoid == runner && !alone) continue;
        *job = std::move(*it);
        m_queue.erase(it);
        return true;
    }
    return false;
}

void RunnerPool::finish(const Job& job, MeasureOutcome outcome)
{
    job.batch->finished.emplace_back(job.index, std::move(outcome));
    --job.batch->outstanding;
    m_done.notify_all();
}

void RunnerPool::work(int index)
{
    Runner& runner = *m_runners[static_cast<std::size_t>(index)];
    const MachineInfo machine = runner.measurer.machine();
    std::unique_lock<std::mutex> lock(m_mutex);
    runner.machine = machine;
    runner.asked = true;
    m_done.notify_all();
    m_work.wait(lock, [&] { return m_settled || m_stopping; });
    if (runner.stats.setAside) return;
    while (true) {
        Job job;
        m_work.wait(lock, [&] { return m_stopping || takeJob(index, &job); });
        if (!job.batch) return; // stopping
        lock.unlock();
        const auto t0 = std::chrono::steady_clock::now();
        MeasureOutcome outcome = runner.measurer.measure(*job.request);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        lock.lock();
        runner.stats.busyMs += ms;
        if (outcome.unavailable) {
            // It cannot be started again (its allocation ended, its node is gone): set aside,
            // and its candidate goes to another.
            runner.stats.setAside = true;
            note(runner.name() + " set aside: " + outcome.message);
            if (liveRunners() == 0) {
                const std::string why = "no runner is left: " + outcome.message;
                std::deque<Job> left;
                left.swap(m_queue);
                left.push_front(job);
                for (auto& j : left) {
                    MeasureOutcome none = outcome;
                    none.message = why;
                    finish(j, none);
                }
            } else {
                m_queue.push_front(job);
                m_work.notify_all();
            }
            return;
        }
        if (outcome.runnerLost && job.lost.empty() && liveRunners() > 1) {
            // The candidate's code, or the runner? Another runner tells.
            ++runner.stats.lost;
            job.avoid = index;
            job.lost = runner.name() + ": " + outcome.message;
            note(runner.name() + " ended or hung with a candidate (" + outcome.message +
                 "): it is measured again on another runner");
            m_queue.push_front(job);
            m_work.notify_all();
            continue;
        }
        if (outcome.runnerLost && !job.lost.empty())
            outcome.message += "; before that on " + job.lost;
        ++runner.stats.measured;
        outcome.host = runner.machine.host;
        finish(job, std::move(outcome));
    }
}

void RunnerPool::measureBatch(const std::vector<protocol::MeasureRequest>& requests,
                              const std::function<void(std::size_t, const MeasureOutcome&)>& done,
                              const std::function<bool()>& keepGoing)
{
    const MachineInfo m = machine();
    if (!m.problem.empty()) {
        MeasureOutcome none;
        none.message = m.problem;
        none.unavailable = true;
        for (std::size_t i = 0; i < requests.size(); ++i)
            done(i, none);
        return;
    }
    Batch batch;
    std::unique_lock<std::mutex> lock(m_mutex);
    if (liveRunners() == 0) {
        lock.unlock();
        MeasureOutcome none;
        none.message = "no runner is left";
        none.unavailable = true;
        for (std::size_t i = 0; i < requests.size(); ++i)
            done(i, none);
        return;
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
        Job job;
        job.request = &requests[i];
        job.index = i;
        job.batch = &batch;
        m_queue.push_back(job);
    }
    batch.outstanding = requests.size();
    m_work.notify_all();
    while (true) {
        m_done.wait_for(lock, std::chrono::milliseconds(100),
                        [&] { return !batch.finished.empty() || batch.outstanding == 0; });
        std::vector<std::pair<std::size_t, MeasureOutcome>> ready;
        ready.swap(batch.finished);
        const bool over = batch.outstanding == 0;
        lock.unlock();
        for (auto& [index, outcome] : ready)
            done(index, outcome);
        const bool stop = !over && keepGoing && !keepGoing();
        lock.lock();
        if (over && batch.finished.empty()) return;
        if (stop) {
            // Those not started are not measured; those under way are waited for.
            for (auto it = m_queue.begin(); it != m_queue.end();) {
                if (it->batch == &batch) {
                    it = m_queue.erase(it);
                    --batch.outstanding;
                } else {
                    ++it;
                }
            }
        }
    }
}

MeasureOutcome RunnerPool::measure(const protocol::MeasureRequest& request)
{
    MeasureOutcome result;
    measureBatch({request}, [&](std::size_t, const MeasureOutcome& o) { result = o; }, {});
    return result;
}

} // namespace loopscope
