#include "runtime/Check.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace loopscope {

namespace {

constexpr std::int64_t kSamples = 2000;

// The shortest text that reads back as the same value of the element type.
std::string formatValue(double v, DataType t)
{
    char buf[64];
    std::to_chars_result r{};
    if (t.isFloat() && t.bits == 64)
        r = std::to_chars(buf, buf + sizeof buf, v);
    else
        r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    return std::string(buf, r.ptr);
}

std::string formatElement(const std::string& name, const std::vector<std::int64_t>& index)
{
    std::string s = name + "[";
    for (std::size_t d = 0; d < index.size(); ++d) {
        if (d) s += ", ";
        s += std::to_string(index[d]);
    }
    return s + "]";
}

// Collects the compared elements (the reference evaluates them one at a time), then judges them
// together: a float32 sum of thousands of products rounds in units of its large partial sums,
// so the absolute tolerance is taken in units of the output's scale, the largest magnitude among
// the elements compared (when that is over 1). A scheduling mistake (a missing term, a wrong
// index) is off by a whole term or more and stays far outside it.
class Checker {
public:
    Checker(const ReferenceEvaluator& reference, const Tensor& output, const HostBuffer& actual)
        : m_reference(reference), m_output(output), m_actual(actual),
          m_exact(!output->dtype.isFloat())
    {
    }

    void check(const std::vector<std::int64_t>& index, CheckResult& result)
    {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < index.size(); ++d)
            flat = flat * m_actual.shape()[d] + index[d];
        Sample s{index, 0, 0, 0, 0};
        if (m_exact) {
            s.ai = m_actual.getInt(flat);
            s.ri = m_reference.valueInt(m_output, index);
        } else {
            s.a = m_actual.get(flat);
            s.r = m_reference.value(m_output, index);
        }
        ++result.checked;
        m_samples.push_back(std::move(s));
    }

    void judge(CheckResult& result, double rtol, double atol)
    {
        double scale = 1;
        if (!m_exact)
            for (const Sample& s : m_samples)
                if (std::isfinite(s.r)) scale = std::max(scale, std::fabs(s.r));
        atol *= scale;
        for (const Sample& s : m_samples) {
            if (m_exact) {
                note(result, std::fabs(static_cast<double>(s.ai) - static_cast<double>(s.ri)),
                     static_cast<double>(s.ri));
                if (s.ai != s.ri)
                    mismatch(result, s.index, std::to_string(s.ai), std::to_string(s.ri));
                continue;
            }
            bool same;
            if (std::isnan(s.r) || std::isnan(s.a)) {
                same = std::isnan(s.r) && std::isnan(s.a);
            } else if (std::isinf(s.r) || std::isinf(s.a)) {
                same = s.a == s.r;
            } else {
                const double diff = std::fabs(s.a - s.r);
                note(result, diff, s.r);
                same = diff <= atol + rtol * std::fabs(s.r);
            }
            if (!same) {
                const DataType t = m_output->dtype;
                mismatch(result, s.index, formatValue(s.a, t), formatValue(s.r, t));
            }
        }
    }

private:
    struct Sample {
        std::vector<std::int64_t> index;
        double a, r;         // floats
        std::int64_t ai, ri; // integers and bool
    };

    static void note(CheckResult& result, double diff, double r)
    {
        result.maxAbsError = std::max(result.maxAbsError, diff);
        if (r != 0) result.maxRelError = std::max(result.maxRelError, diff / std::fabs(r));
    }

    void mismatch(CheckResult& result, const std::vector<std::int64_t>& index,
                  const std::string& actual, const std::string& expected)
    {
        if (result.mismatches++ == 0) {
            result.firstMismatch =
                formatElement(m_output->name, index) + " = " + actual + " but expected " + expected;
        }
    }

    const ReferenceEvaluator& m_reference;
    const Tensor& m_output;
    const HostBuffer& m_actual;
    bool m_exact;
    std::vector<Sample> m_samples;
};

} // namespace

Tolerance defaultTolerance(DataType t)
{
    if (t.isFloat() && t.bits == 64) return {1e-9, 1e-12};
    if (t.isFloat() && t.bits == 16) return {1e-2, 1e-3};
    if (t.isFloat()) return {1e-4, 1e-5};
    return {0, 0};
}

CheckResult checkOutput(const ReferenceEvaluator& reference, const Tensor& output,
                        const HostBuffer& actual, double rtol, double atol, std::uint64_t seed,
                        std::int64_t maxFullElements)
{
    CheckResult result;
    Checker checker(reference, output, actual);
    try {
        std::vector<std::int64_t> shape = reference.shape(output);
        if (actual.shape() != shape || actual.dtype() != output->dtype) {
            result.error = "the output buffer is " + actual.describe() + " but '" + output->name +
                           "' is " + output->dtype.str() + formatElement("", shape);
            return result;
        }
        std::int64_t count = actual.elementCount();
        std::size_t ndim = shape.size();
        std::vector<std::int64_t> index(ndim, 0);
        if (count == 0) {
            // Nothing to compare.
        } else if (count <= maxFullElements) {
            for (std::int64_t n = 0; n < count; ++n) {
                checker.check(index, result);
                for (std::size_t d = ndim; d-- > 0;) { // row-major odometer
                    if (++index[d] < shape[d]) break;
                    index[d] = 0;
                }
            }
        } else {
            // Corners: bit d of `mask` picks the last index of dimension d; a dimension of size
            // one has a single corner.
            std::uint64_t corners = std::uint64_t{1} << std::min<std::size_t>(ndim, 20);
            for (std::uint64_t mask = 0; mask < corners; ++mask) {
                bool duplicate = false;
                for (std::size_t d = 0; d < ndim; ++d) {
                    bool last = d < 20 && ((mask >> d) & 1);
                    if (last && shape[d] == 1) duplicate = true;
                    index[d] = last ? shape[d] - 1 : 0;
                }
                if (!duplicate) checker.check(index, result);
            }
            std::uint64_t state = seed;
            for (std::int64_t n = 0; n < kSamples; ++n) {
                for (std::size_t d = 0; d < ndim; ++d) {
                    auto extent = static_cast<std::uint64_t>(shape[d]);
                    index[d] = static_cast<std::int64_t>(splitMix64(state) % extent);
                }
                checker.check(index, result);
            }
        }
    } catch (const ReferenceStepLimit& e) {
        // Every element of an output costs about the same: the rest would not fit either.
        result.skipped = std::string(e.what()) + ": " +
                         (result.checked ? "compared " + std::to_string(result.checked) +
                                               " elements, not the rest"
                                         : "not compared");
    } catch (const ReferenceError& e) {
        result.error = e.what();
        return result;
    }
    checker.judge(result, rtol, atol);
    result.ok = result.mismatches == 0;
    return result;
}

} // namespace loopscope
