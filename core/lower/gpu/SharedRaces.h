// Races on shared memory: two threads of a block that access one element between two barriers,
// one of them writing (a GPU gives either order, so the result depends on timing). Found by
// running each thread of the first block of every kernel over its indices, without data: loops,
// conditions and lets whose values depend only on indices are followed; accesses whose index
// depends on loaded data, and branches on such conditions, are left out, so a race reported is a
// race, and one left out is possible only where indices depend on data.
#pragma once

#include "ir/Stmt.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace loopscope {

struct SharedRaceAccess {
    std::array<std::int64_t, 3> thread{}; // threadIdx.x, .y, .z
    bool write = false;
    std::string statement; // the buffer the statement stores into ("A_shared", "C_local")
};

struct SharedRace {
    std::string buffer; // the shared buffer
    std::int64_t element = 0;
    SharedRaceAccess first, second; // the lower-numbered thread first
    std::string kernel;             // "kernel 1 of 3" where there are several, else empty
};

struct SharedRaceLimits {
    int barrierIntervals = 16;         // of each kernel: its first intervals between barriers
    std::int64_t accesses = 4'000'000; // shared accesses in all
    std::int64_t stores = 4'000'000;   // statements that store, in each kernel
};

// `s` after lowerForDevice (with its barriers): the first race found, if any.
std::optional<SharedRace> findSharedRace(const Stmt& s, const SharedRaceLimits& limits = {});

// "threads (1, 0, 0) and (0, 0, 0) access A_shared[37] between two barriers: the first writes
// it (storing into A_shared), the second reads it (storing into C_local)".
std::string describeSharedRace(const SharedRace& r);

} // namespace loopscope
