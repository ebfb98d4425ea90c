// xoshiro256** (Blackman & Vigna): a small, fast PRNG kept inside the state, so a game is a
// value: the same seed and the same actions give the same game.
#pragma once

#include <cstdint>

namespace carc {

// SplitMix64's output function (Steele, Lea & Flood): a bijective 64-bit mixer whose output
// bits each depend on every input bit; seeds derived from counters go through it.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// SplitMix64's golden-ratio increment.
inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The next value of the SplitMix64 generator with state x (advanced in place).
inline uint64_t splitmix64(uint64_t& x) { return mix64(x += kGoldenGamma); }

// A seed derived from two values (a run's seed and a game or thread index); `salt` tells the
// users apart, so the same pair gives unrelated seeds in different places.
inline uint64_t mix_seeds(uint64_t a, uint64_t b, uint64_t salt) { return mix64(a * kGoldenGamma + b + salt); }

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }
  void reseed(uint64_t seed) {
    for (uint64_t& w : s_) w = splitmix64(seed);
  }
  uint64_t next() {
    uint64_t result = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Returns a uniform integer in [0, n) (Lemire's multiply-shift; the bias is below 2^-32).
  uint32_t below(uint32_t n) { return uint32_t((next() >> 32) * n >> 32); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace carc
