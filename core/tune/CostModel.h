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

// What the tuner asks of a cost model: trained on the measured throughputs of candidates, it
// scores others (higher for faster). The tuner is given one (tests give their own); CostModel
// below is XGBoost's.
class ThroughputModel {
public:
    virtual ~ThroughputModel() = default;
    virtual bool train(const std::vector<const FeatureRows*>& programs,
                       const std::vector<double>& throughput) = 0;
    virtual bool trained() const = 0;
    virtual std::vector<double> predict(const std::vector<const FeatureRows*>& programs) const = 0;
};

class CostModel : public ThroughputModel {
public:
    // `threads`: XGBoost's nthread (set explicitly: its default takes every core).
    explicit CostModel(int threads = 1);
    ~CostModel() override;
    CostModel(const CostModel&) = delete;
    CostModel& operator=(const CostModel&) = delete;

    // Trains on the candidates' rows and measured throughputs (any positive unit; 0 for a
    // failed candidate). Returns false (and leaves the model as it was) with fewer than two
    // distinct throughputs or when XGBoost reports an error (error() says which).
    bool train(const std::vector<const FeatureRows*>& programs,
               const std::vector<double>& throughput) override;

    bool trained() const override { return m_trained; }
    // One score per program, higher for faster (in units of the best measured throughput); all
    // zero before training.
    std::vector<double> predict(const std::vector<const FeatureRows*>& programs) const override;

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
