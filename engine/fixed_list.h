// FixedList: a list of at most N values stored in place, so that a State holding lists stays a
// flat, trivially copyable value (clone() is a memcpy).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>

namespace carc {

// Its value is its first size() items: == compares those and ignores the unused rest.
template <class T, int N, class Size = uint8_t>
class FixedList {
 public:
  static constexpr int capacity() { return N; }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == N; }

  T& operator[](int i) {
    assert(i >= 0 && i < size_);
    return items_[i];
  }
  const T& operator[](int i) const {
    assert(i >= 0 && i < size_);
    return items_[i];
  }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  T* begin() { return items_.data(); }
  T* end() { return items_.data() + size_; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }
  bool contains(const T& v) const { return std::find(begin(), end(), v) != end(); }

  void push_back(const T& v) {
    assert(size_ < N);
    items_[size_++] = v;
  }
  void clear() { size_ = 0; }
  // Keeps the first n items.
  void truncate(int n) {
    assert(n >= 0 && n <= size_);
    size_ = Size(n);
  }
  // Removes item i by moving the last one into its place (the order is not kept).
  void swap_remove(int i) { items_[i] = items_[--size_]; }
  // Removes item i, keeping the order of the others.
  void erase(int i) {
    std::copy(begin() + i + 1, end(), begin() + i);
    --size_;
  }

  bool operator==(const FixedList& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  std::array<T, N> items_;  // only the first size_ are meaningful
  Size size_ = 0;
};

}  // namespace carc
