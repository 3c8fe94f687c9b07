// An append-only list whose copies share what they hold: a sealed, immutable part behind a shared
// pointer, and a short tail of the copy's own. A schedule is copied after every step (the
// before/after views keep each one), and a stage's relations and axes grow by a few at each
// step: as plain vectors, n steps on one stage kept n^2/2 relations (3,000 splits: a gigabyte and
// seconds of copying). Here a copy costs its tail; every kTail appends the tail is sealed into a
// new shared part, so n appends copy about n^2/kTail items in all, and the copies of one history
// share its sealed parts. Read like a const vector; nothing in it changes once sealed, so copies
// held by other threads are never written.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace loopscope {

template <class T> class SharedList {
public:
    static constexpr std::size_t kTail = 64;

    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator() = default;
        const_iterator(const SharedList* list, std::size_t i) : m_list(list), m_i(i) {}
        reference operator*() const { return (*m_list)[m_i]; }
        pointer operator->() const { return &(*m_list)[m_i]; }
        reference operator[](difference_type n) const { return *(*this + n); }
        const_iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator before = *this;
            ++m_i;
            return before;
        }
        const_iterator& operator--()
        {
            --m_i;
            return *this;
        }
        const_iterator operator--(int)
        {
            const_iterator before = *this;
            --m_i;
            return before;
        }
        const_iterator& operator+=(difference_type n)
        {
            m_i = static_cast<std::size_t>(static_cast<difference_type>(m_i) + n);
            return *this;
        }
        const_iterator& operator-=(difference_type n) { return *this += -n; }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b)
        {
            return static_cast<difference_type>(a.m_i) - static_cast<difference_type>(b.m_i);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b)
        {
            return a.m_i == b.m_i;
        }
        friend bool operator!=(const const_iterator& a, const const_iterator& b)
        {
            return !(a == b);
        }
        friend bool operator<(const const_iterator& a, const const_iterator& b)
        {
            return a.m_i < b.m_i;
        }
        friend bool operator>(const const_iterator& a, const const_iterator& b) { return b < a; }
        friend bool operator<=(const const_iterator& a, const const_iterator& b)
        {
            return !(b < a);
        }
        friend bool operator>=(const const_iterator& a, const const_iterator& b)
        {
            return !(a < b);
        }

    private:
        const SharedList* m_list = nullptr;
        std::size_t m_i = 0;
    };
    using iterator = const_iterator;
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;
    using value_type = T;
    using size_type = std::size_t;

    SharedList() = default;
    SharedList(std::vector<T> items) { *this = std::move(items); } // NOLINT: as a vector converts
    SharedList& operator=(std::vector<T> items)
    {
        m_sealed =
            items.empty() ? nullptr : std::make_shared<const std::vector<T>>(std::move(items));
        m_tail.clear();
        return *this;
    }

    std::size_t size() const { return sealedSize() + m_tail.size(); }
    bool empty() const { return size() == 0; }
    const T& operator[](std::size_t i) const
    {
        const std::size_t sealed = sealedSize();
        return i < sealed ? (*m_sealed)[i] : m_tail[i - sealed];
    }
    const T& front() const { return (*this)[0]; }
    const T& back() const { return (*this)[size() - 1]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

    void push_back(T item)
    {
        m_tail.push_back(std::move(item));
        if (m_tail.size() >= kTail) seal();
    }
    void clear()
    {
        m_sealed.reset();
        m_tail.clear();
    }
    std::vector<T> toVector() const { return std::vector<T>(begin(), end()); }

private:
    std::size_t sealedSize() const { return m_sealed ? m_sealed->size() : 0; }
    void seal()
    {
        auto all = std::make_shared<std::vector<T>>();
        all->reserve(size());
        if (m_sealed) all->insert(all->end(), m_sealed->begin(), m_sealed->end());
        for (T& item : m_tail)
            all->push_back(std::move(item));
        m_sealed = std::move(all);
        m_tail.clear();
    }

    std::shared_ptr<const std::vector<T>> m_sealed;
    std::vector<T> m_tail;
};

} // namespace loopscope
