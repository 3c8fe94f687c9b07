#include "tune/Tuner.h"

#include "explore/TensorIRTranslation.h"
#include "ir/GpuTarget.h"

#include "lower/Lower.h"
#include "tune/CostModel.h"
#include "tune/Features.h"
#include "tune/Space.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>

namespace loopscope {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string stepsKey(const std::vector<NamedStep>& steps)
{
    std::string key;
    for (auto& s : steps)
        key += describe(s) + ";";
    return key;
}

// A candidate of this run: where it came from, its steps, its features and predicted score.
struct Candidate {
    int sketch = -1;
    Knobs knobs;
    std::vector<NamedStep> steps;
    std::string key;
    FeatureRows features;
    double score = 0;
};

const char* const kCandidateVariant = "tuning candidate";

} // namespace

std::string tunedVariantName(const std::string& start, const std::vector<std::string>& taken)
{
    std::string base = "tuned from " + start;
    std::string name = base;
    for (int n = 2; std::find(taken.begin(), taken.end(), name) != taken.end(); ++n)
        name = base + " " + std::to_string(n);
    return name;
}

const TuneRecord* bestRecord(const std::vector<TuneRecord>& records, const std::string& workload,
                             const std::map<std::string, std::int64_t>& sizes)
{
    // A candidate measured again later (the end of a run re-measures the best) counts by its
    // latest measurement.
    std::unordered_map<std::string, const TuneRecord*> latest;
    for (auto& r : records)
        if (r.workload == workload && r.sizes == sizes) latest[stepsKey(r.steps)] = &r;
    const TuneRecord* best = nullptr;
    for (auto& [key, r] : latest) {
        (void)key;
        if (r->ok() && r->checked && (!best || r->msMedian < best->msMedian)) best = r;
    }
    return best;
}

namespace {

// One tuning run: its state, and its parts in the order run() calls them: the start and its
// sketches, the log read back, rounds of search (an evolutionary search ranked by the cost model,
// then an eps-greedy pick) and measurement, and the best few measured again.
class TuneRun {
public:
    TuneRun(const std::string& script, const TuneOptions& options, Measurer& measurer,
            ThroughputModel& model, const std::function<void(const TuneProgress&)>& progress,
            const std::function<bool()>& cancelled)
        : m_script(script), m_options(options), m_measurer(measurer), m_model(model),
          m_progress(progress), m_cancelled(cancelled), m_rng(options.seed)
    {
    }

    TuneOutcome run()
    {
        if (!prepare()) return std::move(m_out);
        learnFromLog();
        retrain();
        if (m_options.roundOnly) return writeRound();
        int emptyRounds = 0;
        while (budgetLeft() && !isCancelled())
            if (!round(&emptyRounds)) break;
        m_out.cancelled = isCancelled();
        if (!m_out.cancelled && m_options.remeasureTop > 0 && m_haveBest) remeasureBest();
        m_out.haveBest = m_haveBest;
        if (m_haveBest) {
            m_out.best = m_best;
            if (m_tensorIRStart) {
                m_out.bestStatements = tensorIRStatements(m_best.steps);
            } else {
                Realized written = replaySteps(*m_start, m_best.steps, true);
                m_out.bestStatements = written.ok ? written.statements : m_best.statements;
            }
        }
        m_out.ok = true;
        report(TuneProgress::Phase::Done, nullptr);
        return std::move(m_out);
    }

private:
    bool isCancelled() const { return m_cancelled && m_cancelled(); }

    // The script with the candidate as its last variant: the start's block with the steps
    // after it; for a tir.Schedule start, a TE schedule of what it declares.
    std::string candidateScript(const std::vector<std::string>& statements) const
    {
        if (!m_tensorIRStart)
            return scriptWithVariant(m_script, *m_start, kCandidateVariant, statements, true);
        std::string out;
        std::istringstream in(m_script);
        int n = 0;
        for (std::string line; std::getline(in, line) && ++n <= m_tensorIRStart->lastLine;)
            out += line + "\n";
        out += std::string("\n# variant: ") + kCandidateVariant + "\n" + m_declared.scheduleVar +
               " = te.create_schedule([" + m_outputOps + "])\n";
        for (const std::string& st : statements)
            out += st + "\n";
        return out;
    }

    // The best steps as the tir.Schedule calls that make their loop nest, for a variant that
    // started as one (empty, with a note, where they have no translation).
    std::vector<std::string> tensorIRStatements(const std::vector<NamedStep>& steps)
    {
        Variant tuned = m_declared;
        StepReplay replay(m_declared, true);
        for (const NamedStep& s : steps) {
            if (!replay.apply(s)) return {};
            Step step;
            step.primitive = s.primitive;
            step.stage = s.stage;
            step.loc = m_tensorIRStart->loc;
            tuned.steps.push_back(step);
            tuned.snapshots.push_back(replay.schedule());
        }
        std::vector<std::string> taken = m_tensorIRStart->names;
        const std::string sch =
            m_tensorIRStart->scheduleVar.empty() ? "sch" : m_tensorIRStart->scheduleVar;
        const TirTranslation t = translateToTensorIR(
            tuned, m_tensorIRStart->snapshots.front().tensorIR()->spelling, taken, sch);
        if (!t.ok) {
            m_out.notes.push_back("the best schedule has no tir.Schedule form: " + t.error.message);
            return {};
        }
        return t.statements;
    }

    // The script evaluated, the starting variant, the machine and the sketches; false (with
    // the outcome's error) when there is nothing to tune.
    bool prepare()
    {
        m_eval = evaluateScript(m_script, m_options.sets);
        if (!m_eval.ok) {
            m_out.error = "line " + std::to_string(m_eval.error.loc.line) + ":" +
                          std::to_string(m_eval.error.loc.col) + ": " + m_eval.error.message;
            return false;
        }
        const Program& program = m_eval.program;
        if (program.variants.empty()) {
            m_out.error = "the script has no variant to tune (no te.create_schedule)";
            return false;
        }
        m_start = m_options.variant.empty() ? &program.variants.front()
                                            : program.findVariant(m_options.variant);
        if (!m_start) {
            m_out.error = "no variant '" + m_options.variant + "'";
            return false;
        }
        if (m_start->snapshots.front().tensorIR()) {
            // A tir.Schedule variant: the search schedules the computation it declares, and
            // its answer is written back as tir.Schedule calls (explore/TensorIRTranslation.h).
            m_tensorIRStart = m_start;
            m_declared = declaration(*m_start);
            if (m_declared.scheduleVar.empty()) m_declared.scheduleVar = "sch";
            // Its candidates are TE schedules of the script's own tensors.
            for (const Tensor& t : m_declared.snapshots.front().outputs()) {
                std::string var;
                for (const auto& [name, tensor] : m_declared.tensorVars)
                    if (tensor == t->name) var = name;
                if (var.empty()) {
                    m_out.error = "variant '" + m_start->name + "' schedules '" + t->name +
                                  "', which no variable of the script holds (a TVMScript "
                                  "module's buffer): tuning a TensorIR variant needs its "
                                  "te.compute declarations";
                    return false;
                }
                m_outputOps += (m_outputOps.empty() ? "" : ", ") + var + ".op";
            }
            m_start = &m_declared;
        }
        m_gpu = tunesGpuKernels(*m_start) || isGpuTarget(m_options.target);
        if (m_gpu && !m_tensorIRStart) {
            // GPU kernels are searched from the computation, as Ansor's and MetaSchedule's
            // searches are: the start's own binds and tiles would leave nothing to search.
            if (!m_start->steps.empty())
                m_out.notes.push_back("the search for GPU kernels starts from the declaration "
                                      "of variant '" +
                                      m_start->name + "', its " +
                                      std::to_string(m_start->steps.size()) +
                                      " steps replaced by the candidates'");
            m_declared = declaration(*m_start);
            m_start = &m_declared;
        }
        m_out.startVariant = m_start->name;
        // A GPU search's records are apart from a CPU search's of the same computation.
        m_out.workload = workloadKey(*m_start) + (m_gpu ? "-gpu" : "");
        for (auto& p : program.parameters)
            m_sizes[p.name] = p.value;
        if (m_options.roundOnly && !m_gpu) {
            m_out.error = "rounds written for a GPU to time are of GPU kernels: variant '" +
                          m_out.startVariant + "' has no GPU target and binds no GPU thread";
            return false;
        }
        if (m_gpu && !m_options.roundOnly) m_measurer.askForGpu();
        if (m_options.roundOnly) {
            // Measured elsewhere: the machine is the GPU that timed the earlier rounds.
            static_cast<protocol::Machine&>(m_out.machine) = m_options.roundsMachine;
        } else {
            m_out.machine = m_measurer.machine();
        }
        if (!m_out.machine.problem.empty()) {
            m_out.error = m_out.machine.problem;
            return false;
        }
        if (m_gpu && !m_options.roundOnly && !m_out.machine.gpuDevice) {
            m_out.error =
                "the GPU kernels of variant '" + m_out.startVariant +
                "' are timed on a GPU, and there is none here (" +
                (m_out.machine.gpuProblem.empty() ? "the measurer has none"
                                                  : m_out.machine.gpuProblem) +
                "): tune where loopscope-runner finds a GPU, or give the command that "
                "starts it (Run ▸ Settings, GPU runner command, in the window; tune --runner "
                "'ssh gpu1 loopscope-runner' or 'srun --gres=gpu:1 loopscope-runner'), "
                "or write rounds for a GPU that batch jobs reach (tune --rounds-out "
                "DIR)";
            return false;
        }
        if (m_gpu) {
            // The device's limits where it is known (rounds are written for a GPU not asked).
            GpuLimits limits;
            if (const auto& d = m_out.machine.gpuDevice) {
                if (d->maxThreadsPerBlock > 0) limits.maxThreadsPerBlock = d->maxThreadsPerBlock;
                if (d->sharedPerBlock > 0) limits.maxSharedBytes = d->sharedPerBlock;
            }
            m_space.gpu = limits;
        }
        m_space.forbidden = m_options.forbidden;
        // What has no tir.Schedule translation yet stays out of a TensorIR variant's search.
        if (m_tensorIRStart) m_space.forbidden.insert({"rfactor", "pragma"});
        m_space.vectorLanes = std::max(4, m_out.machine.vectorBits / 32);
        m_space.vectorRegisters = vectorRegistersFor(m_out.machine.vectorBits);
        m_space.cores =
            m_options.threads > 0 ? m_options.threads : std::max(1, m_out.machine.threads);
        std::string why;
        m_sketches = generateSketches(*m_start, m_space, &why);
        if (m_sketches.empty()) {
            m_out.error = why;
            return false;
        }
        m_planned = m_options.trials;
        m_batchSize = m_options.batch > 0 ? m_options.batch
                      : m_planned > 0     ? std::clamp(m_planned / 4, 8, 32)
                                          : 16;
        // Every runner gets two candidates a round, so that none waits out a round idle.
        if (m_options.batch <= 0) m_batchSize = std::max(m_batchSize, 2 * m_measurer.runners());
        return true;
    }

    // Features of a schedule, or false when it cannot be lowered.
    bool featuresOf(const Schedule& sch, FeatureRows* rows)
    {
        auto t = Clock::now();
        bool ok = true;
        try {
            const Stmt structured = lowerStructure(sch);
            // A block's shared memory past the GPU's is never measured.
            if (m_space.gpu && gpuSharedBytes(structured) > m_space.gpu->maxSharedBytes) {
                m_out.times.featureMs += msSince(t);
                return false;
            }
            *rows = extractFeatures(structured, m_gpu);
        } catch (const UserError&) {
            ok = false;
        } catch (const InternalError&) {
            ok = false;
        }
        m_out.times.featureMs += msSince(t);
        return ok && rows->rows > 0;
    }

    // Training data: every record of this workload (other sizes warm the model up).
    void learnFrom(const TuneRecord& r, const FeatureRows* rows)
    {
        if (r.featuresVersion != kFeatureVersion && r.featuresVersion != 0) return;
        FeatureRows f;
        if (rows) {
            f = *rows;
        } else {
            Realized replay = replaySteps(*m_start, r.steps, false);
            if (!replay.ok || !featuresOf(replay.schedule, &f)) return;
        }
        m_trainRows.push_back(std::move(f));
        m_trainY.push_back(r.ok() && r.checked ? 1000.0 / r.msMedian : 0.0);
    }

    void consider(const TuneRecord& r)
    {
        if (r.ok() && r.checked && (!m_haveBest || r.msMedian < m_best.msMedian)) {
            m_best = r;
            m_haveBest = true;
        }
    }

    // The log's records of this workload train the model; with resume, those of these sizes on
    // this machine count as measured.
    void learnFromLog()
    {
        if (m_options.logPath.empty()) return;
        LogContents log = readLog(m_options.logPath);
        if (!log.problems.empty()) {
            std::string aside = setAsideCorruptLog(m_options.logPath, log.records);
            m_out.notes.push_back(std::to_string(log.problems.size()) + " line(s) of " +
                                  m_options.logPath + " were not tuning records (" +
                                  log.problems.front() + ")" +
                                  (aside.empty() ? "" : "; the file was kept as " + aside));
        }
        int warm = 0;
        std::map<std::string, int> elsewhere; // records of other machine kinds, by kind
        for (auto& r : log.records) {
            if (r.workload != m_out.workload) continue;
            // The cost model learns per machine kind: another CPU's times rank candidates
            // by another machine's limits.
            if (!sameMachineKind(r.machine, m_out.machine)) {
                protocol::Machine kind = r.machine;
                kind.host.clear();
                if (kind.threads <= 0) kind.threads = r.threads;
                ++elsewhere[describeMachine(kind)];
                continue;
            }
            // GPU kernels' times are the GPU's, whatever CPU launched them.
            const bool here = r.sizes == m_sizes && (m_gpu ? r.machine.gpu == m_out.machine.gpu
                                                           : r.machine.cpu == m_out.machine.cpu &&
                                                                 r.threads == m_space.cores);
            if (m_options.resume && here) {
                // A candidate measured again (the end of a run re-measures the best) counts
                // once, by its latest measurement.
                const std::string key = stepsKey(r.steps);
                if (m_seen.insert(key).second) {
                    m_out.reused.push_back(r);
                } else {
                    for (auto& earlier : m_out.reused)
                        if (stepsKey(earlier.steps) == key) earlier = r;
                }
            }
            learnFrom(r, nullptr);
            ++warm;
        }
        for (auto& r : m_out.reused)
            consider(r);
        if (warm > 0)
            m_out.notes.push_back(std::to_string(warm) + " record(s) of this program in " +
                                  m_options.logPath + " trained the cost model" +
                                  (m_options.resume
                                       ? "; " + std::to_string(m_out.reused.size()) +
                                             " of them (these sizes, this machine) count "
                                             "as measured"
                                       : ""));
        for (auto& [kind, n] : elsewhere)
            m_out.notes.push_back(std::to_string(n) + " record(s) of this program in " +
                                  m_options.logPath + " were measured on another machine (" + kind +
                                  ") and were left out: the cost model learns from " +
                                  describeMachine(m_out.machine) + " only");
    }

    void retrain()
    {
        if (m_trainRows.size() < 2) return;
        auto t = Clock::now();
        std::vector<const FeatureRows*> ptrs;
        for (auto& f : m_trainRows)
            ptrs.push_back(&f);
        m_model.train(ptrs, m_trainY);
        m_out.times.trainMs += msSince(t);
    }

    bool budgetLeft() const
    {
        const int done = static_cast<int>(m_out.trials.size());
        if (m_planned > 0 && done >= m_planned) return false;
        if (m_options.seconds > 0 && msSince(m_t0) / 1000 >= m_options.seconds) return false;
        return m_planned > 0 || m_options.seconds > 0;
    }

    void report(TuneProgress::Phase phase, const TuneRecord* latest) const
    {
        if (!m_progress) return;
        TuneProgress p;
        p.phase = phase;
        p.trialsDone = static_cast<int>(m_out.trials.size());
        p.trialsPlanned = m_planned;
        p.elapsedS = msSince(m_t0) / 1000;
        if (m_planned > 0 && p.trialsDone > 0)
            p.remainingS = p.elapsedS / p.trialsDone * (m_planned - p.trialsDone);
        if (m_options.seconds > 0) p.remainingS = std::max(0.0, m_options.seconds - p.elapsedS);
        p.bestGflops = m_haveBest ? m_best.gflops : 0;
        p.bestMs = m_haveBest ? m_best.msMedian : 0;
        p.bestTrial = m_haveBest ? m_best.trial : 0;
        p.latest = latest;
        m_progress(p);
    }

    const Sketch& sketch(int index) const { return m_sketches[static_cast<std::size_t>(index)]; }

    // A new candidate (one that changes something and was not seen) with its features.
    bool makeCandidate(int sketchIndex, Knobs knobs, Candidate* c)
    {
        Realized r = realize(*m_start, sketch(sketchIndex), knobs, m_space, false);
        // A candidate that changes nothing is the start itself, not a schedule to offer.
        if (!r.ok || r.steps.empty()) return false;
        c->sketch = sketchIndex;
        c->knobs = std::move(knobs);
        c->steps = std::move(r.steps);
        c->key = stepsKey(c->steps);
        if (m_seen.count(c->key)) return false;
        return featuresOf(r.schedule, &c->features);
    }

    void randomCandidates(int count, std::vector<Candidate>& into, std::set<std::string>& keys)
    {
        std::uniform_int_distribution<int> pick(0, static_cast<int>(m_sketches.size()) - 1);
        for (int attempt = 0; attempt < count * 4 && static_cast<int>(into.size()) < count;
             ++attempt) {
            const int sk = pick(m_rng);
            Candidate c;
            if (!makeCandidate(sk, sampleKnobs(sketch(sk), m_space, m_rng), &c)) continue;
            if (!keys.insert(c.key).second) continue;
            into.push_back(std::move(c));
        }
    }

    void predictAll(std::vector<Candidate>& cs)
    {
        if (!m_model.trained() || cs.empty()) return;
        auto t = Clock::now();
        std::vector<const FeatureRows*> ptrs;
        for (auto& c : cs)
            ptrs.push_back(&c.features);
        auto scores = m_model.predict(ptrs);
        for (std::size_t i = 0; i < cs.size(); ++i)
            cs[i].score = scores[i];
        m_out.times.predictMs += msSince(t);
        m_out.times.candidatesRanked += static_cast<int>(cs.size());
    }

    // This run's measured candidates, fastest first.
    std::vector<std::size_t> fastestMeasured() const
    {
        std::vector<std::size_t> order(m_measured.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return m_measuredSpeed[a] > m_measuredSpeed[b]; });
        return order;
    }

    // The evolutionary search: from the population and the best measured candidates of this
    // run as parents (by roulette over the model's scores), children by mutation and crossover,
    // ranked by the model; the best `population` of each generation go on.
    std::vector<Candidate> evolve(std::vector<Candidate> pool, std::set<std::string>& keys)
    {
        predictAll(pool);
        const std::vector<std::size_t> order = fastestMeasured();
        for (std::size_t i = 0; i < order.size() && i < 32; ++i) {
            Candidate c = m_measured[order[i]];
            c.score = m_measuredSpeed[order[i]] / std::max(1e-9, m_measuredSpeed[order[0]]);
            pool.push_back(std::move(c));
        }
        for (int g = 0; g < m_options.generations; ++g) {
            // Roulette over scores shifted to be positive.
            double low = 0;
            for (auto& c : pool)
                low = std::min(low, c.score);
            std::vector<double> weights;
            for (auto& c : pool)
                weights.push_back(c.score - low + 1e-3);
            std::discrete_distribution<std::size_t> parent(weights.begin(), weights.end());
            std::vector<Candidate> children;
            for (int n = 0; n < m_options.population; ++n) {
                const Candidate& a = pool[parent(m_rng)];
                Knobs knobs;
                std::uniform_real_distribution<double> u(0, 1);
                if (u(m_rng) < 0.15) {
                    const Candidate& b = pool[parent(m_rng)];
                    if (b.sketch != a.sketch) continue;
                    knobs = crossKnobs(sketch(a.sketch), a.knobs, b.knobs, m_rng);
                } else {
                    knobs = mutateKnobs(sketch(a.sketch), a.knobs, m_space, m_rng);
                }
                Candidate c;
                if (!makeCandidate(a.sketch, std::move(knobs), &c)) continue;
                if (!keys.insert(c.key).second) continue;
                children.push_back(std::move(c));
            }
            predictAll(children);
            for (auto& c : children)
                pool.push_back(std::move(c));
            std::sort(pool.begin(), pool.end(),
                      [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
            if (static_cast<int>(pool.size()) > m_options.population)
                pool.resize(static_cast<std::size_t>(m_options.population));
        }
        return pool;
    }

    // Eps-greedy: the batch is the model's best `1 - randomShare` of `ranked` not measured yet,
    // and the rest from `randoms`, in random order.
    void pickEpsGreedy(const std::vector<Candidate>& ranked, std::vector<Candidate> randoms,
                       int count, std::vector<Candidate>& batch)
    {
        const int byModel =
            std::max(1, static_cast<int>(std::lround(count * (1.0 - m_options.randomShare))));
        std::set<std::string> chosen;
        for (auto& c : ranked) {
            if (static_cast<int>(batch.size()) >= byModel) break;
            if (m_seen.count(c.key) || !chosen.insert(c.key).second) continue;
            batch.push_back(c);
        }
        std::shuffle(randoms.begin(), randoms.end(), m_rng);
        for (auto& c : randoms) {
            if (static_cast<int>(batch.size()) >= count) break;
            if (!chosen.insert(c.key).second) continue;
            batch.push_back(std::move(c));
        }
    }

    // One round's batch: the default schedule first of all (a model's task runs it untuned: the
    // best a tuning finds is never slower than that, as measured); then the model's best
    // guesses and a share at random; at random altogether until the model has learnt.
    std::vector<Candidate> nextBatch(int count)
    {
        auto t = Clock::now();
        std::vector<Candidate> pool;
        std::set<std::string> keys;
        std::vector<Candidate> batch;
        if (!m_defaultTried) {
            m_defaultTried = true;
            const int sk = defaultSketch(m_sketches);
            Candidate c;
            if (makeCandidate(sk, defaultKnobs(sketch(sk), m_space), &c) &&
                keys.insert(c.key).second)
                batch.push_back(std::move(c));
        }
        randomCandidates(m_options.population, pool, keys);
        if (!m_model.trained()) {
            std::shuffle(pool.begin(), pool.end(), m_rng);
            for (auto& c : pool)
                if (static_cast<int>(batch.size()) < count) batch.push_back(std::move(c));
        } else {
            std::vector<Candidate> randoms = pool; // the share picked at random comes from here
            pickEpsGreedy(evolve(std::move(pool), keys), std::move(randoms), count, batch);
        }
        m_out.times.searchMs += msSince(t);
        return batch;
    }

    protocol::MeasureRequest requestFor(const Realized& written, int repeat,
                                        double minRepeatMs) const
    {
        protocol::MeasureRequest req =
            candidateRequest(candidateScript(written.statements), kCandidateVariant, m_options.sets,
                             m_options.threads);
        req.repeat = repeat;
        req.minRepeatMs = minRepeatMs;
        req.maxRunMs = m_haveBest ? std::max(50.0, 20 * m_best.msMedian) : 3000.0;
        return req;
    }

    // A candidate's record before it is measured, and its request (none when its steps cannot
    // be written: the record says "invalid").
    TuneRecord prepare(const Candidate& c, int repeat, double minRepeatMs, int trial,
                       std::optional<protocol::MeasureRequest>* request) const
    {
        Realized written = replaySteps(*m_start, c.steps, true);
        TuneRecord rec;
        rec.workload = m_out.workload;
        rec.variant = m_start->name;
        rec.sizes = m_sizes;
        rec.sketch = c.sketch >= 0 ? sketch(c.sketch).name : "";
        rec.steps = c.steps;
        rec.statements = written.statements;
        rec.machine = m_out.machine;
        rec.threads = m_space.cores;
        rec.featuresVersion = kFeatureVersion;
        rec.trial = trial;
        if (!written.ok) {
            rec.status = "invalid";
            rec.error = written.why;
            return rec;
        }
        *request = requestFor(written, repeat, minRepeatMs);
        return rec;
    }

    // The record once its measurement is in.
    void finish(TuneRecord& rec, const MeasureOutcome& m)
    {
        m_out.times.compileMs += m.lowerMs + m.compileMs;
        rec.time = isoTimeNow();
        if (!m.host.empty()) rec.machine.host = m.host;
        rec.status = statusName(m.status);
        rec.error = m.message;
        rec.flops = m.flops;
        rec.compileMs = m.lowerMs + m.compileMs;
        rec.checked = m.checked;
        if (m.status == MeasureOutcome::Status::Ok) {
            rec.msMedian = m.msMedian;
            rec.ms = m.tooSlow ? std::vector<double>{m.runMs}
                               : std::vector<double>{m.msMin, m.msMedian, m.msMax};
            rec.gflops = m.gflops();
            if (!m.checked) {
                rec.status = "unchecked";
                rec.error = "the reference could not check its outputs";
            }
        }
        rec.elapsedS = msSince(m_t0) / 1000;
    }

    // `next`: the candidate measured after this one, which the measurer may compile meanwhile.
    TuneRecord measureOne(const Candidate& c, int repeat, double minRepeatMs, int trial,
                          const Candidate* next)
    {
        std::optional<protocol::MeasureRequest> req;
        TuneRecord rec = prepare(c, repeat, minRepeatMs, trial, &req);
        if (!req) {
            rec.time = isoTimeNow();
            return rec;
        }
        std::optional<protocol::MeasureRequest> nextReq;
        if (next) prepare(*next, repeat, minRepeatMs, trial, &nextReq);
        auto t = Clock::now();
        MeasureOutcome m = m_measurer.measureAhead(*req, nextReq ? &*nextReq : nullptr);
        m_out.times.measureMs += msSince(t);
        finish(rec, m);
        return rec;
    }

    void logRecord(const TuneRecord& rec)
    {
        if (m_options.logPath.empty()) return;
        std::string problem;
        if (!appendRecord(m_options.logPath, rec, &problem) &&
            std::find(m_out.notes.begin(), m_out.notes.end(), problem) == m_out.notes.end())
            m_out.notes.push_back(problem);
    }

    // A round: a batch searched, measured in turn (the model learning from each), the model
    // retrained. False when the run should stop (the space is exhausted, or cancelled).
    bool round(int* emptyRounds)
    {
        report(TuneProgress::Phase::Searching, nullptr);
        std::vector<Candidate> batch = nextBatch(m_batchSize);
        if (batch.empty()) {
            if (++*emptyRounds >= 5) {
                m_out.notes.push_back("the search found no new candidate: the space is exhausted");
                return false;
            }
            return true;
        }
        *emptyRounds = 0;
        ++m_out.times.rounds;
        // As many as the budget has room for, measured at once where there are runners to spare;
        // each counts as a trial, in the order they finish.
        std::size_t room = batch.size();
        if (m_planned > 0)
            room = std::min(room, static_cast<std::size_t>(std::max(
                                      0, m_planned - static_cast<int>(m_out.trials.size()))));
        std::vector<TuneRecord> records;
        std::vector<protocol::MeasureRequest> requests;
        std::vector<std::size_t> measuredOf; // requests[i] is batch[measuredOf[i]]
        auto accept = [&](std::size_t b, TuneRecord rec) {
            rec.trial = static_cast<int>(m_out.trials.size() + m_out.reused.size()) + 1;
            logRecord(rec);
            if (rec.status != "ok") ++m_out.failed;
            if (rec.status == "wrong") ++m_out.wrong;
            consider(rec);
            m_out.trials.push_back(rec);
            m_measured.push_back(batch[b]);
            m_measuredSpeed.push_back(rec.ok() && rec.checked ? 1000.0 / rec.msMedian : 0.0);
            m_trainRows.push_back(batch[b].features);
            m_trainY.push_back(m_measuredSpeed.back());
            report(TuneProgress::Phase::Measuring, &m_out.trials.back());
        };
        records.reserve(room);
        for (std::size_t b = 0; b < room; ++b) {
            m_seen.insert(batch[b].key);
            std::optional<protocol::MeasureRequest> req;
            records.push_back(prepare(batch[b], 3, 40, 0, &req));
            if (!req) {
                records.back().time = isoTimeNow();
                accept(b, records.back());
                continue;
            }
            req->testing.crash = m_options.testingCrashFirst && m_out.trials.empty() &&
                                 requests.empty() && m_out.times.rounds == 1;
            requests.push_back(std::move(*req));
            measuredOf.push_back(b);
        }
        auto t = Clock::now();
        m_measurer.measureBatch(
            requests,
            [&](std::size_t i, const MeasureOutcome& m) {
                const std::size_t b = measuredOf[i];
                finish(records[b], m);
                accept(b, records[b]);
            },
            [&] { return !isCancelled() && (m_options.seconds <= 0 || budgetLeft()); });
        m_out.times.measureMs += msSince(t);
        if (isCancelled()) return false;
        report(TuneProgress::Phase::Training, nullptr);
        retrain();
        return true;
    }

    // A round written instead of measured: one batch, each candidate with its statements and the
    // script holding it; trials are numbered after the log's.
    TuneOutcome writeRound()
    {
        const int count = m_planned > 0 ? m_planned : m_batchSize;
        std::vector<Candidate> batch = nextBatch(count);
        for (const Candidate& c : batch) {
            std::optional<protocol::MeasureRequest> request;
            RoundCandidate rc;
            rc.record = prepare(
                c, 3, 40, static_cast<int>(m_out.reused.size() + m_out.round.size()) + 1, &request);
            if (!request) continue;
            rc.request = std::move(*request);
            m_out.round.push_back(std::move(rc));
        }
        m_out.haveBest = m_haveBest;
        if (m_haveBest) m_out.best = m_best;
        m_out.ok = true;
        return std::move(m_out);
    }

    // The best few again, with the default (the first measured), in turns: each measured once
    // per round, so that a machine that drifts during the run moves them all alike, and each
    // keeps the median of every round's times. One lucky measurement does not make a best.
    void remeasureBest()
    {
        report(TuneProgress::Phase::Remeasuring, nullptr);
        const std::vector<std::size_t> order = fastestMeasured();
        const auto top = static_cast<std::size_t>(m_options.remeasureTop);
        std::vector<std::size_t> picks;
        for (std::size_t i = 0; i < order.size() && picks.size() < top; ++i)
            if (m_measuredSpeed[order[i]] > 0) picks.push_back(order[i]);
        if (picks.empty()) return;
        if (m_measuredSpeed[0] > 0 && std::find(picks.begin(), picks.end(), 0) == picks.end())
            picks.push_back(0);
        constexpr int kRounds = 3;
        std::map<std::size_t, std::vector<double>> times;
        std::map<std::size_t, TuneRecord> last;
        for (int round = 0; round < kRounds && !isCancelled(); ++round) {
            for (std::size_t p = 0; p < picks.size() && !isCancelled(); ++p) {
                const bool more = p + 1 < picks.size();
                TuneRecord rec =
                    measureOne(m_measured[picks[p]], 3, 100, m_out.trials[picks[p]].trial,
                               more ? &m_measured[picks[p + 1]] : nullptr);
                if (!(rec.ok() && rec.checked)) continue;
                times[picks[p]].insert(times[picks[p]].end(), rec.ms.begin(), rec.ms.end());
                last[picks[p]] = rec;
            }
        }
        for (auto& [index, ms] : times) {
            TuneRecord rec = last[index];
            std::sort(ms.begin(), ms.end());
            rec.ms = ms;
            rec.msMedian = ms[ms.size() / 2];
            rec.gflops = rec.flops > 0 ? rec.flops / rec.msMedian / 1e6 : 0;
            logRecord(rec);
            TuneRecord& first = m_out.trials[index];
            first.gflops = rec.gflops;
            first.msMedian = rec.msMedian;
            first.ms = rec.ms;
        }
        m_haveBest = false;
        for (auto* records : {&m_out.reused, &m_out.trials})
            for (auto& r : *records)
                consider(r);
    }

    const std::string& m_script;
    const TuneOptions& m_options;
    Measurer& m_measurer;
    ThroughputModel& m_model;
    const std::function<void(const TuneProgress&)>& m_progress;
    const std::function<bool()>& m_cancelled;
    const Clock::time_point m_t0 = Clock::now();
    std::mt19937_64 m_rng;

    TuneOutcome m_out;
    EvalResult m_eval;
    const Variant* m_start = nullptr;
    const Variant* m_tensorIRStart = nullptr; // a tir.Schedule variant tuned as declared
    bool m_gpu = false;                       // the candidates are GPU kernels
    Variant m_declared;                       // its declared computation, the search's start
    std::string m_outputOps;                  // "C.op": what a TE schedule of it creates
    std::map<std::string, std::int64_t> m_sizes;
    SpaceOptions m_space;
    std::vector<Sketch> m_sketches;
    int m_planned = 0;
    int m_batchSize = 16;

    std::vector<FeatureRows> m_trainRows; // the model's training data
    std::vector<double> m_trainY;
    TuneRecord m_best;
    bool m_haveBest = false;
    std::set<std::string> m_seen;        // keys of candidates measured (or resumed)
    std::vector<Candidate> m_measured;   // this run's, in order
    std::vector<double> m_measuredSpeed; // runs per second (0: failed)
    bool m_defaultTried = false;
};

} // namespace

Tuner::Tuner(std::string script, TuneOptions options, Measurer& measurer, ThroughputModel* model)
    : m_script(std::move(script)), m_options(std::move(options)), m_measurer(measurer),
      m_model(model)
{
}

TuneOutcome Tuner::run(const std::function<void(const TuneProgress&)>& progress,
                       const std::function<bool()>& cancelled)
{
    std::unique_ptr<CostModel> own;
    if (!m_model) own = std::make_unique<CostModel>(m_options.modelThreads);
    return TuneRun(m_script, m_options, m_measurer, m_model ? *m_model : *own, progress, cancelled)
        .run();
}

} // namespace loopscope
