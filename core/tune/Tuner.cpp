#include "tune/Tuner.h"

#include "lower/Lower.h"
#include "tune/CostModel.h"
#include "tune/Features.h"
#include "tune/Space.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>

namespace loopscope {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string stepsKey(const std::vector<TuneStep>& steps)
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
    std::vector<TuneStep> steps;
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

Tuner::Tuner(std::string script, TuneOptions options, Measurer& measurer)
    : m_script(std::move(script)), m_options(std::move(options)), m_measurer(measurer)
{
}

TuneOutcome Tuner::run(const std::function<void(const TuneProgress&)>& progress,
                       const std::function<bool()>& cancelled)
{
    const auto t0 = Clock::now();
    TuneOutcome out;
    auto isCancelled = [&] { return cancelled && cancelled(); };

    EvalResult eval = evaluateScript(m_script, m_options.sets);
    if (!eval.ok) {
        out.error = "line " + std::to_string(eval.error.loc.line) + ":" +
                    std::to_string(eval.error.loc.col) + ": " + eval.error.message;
        return out;
    }
    const Program& program = eval.program;
    if (program.variants.empty()) {
        out.error = "the script has no variant to tune (no te.create_schedule)";
        return out;
    }
    const Variant* start = m_options.variant.empty() ? &program.variants.front()
                                                     : program.findVariant(m_options.variant);
    if (!start) {
        out.error = "no variant '" + m_options.variant + "'";
        return out;
    }
    out.startVariant = start->name;
    out.workload = workloadKey(*start);
    std::map<std::string, std::int64_t> sizes;
    for (auto& p : program.parameters)
        sizes[p.name] = p.value;

    out.machine = m_measurer.machine();
    SpaceOptions space;
    space.forbidden = m_options.forbidden;
    space.vectorLanes = std::max(4, out.machine.vectorBits / 32);
    space.cores = m_options.threads > 0 ? m_options.threads : std::max(1, out.machine.threads);
    std::string why;
    std::vector<Sketch> sketches = generateSketches(*start, space, &why);
    if (sketches.empty()) {
        out.error = why;
        return out;
    }

    // Features of a schedule, or false when it cannot be lowered.
    auto featuresOf = [&](const Schedule& sch, FeatureRows* rows) {
        auto t = Clock::now();
        bool ok = true;
        try {
            *rows = extractFeatures(lowerStructure(sch));
        } catch (const UserError&) {
            ok = false;
        } catch (const InternalError&) {
            ok = false;
        }
        out.times.featureMs += msSince(t);
        return ok && rows->rows > 0;
    };

    // Training data: every record of this workload (other sizes warm the model up).
    std::vector<FeatureRows> trainRows;
    std::vector<double> trainY;
    std::set<std::string> measured; // keys of candidates measured at these sizes, this machine
    const int threadsUsed = space.cores;
    auto learnFrom = [&](const TuneRecord& r, const FeatureRows* rows) {
        if (r.featuresVersion != kFeatureVersion && r.featuresVersion != 0) return;
        FeatureRows f;
        if (rows) {
            f = *rows;
        } else {
            Realized replay = replaySteps(*start, r.steps, false);
            if (!replay.ok || !featuresOf(replay.schedule, &f)) return;
        }
        trainRows.push_back(std::move(f));
        trainY.push_back(r.ok() && r.checked ? 1000.0 / r.msMedian : 0.0);
    };
    TuneRecord best;
    bool haveBest = false;
    auto consider = [&](const TuneRecord& r) {
        if (r.ok() && r.checked && (!haveBest || r.msMedian < best.msMedian)) {
            best = r;
            haveBest = true;
        }
    };
    if (!m_options.logPath.empty()) {
        LogContents log = readLog(m_options.logPath);
        if (!log.problems.empty()) {
            std::string aside = setAsideCorruptLog(m_options.logPath, log.records);
            out.notes.push_back(std::to_string(log.problems.size()) + " line(s) of " +
                                m_options.logPath + " were not tuning records (" +
                                log.problems.front() + ")" +
                                (aside.empty() ? "" : "; the file was kept as " + aside));
        }
        int warm = 0;
        for (auto& r : log.records) {
            if (r.workload != out.workload) continue;
            const bool here =
                r.sizes == sizes && r.cpu == out.machine.cpu && r.threads == threadsUsed;
            if (m_options.resume && here) {
                // A candidate measured again (the end of a run re-measures the best) counts
                // once, by its latest measurement.
                const std::string key = stepsKey(r.steps);
                if (measured.insert(key).second) {
                    out.reused.push_back(r);
                } else {
                    for (auto& earlier : out.reused)
                        if (stepsKey(earlier.steps) == key) earlier = r;
                }
            }
            learnFrom(r, nullptr);
            ++warm;
        }
        for (auto& r : out.reused)
            consider(r);
        if (warm > 0)
            out.notes.push_back(std::to_string(warm) + " record(s) of this program in " +
                                m_options.logPath + " trained the cost model" +
                                (m_options.resume
                                     ? "; " + std::to_string(out.reused.size()) +
                                           " of them (these sizes, this machine) count "
                                           "as measured"
                                     : ""));
    }

    CostModel model(m_options.modelThreads);
    auto retrain = [&] {
        if (trainRows.size() < 2) return;
        auto t = Clock::now();
        std::vector<const FeatureRows*> ptrs;
        for (auto& f : trainRows)
            ptrs.push_back(&f);
        model.train(ptrs, trainY);
        out.times.trainMs += msSince(t);
    };
    retrain();

    std::mt19937_64 rng(m_options.seed);
    const int planned = m_options.trials;
    const int batchSize = m_options.batch > 0 ? m_options.batch
                          : planned > 0       ? std::clamp(planned / 4, 8, 32)
                                              : 16;
    auto budgetLeft = [&] {
        const int done = static_cast<int>(out.trials.size());
        if (planned > 0 && done >= planned) return false;
        if (m_options.seconds > 0 && msSince(t0) / 1000 >= m_options.seconds) return false;
        return planned > 0 || m_options.seconds > 0;
    };
    auto report = [&](TuneProgress::Phase phase, const TuneRecord* latest) {
        if (!progress) return;
        TuneProgress p;
        p.phase = phase;
        p.trialsDone = static_cast<int>(out.trials.size());
        p.trialsPlanned = planned;
        p.elapsedS = msSince(t0) / 1000;
        if (planned > 0 && p.trialsDone > 0)
            p.remainingS = p.elapsedS / p.trialsDone * (planned - p.trialsDone);
        if (m_options.seconds > 0) p.remainingS = std::max(0.0, m_options.seconds - p.elapsedS);
        p.bestGflops = haveBest ? best.gflops : 0;
        p.bestMs = haveBest ? best.msMedian : 0;
        p.bestTrial = haveBest ? best.trial : 0;
        p.latest = latest;
        progress(p);
    };

    // Candidates measured this run, by key, for the search to start from.
    std::vector<Candidate> measuredCandidates;
    std::vector<double> measuredGflops; // speed: runs per second (0: failed)
    std::set<std::string> seen = measured;

    auto makeCandidate = [&](int sketch, Knobs knobs, Candidate* c) {
        Realized r =
            realize(*start, sketches[static_cast<std::size_t>(sketch)], knobs, space, false);
        // A candidate that changes nothing is the start itself, not a schedule to offer.
        if (!r.ok || r.steps.empty()) return false;
        c->sketch = sketch;
        c->knobs = std::move(knobs);
        c->steps = std::move(r.steps);
        c->key = stepsKey(c->steps);
        if (seen.count(c->key)) return false;
        return featuresOf(r.schedule, &c->features);
    };
    auto randomCandidates = [&](int count, std::vector<Candidate>& into,
                                std::set<std::string>& keys) {
        std::uniform_int_distribution<int> pick(0, static_cast<int>(sketches.size()) - 1);
        for (int attempt = 0; attempt < count * 4 && static_cast<int>(into.size()) < count;
             ++attempt) {
            int sk = pick(rng);
            Candidate c;
            if (!makeCandidate(sk, sampleKnobs(sketches[static_cast<std::size_t>(sk)], space, rng),
                               &c))
                continue;
            if (!keys.insert(c.key).second) continue;
            into.push_back(std::move(c));
        }
    };
    auto predictAll = [&](std::vector<Candidate>& cs) {
        if (!model.trained() || cs.empty()) return;
        auto t = Clock::now();
        std::vector<const FeatureRows*> ptrs;
        for (auto& c : cs)
            ptrs.push_back(&c.features);
        auto scores = model.predict(ptrs);
        for (std::size_t i = 0; i < cs.size(); ++i)
            cs[i].score = scores[i];
        out.times.predictMs += msSince(t);
        out.times.candidatesRanked += static_cast<int>(cs.size());
    };

    // One round's batch: the model's best guesses from an evolutionary search, and a share at
    // random; at random altogether until the model has something to learn from.
    bool defaultTried = false;
    auto nextBatch = [&](int count) {
        auto t = Clock::now();
        std::vector<Candidate> pool;
        std::set<std::string> keys;
        std::vector<Candidate> batch;
        // The first candidate measured is the default schedule (a model's task runs it
        // untuned): the best a tuning finds is never slower than that, as measured.
        if (!defaultTried) {
            defaultTried = true;
            const int sk = defaultSketch(sketches);
            Candidate c;
            if (makeCandidate(sk, defaultKnobs(sketches[static_cast<std::size_t>(sk)], space),
                              &c) &&
                keys.insert(c.key).second)
                batch.push_back(std::move(c));
        }
        randomCandidates(m_options.population, pool, keys);
        if (!model.trained()) {
            std::shuffle(pool.begin(), pool.end(), rng);
            for (auto& c : pool)
                if (static_cast<int>(batch.size()) < count) batch.push_back(std::move(c));
            out.times.searchMs += msSince(t);
            return batch;
        }
        std::vector<Candidate> randoms = pool; // the share picked at random comes from here
        // Parents: the population and the best measured candidates of this run.
        std::vector<std::size_t> order(measuredCandidates.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return measuredGflops[a] > measuredGflops[b]; });
        predictAll(pool);
        for (std::size_t i = 0; i < order.size() && i < 32; ++i) {
            Candidate c = measuredCandidates[order[i]];
            c.score = measuredGflops[order[i]] / std::max(1e-9, measuredGflops[order[0]]);
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
                const Candidate& a = pool[parent(rng)];
                Knobs knobs;
                std::uniform_real_distribution<double> u(0, 1);
                if (u(rng) < 0.15) {
                    const Candidate& b = pool[parent(rng)];
                    if (b.sketch != a.sketch) continue;
                    knobs = crossKnobs(sketches[static_cast<std::size_t>(a.sketch)], a.knobs,
                                       b.knobs, rng);
                } else {
                    knobs = mutateKnobs(sketches[static_cast<std::size_t>(a.sketch)], a.knobs,
                                        space, rng);
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
        const int byModel =
            std::max(1, static_cast<int>(std::lround(count * (1.0 - m_options.randomShare))));
        std::set<std::string> chosen;
        for (auto& c : pool) {
            if (static_cast<int>(batch.size()) >= byModel) break;
            if (seen.count(c.key) || !chosen.insert(c.key).second) continue;
            batch.push_back(c);
        }
        std::shuffle(randoms.begin(), randoms.end(), rng);
        for (auto& c : randoms) {
            if (static_cast<int>(batch.size()) >= count) break;
            if (!chosen.insert(c.key).second) continue;
            batch.push_back(std::move(c));
        }
        out.times.searchMs += msSince(t);
        return batch;
    };

    auto requestFor = [&](const Realized& written, int repeat, double minRepeatMs) {
        MeasureRequest req;
        req.script =
            scriptWithVariant(m_script, *start, kCandidateVariant, written.statements, true);
        req.variant = kCandidateVariant;
        req.sets = m_options.sets;
        req.threads = m_options.threads;
        req.repeat = repeat;
        req.minRepeatMs = minRepeatMs;
        req.maxRunMs = haveBest ? std::max(50.0, 20 * best.msMedian) : 3000.0;
        req.timeoutMs = 30000 + 4 * req.maxRunMs;
        return req;
    };
    // `next`: the candidate measured after this one, which the measurer may compile meanwhile.
    auto measureOne = [&](const Candidate& c, int repeat, double minRepeatMs, int trial,
                          const Candidate* next) {
        Realized written = replaySteps(*start, c.steps, true);
        TuneRecord rec;
        rec.workload = out.workload;
        rec.variant = start->name;
        rec.sizes = sizes;
        rec.sketch = c.sketch >= 0 ? sketches[static_cast<std::size_t>(c.sketch)].name : "";
        rec.steps = c.steps;
        rec.statements = written.statements;
        rec.cpu = out.machine.cpu;
        rec.vectorBits = out.machine.vectorBits;
        rec.threads = threadsUsed;
        rec.featuresVersion = kFeatureVersion;
        rec.trial = trial;
        rec.time = isoTimeNow();
        if (!written.ok) {
            rec.status = "invalid";
            rec.error = written.why;
            return rec;
        }
        MeasureRequest req = requestFor(written, repeat, minRepeatMs);
        req.testingCrash = m_options.testingCrashFirst && out.trials.empty();
        std::optional<MeasureRequest> nextReq;
        if (next) {
            Realized nextWritten = replaySteps(*start, next->steps, true);
            if (nextWritten.ok) nextReq = requestFor(nextWritten, repeat, minRepeatMs);
        }
        auto t = Clock::now();
        MeasureResult m = m_measurer.measureAhead(req, nextReq ? &*nextReq : nullptr);
        out.times.measureMs += msSince(t);
        out.times.compileMs += m.lowerMs + m.compileMs;
        rec.status = statusName(m.status);
        rec.error = m.message;
        rec.flops = m.flops;
        rec.compileMs = m.lowerMs + m.compileMs;
        rec.checked = m.checked;
        if (m.status == MeasureResult::Status::Ok) {
            rec.msMedian = m.msMedian;
            rec.ms = m.tooSlow ? std::vector<double>{m.runMs}
                               : std::vector<double>{m.msMin, m.msMedian, m.msMax};
            rec.gflops = m.gflops();
            if (!m.checked) {
                rec.status = "unchecked";
                rec.error = "the reference could not check its outputs";
            }
        }
        rec.elapsedS = msSince(t0) / 1000;
        return rec;
    };
    auto logRecord = [&](const TuneRecord& rec) {
        if (m_options.logPath.empty()) return;
        std::string problem;
        if (!appendRecord(m_options.logPath, rec, &problem) &&
            std::find(out.notes.begin(), out.notes.end(), problem) == out.notes.end())
            out.notes.push_back(problem);
    };

    int emptyRounds = 0;
    while (budgetLeft() && !isCancelled()) {
        report(TuneProgress::Phase::Searching, nullptr);
        std::vector<Candidate> batch = nextBatch(batchSize);
        if (batch.empty()) {
            if (++emptyRounds >= 5) {
                out.notes.push_back("the search found no new candidate: the space is exhausted");
                break;
            }
            continue;
        }
        emptyRounds = 0;
        ++out.times.rounds;
        for (std::size_t b = 0; b < batch.size(); ++b) {
            const Candidate& c = batch[b];
            if (!budgetLeft() || isCancelled()) break;
            seen.insert(c.key);
            const int trial = static_cast<int>(out.trials.size() + out.reused.size()) + 1;
            TuneRecord rec =
                measureOne(c, 3, 40, trial, b + 1 < batch.size() ? &batch[b + 1] : nullptr);
            logRecord(rec);
            if (rec.status != "ok") ++out.failed;
            if (rec.status == "wrong") ++out.wrong;
            consider(rec);
            out.trials.push_back(rec);
            measuredCandidates.push_back(c);
            measuredGflops.push_back(rec.ok() && rec.checked ? 1000.0 / rec.msMedian : 0.0);
            trainRows.push_back(c.features);
            trainY.push_back(measuredGflops.back());
            report(TuneProgress::Phase::Measuring, &out.trials.back());
        }
        if (isCancelled()) break;
        report(TuneProgress::Phase::Training, nullptr);
        retrain();
    }
    out.cancelled = isCancelled();

    // The best few again, measured longer: one lucky measurement does not make a best.
    if (!out.cancelled && m_options.remeasureTop > 0 && haveBest) {
        report(TuneProgress::Phase::Remeasuring, nullptr);
        std::vector<std::size_t> order(measuredCandidates.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return measuredGflops[a] > measuredGflops[b]; });
        for (std::size_t i = 0;
             i < order.size() && i < static_cast<std::size_t>(m_options.remeasureTop); ++i) {
            if (measuredGflops[order[i]] <= 0 || isCancelled()) break;
            TuneRecord& first = out.trials[order[i]];
            const bool more = i + 1 < order.size() &&
                              i + 1 < static_cast<std::size_t>(m_options.remeasureTop) &&
                              measuredGflops[order[i + 1]] > 0;
            TuneRecord rec = measureOne(measuredCandidates[order[i]], 7, 100, first.trial,
                                        more ? &measuredCandidates[order[i + 1]] : nullptr);
            if (!(rec.ok() && rec.checked)) continue;
            logRecord(rec);
            first.gflops = rec.gflops;
            first.msMedian = rec.msMedian;
            first.ms = rec.ms;
        }
        haveBest = false;
        for (auto* records : {&out.reused, &out.trials})
            for (auto& r : *records)
                consider(r);
    }

    out.haveBest = haveBest;
    if (haveBest) {
        out.best = best;
        Realized written = replaySteps(*start, best.steps, true);
        out.bestStatements = written.ok ? written.statements : best.statements;
    }
    out.ok = true;
    report(TuneProgress::Phase::Done, nullptr);
    return out;
}

} // namespace loopscope
