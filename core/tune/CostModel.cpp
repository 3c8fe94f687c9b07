#include "tune/CostModel.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace loopscope {

namespace {

constexpr int kMaxRounds = 400;
constexpr int kPatience = 30;         // rounds without a better fit before stopping
constexpr double kMaxTrainMs = 3000;  // a round of tuning never waits longer on training
constexpr double kFloorWeight = 0.05; // failed and slow candidates still count a little

struct Matrix {
    DMatrixHandle handle = nullptr;
    std::vector<std::size_t> ends; // the row after each program's last
    ~Matrix()
    {
        if (handle) XGDMatrixFree(handle);
    }
};

// All programs' rows in one matrix; false with the error when XGBoost refuses it.
bool buildMatrix(const std::vector<const FeatureRows*>& programs, int threads, Matrix& m,
                 std::string& error)
{
    std::vector<float> values;
    std::size_t rows = 0;
    // One width: a CPU program's rows, or a GPU program's (featureNames).
    int width = 0;
    for (auto* p : programs)
        if (p && p->rows > 0 && width == 0) width = p->width;
    for (auto* p : programs) {
        if (p && p->rows > 0 && p->width == width) {
            values.insert(values.end(), p->values.begin(), p->values.end());
            rows += static_cast<std::size_t>(p->rows);
        }
        m.ends.push_back(rows);
    }
    if (rows == 0) return false;
    if (XGDMatrixCreateFromMat_omp(values.data(), rows, static_cast<bst_ulong>(width),
                                   std::numeric_limits<float>::quiet_NaN(), &m.handle,
                                   threads) != 0) {
        error = XGBGetLastError();
        return false;
    }
    return true;
}

} // namespace

struct CostModel::Handles {
    BoosterHandle booster = nullptr;
    ~Handles()
    {
        if (booster) XGBoosterFree(booster);
    }
};

CostModel::CostModel(int threads)
    : m_h(std::make_unique<Handles>()), m_threads(std::max(1, threads))
{
}

CostModel::~CostModel() = default;

bool CostModel::train(const std::vector<const FeatureRows*>& programs,
                      const std::vector<double>& throughput)
{
    auto t0 = std::chrono::steady_clock::now();
    m_error.clear();
    double best = 0;
    for (double t : throughput)
        best = std::max(best, t);
    std::vector<double> distinct(throughput);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (best <= 0 || distinct.size() < 2 || programs.size() != throughput.size()) return false;

    Matrix m;
    if (!buildMatrix(programs, m_threads, m, m_error)) return false;
    // Labels per program, spread over its rows for the custom objective.
    const std::size_t n = programs.size();
    std::vector<double> label(n), weight(n);
    for (std::size_t p = 0; p < n; ++p) {
        label[p] = std::max(0.0, throughput[p]) / best;
        weight[p] = std::max(label[p], kFloorWeight);
    }

    auto fresh = std::make_unique<Handles>();
    auto check = [&](int status) {
        if (status != 0 && m_error.empty()) m_error = XGBGetLastError();
        return status == 0;
    };
    DMatrixHandle train[1] = {m.handle};
    bool ok = check(XGBoosterCreate(train, 1, &fresh->booster));
    const std::string threads = std::to_string(m_threads);
    const std::pair<const char*, const char*> params[] = {
        {"booster", "gbtree"}, {"max_depth", "10"},
        {"gamma", "0.001"},    {"min_child_weight", "0"},
        {"eta", "0.2"},        {"base_score", "0"},
        {"seed", "43"},        {"nthread", threads.c_str()},
        {"verbosity", "0"},    {"disable_default_eval_metric", "1"}};
    for (auto& [key, value] : params)
        ok = ok && check(XGBoosterSetParam(fresh->booster, key, value));
    if (!ok) return false;

    const std::size_t rows = m.ends.back();
    std::vector<float> grad(rows), hess(rows);
    double bestLoss = std::numeric_limits<double>::infinity();
    int sinceBest = 0, round = 0;
    for (; round < kMaxRounds; ++round) {
        bst_ulong len = 0;
        const float* preds = nullptr;
        if (!check(XGBoosterPredict(fresh->booster, m.handle, 0, 0, 1, &len, &preds))) return false;
        if (len != rows) {
            m_error =
                "XGBoost predicted " + std::to_string(len) + " rows of " + std::to_string(rows);
            return false;
        }
        double loss = 0;
        std::size_t begin = 0;
        for (std::size_t p = 0; p < n; ++p) {
            const std::size_t end = m.ends[p];
            double sum = 0;
            for (std::size_t r = begin; r < end; ++r)
                sum += preds[r];
            const double diff = sum - label[p];
            loss += weight[p] * diff * diff;
            for (std::size_t r = begin; r < end; ++r) {
                grad[r] = static_cast<float>(diff * weight[p]);
                hess[r] = static_cast<float>(weight[p]);
            }
            begin = end;
        }
        if (loss < bestLoss * (1 - 1e-4)) {
            bestLoss = loss;
            sinceBest = 0;
        } else if (++sinceBest >= kPatience) {
            break;
        }
        if (!check(XGBoosterBoostOneIter(fresh->booster, m.handle, grad.data(), hess.data(), rows)))
            return false;
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        if (ms > kMaxTrainMs) break;
    }
    m_h = std::move(fresh);
    m_trained = true;
    m_rounds = round;
    m_trainMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return true;
}

std::vector<double> CostModel::predict(const std::vector<const FeatureRows*>& programs) const
{
    std::vector<double> scores(programs.size(), 0.0);
    if (!m_trained || programs.empty()) return scores;
    Matrix m;
    std::string error;
    if (!buildMatrix(programs, m_threads, m, error)) return scores;
    bst_ulong const* shape = nullptr;
    bst_ulong dim = 0;
    const float* out = nullptr;
    const char* config =
        R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
    if (XGBoosterPredictFromDMatrix(m_h->booster, m.handle, config, &shape, &dim, &out) != 0)
        return scores;
    std::size_t begin = 0;
    for (std::size_t p = 0; p < programs.size(); ++p) {
        double sum = 0;
        for (std::size_t r = begin; r < m.ends[p]; ++r)
            sum += out[r];
        scores[p] = m.ends[p] > begin ? sum : -1e9; // no rows: nothing to say, rank it last
        begin = m.ends[p];
    }
    return scores;
}

} // namespace loopscope
