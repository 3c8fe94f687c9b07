// The worker's JSON (app/worker/RequestHandler.h) in one place: requests encoded from their plain
// values, replies decoded into them. The client is its only user, apart from the sweep points the
// app keeps between sessions in their JSON form (charts/SweepStore.h).
#pragma once

#include "worker/WorkerReplies.h"
#include "worker/WorkerRequests.h"

#include <QJsonArray>
#include <QJsonObject>

namespace loopscope::worker {

// {"cmd": ..., arguments}: the request without its "id", which the client adds.
QJsonObject encode(const PingRequest& request);
QJsonObject encode(const MeasureRequest& request);
QJsonObject encode(const EmitRequest& request);
QJsonObject encode(const SweepRequest& request);
QJsonObject encode(const MachineRequest& request);
QJsonObject encode(const TuneRequest& request);
QJsonObject encode(const ModelRequest& request);
QJsonObject encode(const ModelChoiceRequest& request);

// Whether a message is a progress message ("status": "progress") rather than a result.
bool isProgress(const QJsonObject& message);

// A progress message: the phase being worked on and the request's overall progress (0..1).
struct Progress {
    QString phase;
    double fraction = 0;
};
Progress decodeProgress(const QJsonObject& message);
// A sweep's progress message: its point, and how many of the total are done.
SweepProgress decodeSweepProgress(const QJsonObject& message);
TuneProgress decodeTuneProgress(const QJsonObject& message);

// A result message: "ok" (and, for a measurement, "wrong") is Answered, "error" is Refused with
// the error's kind, message and location. Another status is Refused as an internal error.
template <typename T> Reply<T> decode(const QJsonObject& message);
template <> Reply<PingResult> decode<PingResult>(const QJsonObject& message);
template <> Reply<MeasureResult> decode<MeasureResult>(const QJsonObject& message);
template <> Reply<EmitResult> decode<EmitResult>(const QJsonObject& message);
template <> Reply<SweepResult> decode<SweepResult>(const QJsonObject& message);
template <> Reply<MachineResult> decode<MachineResult>(const QJsonObject& message);
template <> Reply<TuneResult> decode<TuneResult>(const QJsonObject& message);
template <> Reply<ModelResult> decode<ModelResult>(const QJsonObject& message);
template <> Reply<ModelChoiceResult> decode<ModelChoiceResult>(const QJsonObject& message);

// A sweep point in the form the worker's messages give it and its "known" field takes back.
QJsonObject encodeSweepPoint(const SweepPoint& point);
// Nullopt when the object has no variant or no values.
std::optional<SweepPoint> decodeSweepPoint(const QJsonObject& point);
QList<SweepPoint> decodeSweepPoints(const QJsonArray& points);

} // namespace loopscope::worker
