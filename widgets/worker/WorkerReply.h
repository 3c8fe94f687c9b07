// How a request to the background worker ended, as the window's client tells its continuation
// (worker/WorkerClient.h): the worker's answer in the protocol's own types (protocol/Messages.h),
// its error, or the client's failure. And the conversions between the protocol's std strings and
// Qt's that the window's parts use to show them.
#pragma once

#include "protocol/Messages.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace loopscope::worker {

// How a request ended; its continuation is told exactly once.
template <typename T> struct Reply {
    enum class Ending {
        Answered,  // the worker's result: `result`
        Refused,   // the worker's error result: `error`
        Failed,    // the worker crashed, ran past the time limit or could not be started: `failure`
        Cancelled, // cancelled before it ended
    };
    Ending ending = Ending::Cancelled;
    T result{};
    protocol::ErrorReply error;
    QString failure; // in plain words, as the client says it

    bool answered() const { return ending == Ending::Answered; }
    bool refused() const { return ending == Ending::Refused; }
    bool cancelled() const { return ending == Ending::Cancelled; }
    // What went wrong, as a user reads it: the error's message or the failure; empty otherwise.
    QString message() const
    {
        if (ending == Ending::Refused) return QString::fromStdString(error.message);
        if (ending == Ending::Failed) return failure;
        return {};
    }
};

inline QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

inline QStringList qsList(const std::vector<std::string>& list)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(list.size()));
    for (const std::string& s : list)
        out << QString::fromStdString(s);
    return out;
}

inline std::vector<std::string> stdList(const QStringList& list)
{
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(list.size()));
    for (const QString& s : list)
        out.push_back(s.toStdString());
    return out;
}

} // namespace loopscope::worker
