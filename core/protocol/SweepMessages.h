// The sweep family's fields, written once for both directions: sweep, its points and its
// progress. A point is also read outside the worker (the window's store, the chart program),
// leniently: a field of another type is left at its default. See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"
#include "protocol/Json.h"

namespace loopscope::protocol::detail {

// Reads a sweep point's fields without refusing any: those of another type keep their defaults.
class LenientReader {
public:
    static constexpr bool kReading = true;
    explicit LenientReader(const json& in) : m_j(in) {}

    void operator()(const char* name, std::string& x, const Field& = {})
    {
        if (const json* v = find(name); v && v->is_string()) x = v->get<std::string>();
    }
    void operator()(const char* name, int& x, const Field& = {})
    {
        double d = 0;
        (*this)(name, d, {});
        // (A number beyond int's range has no int value: it reads as 0.)
        x = d >= std::numeric_limits<int>::min() && d <= std::numeric_limits<int>::max()
                ? static_cast<int>(d)
                : 0;
    }
    void operator()(const char* name, double& x, const Field& = {})
    {
        const json* v = find(name);
        x = v && v->is_number() ? v->get<double>() : 0.0;
    }
    void operator()(const char* name, bool& x, const Field& = {})
    {
        const json* v = find(name);
        x = v && v->is_boolean() && v->get<bool>();
    }
    // (Checked before: a list of integers.)
    void operator()(const char* name, std::vector<std::int64_t>& x, const Field& = {})
    {
        for (auto& v : *find(name))
            x.push_back(v.get<std::int64_t>());
    }
    // Its strings.
    void operator()(const char* name, std::vector<std::string>& x, const Field& = {})
    {
        if (const json* v = find(name); v && v->is_array())
            for (auto& s : *v)
                if (s.is_string()) x.push_back(s.get<std::string>());
    }

    const json* find(const char* name) const
    {
        auto it = m_j.find(name);
        return it == m_j.end() ? nullptr : &*it;
    }
    // What the object cannot be read as (the first such thing); empty when nothing.
    void fail(const std::string& message)
    {
        if (m_failure.empty()) m_failure = message;
    }
    const std::string& failure() const { return m_failure; }

private:
    const json& m_j;
    std::string m_failure;
};

// Written with one field per swept parameter (its value) as well; `parameters` names them.
template <class V> void fields(V& v, SweepPoint& p, const std::vector<std::string>& parameters)
{
    v("variant", p.variant);
    if constexpr (!V::kReading) {
        for (std::size_t i = 0; i < parameters.size() && i < p.values.size(); ++i)
            v(parameters[i].c_str(), p.values[i]);
    }
    v("values", p.values);
    v("threads", p.threads);
    v("reference", p.reference);
    v("skipped", p.skipped);
    v("failed", p.failed);
    v("checked", p.checked);
    v("cached", p.cached);
    v("message", p.message, {.write = !p.message.empty()});
    v("flops", p.flops);
    v("bytes", p.bytes);
    v("intensity", p.intensity);
    v("run_ms", p.runMs);
    v("ms_median", p.msMedian, {.write = p.measured()});
    v("ms_min", p.msMin, {.write = p.measured()});
    v("ms_max", p.msMax, {.write = p.measured()});
    v("gflops", p.gflops, {.write = p.measured()});
}

// A list of points: written whole; read leniently, a point without variant or values left out.
template <class V>
void points(V& v, const char* name, std::vector<SweepPoint>& list,
            const std::vector<std::string>& parameters)
{
    if constexpr (V::kReading) {
        if (const json* points = v.in().find(name); points && points->is_array())
            for (auto& p : *points)
                if (auto point = sweepPointFromJson(p)) list.push_back(std::move(*point));
    } else {
        json out = json::array();
        for (auto& p : list)
            out.push_back(toJson(p, parameters));
        v.out()[name] = out;
    }
}

template <class V> void fields(V& v, SweepRequest& r)
{
    v("script", r.script, {.required = ", the script's text"});
    v("params", r.parameters);
    v.require(!r.parameters.empty(), "\"params\" must name at least one parameter");
    if constexpr (V::kReading) {
        const Fields& f = v.in();
        if (const json* x = f.find("values")) {
            if (!x->is_array() || x->empty())
                f.fail("\"values\" must be a non-empty list of sizes");
            for (const json& n : *x) {
                if (!n.is_number_integer() || n.get<std::int64_t>() < 1)
                    f.fail("\"values\" must be a non-empty list of positive integers");
                r.values.push_back(n.get<std::int64_t>());
            }
        }
    } else {
        v("values", r.values, {.write = !r.values.empty()});
    }
    v("variants", r.variants);
    v("threads", r.threads, {.min = 0, .max = kMaxThreads});
    v("max_point_s", r.maxPointSeconds, {.atLeast = 0.0});
    v.require(r.maxPointSeconds > 0, "\"max_point_s\" must be more than 0");
    v("check", r.check);
    v("blas", r.blas);
    v("repeat", r.repeat, {.min = 1, .max = kMaxRepeat});
    v("min_repeat_ms", r.minRepeatMs, {.atLeast = 0.0});
    // Points the client measured before: they count as cached instead of being measured again.
    if constexpr (V::kReading) {
        const Fields& f = v.in();
        if (const json* known = f.find("known")) {
            if (!known->is_array()) f.fail("\"known\" must be a list of sweep points");
            for (auto& k : *known) {
                std::optional<SweepPoint> p = sweepPointFromJson(k);
                if (!p || p->values.size() != r.parameters.size() || p->threads < 1)
                    f.fail("\"known\" holds a point without variant, threads or one value per "
                           "parameter");
                r.known.push_back(std::move(*p));
            }
        }
    } else if (!r.known.empty()) {
        points(v, "known", r.known, r.parameters);
    }
}

// (Its status and phase are the line's.)
template <class V> void fields(V& v, SweepUpdate& u)
{
    v("fraction", u.fraction);
    v("done", u.done);
    v("total", u.total);
    v("params", u.parameters);
    if constexpr (V::kReading) {
        if (const json* p = v.in().find("point")) u.point = sweepPointFromJson(*p);
    } else if (u.point) {
        v.out()["point"] = toJson(*u.point, u.parameters);
    }
}

template <class V> void fields(V& v, SweepReply& r)
{
    v("params", r.parameters);
    v("variants", r.variants);
    points(v, "points", r.points, r.parameters);
    v("total", r.total);
    v("measured", r.measured);
    v("threads", r.threads);
    v("blas", r.blas, {.write = !r.blas.empty()});
    v("blas_note", r.blasNote, {.write = !r.blasNote.empty()});
}

// (Its version is the document's; a point that is no sweep point fails the whole request.)
template <class V> void fields(V& v, ChartRequest& r)
{
    v("path", r.path);
    v("kind", r.kind);
    v("reference_label", r.sweep.blas);
    v("peak_gflops", r.peakGflops);
    v("bandwidth_gbs", r.bandwidthGbs);
    v("parameters", r.sweep.parameters);
    if constexpr (V::kReading) {
        if (const json* list = v.find("points"); list && list->is_array()) {
            for (auto& p : *list) {
                std::optional<SweepPoint> point = sweepPointFromJson(p);
                if (!point)
                    return v.fail("point " + std::to_string(r.sweep.points.size() + 1) +
                                  " is not a sweep point");
                r.sweep.points.push_back(std::move(*point));
            }
        }
    } else {
        points(v, "points", r.sweep.points, r.sweep.parameters);
    }
}

} // namespace loopscope::protocol::detail
