// Many workers measuring candidates at once: each one started by the same command, on this
// machine (`--runners 2`) or on others ("ssh node7 loopscope-worker", "srun -N1 -n1
// loopscope-worker"), each compiling, running, checking and timing the candidates it is given.
// The search and the cost model stay with the caller. Every runner takes the next candidate as
// soon as it is free; a runner that ends or hangs while it has one (killed, its node gone, its
// link cut) costs that candidate one measurement: it is measured again on another runner, and
// counts as crashed only when it ends that one too. A runner that cannot be started again is
// set aside, and the others go on.
#pragma once

#include "tune/Measure.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace loopscope {

class RunnerPool : public Measurer {
public:
    // `count` runners, each started by `argv` with `environment` added; `command` is how notes
    // name them (the user's own words).
    RunnerPool(std::vector<std::string> argv, int count, std::vector<std::string> environment,
               std::string command);
    ~RunnerPool() override;
    RunnerPool(const RunnerPool&) = delete;
    RunnerPool& operator=(const RunnerPool&) = delete;

    // Starts every runner and asks each what it is (at once). The first to answer sets the kind;
    // one of another kind, or one that cannot be started, is set aside with a note. `problem` is
    // set when none is left, or when one is of another build (a version the host refuses).
    MachineInfo machine() override;
    MeasureOutcome measure(const protocol::MeasureRequest& request) override;
    void measureBatch(const std::vector<protocol::MeasureRequest>& requests,
                      const std::function<void(std::size_t, const MeasureOutcome&)>& done,
                      const std::function<bool()>& keepGoing) override;
    int runners() const override;
    // Each runner (a worker) is asked what GPU its own GPU runner has; those whose GPU differs
    // from the first's are set aside, as another CPU is. Before the first machine().
    void askForGpu() override;

    // Called (from any thread, one at a time) with each note as it happens: a runner set aside,
    // a candidate measured again elsewhere.
    void onNote(std::function<void(const std::string&)> note) { m_note = std::move(note); }
    void setTimeoutMs(double ms);

    struct RunnerStats {
        std::string host;
        int measured = 0;  // candidates it finished
        int lost = 0;      // candidates it ended or hung on
        double busyMs = 0; // measuring
        bool setAside = false;
    };
    std::vector<RunnerStats> stats() const;

private:
    struct Batch;
    struct Job {
        const protocol::MeasureRequest* request = nullptr;
        std::size_t index = 0;
        Batch* batch = nullptr;
        int avoid = -1;   // the runner it was lost on
        std::string lost; // how
    };
    struct Runner;

    void work(int runner);
    bool takeJob(int runner, Job* job);
    void finish(const Job& job, MeasureOutcome outcome);
    int liveRunners() const;
    void note(const std::string& text);

    std::vector<std::unique_ptr<Runner>> m_runners;
    std::string m_command;
    std::vector<std::thread> m_threads;
    mutable std::mutex m_mutex;
    std::condition_variable m_work; // a job was queued, or the pool stops
    std::condition_variable m_done; // a job finished
    std::deque<Job> m_queue;
    bool m_stopping = false;
    bool m_started = false;
    bool m_settled = false; // every runner has answered, and the kind is chosen
    MachineInfo m_machine;
    std::function<void(const std::string&)> m_note;
};

// The argv that runs a user's command: /bin/sh -c COMMAND.
std::vector<std::string> shellCommand(const std::string& command);

// What measures candidates: the worker `worker` (with a second one compiling ahead where there is
// a core to spare), or a pool of `runners` workers at once, each started by the command `runner`
// or, without one, the worker here. `environment`: NAME=VALUE for each.
std::unique_ptr<Measurer> makeMeasurer(const std::string& worker, const std::string& runner,
                                       int runners, std::vector<std::string> environment = {});

} // namespace loopscope
