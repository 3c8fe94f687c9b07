// The learned cost model: gradient-boosted trees (XGBoost, through its C API) over the per-store
// feature rows of each candidate. A candidate's score is the sum of its rows' predictions (Ansor's
// "pack sum"), trained from scratch after every measured batch on everything measured so far,
// with Ansor's objective: squared error against throughput normalized by the best measured,
// weighted by that throughput, so the fast end of the ranking is what the trees learn best.
#pragma once

#include "tune/Features.h"

#include <memory>
#include <string>
#include <vector>

namespace loopscope {

class CostModel {
public:
    // `threads`: XGBoost's nthread (set explicitly: its default takes every core).
    explicit CostModel(int threads = 1);
    ~CostModel();
    CostModel(const CostModel&) = delete;
    CostModel& operator=(const CostModel&) = delete;

    // Trains on the candidates' rows and measured throughputs (any positive unit; 0 for a
    // failed candidate). Returns false (and leaves the model as it was) with fewer than two
    // distinct throughputs or when XGBoost reports an error (error() says which).
    bool train(const std::vector<const FeatureRows*>& programs,
               const std::vector<double>& throughput);

    bool trained() const { return m_trained; }
    // One score per program, higher for faster (in units of the best measured throughput); all
    // zero before training.
    std::vector<double> predict(const std::vector<const FeatureRows*>& programs) const;

    const std::string& error() const { return m_error; }
    double lastTrainMs() const { return m_trainMs; }
    int lastRounds() const { return m_rounds; }

private:
    struct Handles;
    std::unique_ptr<Handles> m_h;
    int m_threads;
    bool m_trained = false;
    std::string m_error;
    double m_trainMs = 0;
    int m_rounds = 0;
};

} // namespace loopscope
