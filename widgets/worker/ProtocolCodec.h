// The worker protocol's codec (protocol/Codec.h) for code that sees Qt's headers. The codec reads
// an emit reply with Incoming::emit(), a name Qt's keyword macro `emit` erases, so the codec is
// included here with that macro set aside, and emitReplyOf() reads an emit reply anywhere.
#pragma once

#pragma push_macro("emit")
#undef emit
#include "protocol/Codec.h"

namespace loopscope::worker {

inline protocol::EmitReply emitReplyOf(const protocol::Incoming& message)
{
    return message.emit();
}

} // namespace loopscope::worker

#pragma pop_macro("emit")
