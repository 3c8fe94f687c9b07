// State changed for the extent of a scope and put back when the scope ends, however it ends (an
// exception included): a value, elements of a set, a map's entry. The code generator's walks over
// the IR keep their state through these (see CodegenLLVMInternal.h).
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace loopscope::codegen {

// A value for the extent of a scope: the outer value is back when the scope ends.
template <typename T> class Scoped {
public:
    Scoped(T& slot, T value) : m_slot(slot), m_outer(std::exchange(slot, std::move(value))) {}
    ~Scoped() { m_slot = std::move(m_outer); }
    Scoped(const Scoped&) = delete;
    Scoped& operator=(const Scoped&) = delete;

private:
    T& m_slot;
    T m_outer;
};

// Elements in a set for the extent of a scope: those it adds are taken out when the scope ends.
template <typename Set> class ScopedInsert {
public:
    explicit ScopedInsert(Set& set) : m_set(set) {}
    ~ScopedInsert()
    {
        for (auto& k : m_added)
            m_set.erase(k);
    }
    ScopedInsert(const ScopedInsert&) = delete;
    ScopedInsert& operator=(const ScopedInsert&) = delete;

    void insert(const typename Set::key_type& k)
    {
        if (m_set.count(k)) return;
        m_added.push_back(k);
        m_set.insert(k);
    }

private:
    Set& m_set;
    std::vector<typename Set::key_type> m_added;
};

// Elements out of a set for the extent of a scope: those it takes out are put back when the
// scope ends.
template <typename Set> class ScopedErase {
public:
    explicit ScopedErase(Set& set) : m_set(set) {}
    ~ScopedErase()
    {
        for (auto& k : m_removed)
            m_set.insert(k);
    }
    ScopedErase(const ScopedErase&) = delete;
    ScopedErase& operator=(const ScopedErase&) = delete;

    void erase(const typename Set::key_type& k)
    {
        m_removed.push_back(k);
        if (!m_set.erase(k)) m_removed.pop_back();
    }

private:
    Set& m_set;
    std::vector<typename Set::key_type> m_removed;
};

// A map's entry for a key for the extent of a scope: the outer entry, or none, is back when the
// scope ends.
template <typename Map> class ScopedEntry {
public:
    ScopedEntry(Map& map, const typename Map::key_type& key, typename Map::mapped_type value)
        : m_map(map), m_key(key)
    {
        if (auto it = map.find(key); it != map.end()) m_outer = it->second;
        map[key] = std::move(value);
    }
    ~ScopedEntry()
    {
        if (m_outer)
            m_map[m_key] = std::move(*m_outer);
        else
            m_map.erase(m_key);
    }
    ScopedEntry(const ScopedEntry&) = delete;
    ScopedEntry& operator=(const ScopedEntry&) = delete;

private:
    Map& m_map;
    typename Map::key_type m_key;
    std::optional<typename Map::mapped_type> m_outer;
};

} // namespace loopscope::codegen
