// The fuzzers' reading of their input bytes: a few bytes choose the rules of a game, then each
// decision takes a byte (two where there are more than 256 choices). Reads past the end give 0,
// so every input means something. tests/fuzz/make_corpus.py writes seed inputs in this layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/game.h"

namespace carc::fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A choice among n > 0: one byte, or two when n > 256.
  uint32_t below(uint32_t n) {
    uint32_t v = byte();
    if (n > 256) v = v << 8 | byte();
    return v % n;
  }
  // What is left, as text.
  std::string rest() {
    std::string text(reinterpret_cast<const char*>(data_ + pos_), pos_ < size_ ? size_ - pos_ : 0);
    pos_ = size_;
    return text;
  }

  // Three bytes: expansions (bit 0 abbey-mayor, 1 anniv20, 2 king-robber, 3 shrines; bits 4-5
  // the start: tile, river2, city, city_plain), players (2 + b % 5) and the variants of the
  // expansions in play (abbey_endgame b % 3, wagon_move b / 3 % 2, count_move b / 6 % 3).
  Config config() {
    uint8_t sets = byte(), players = byte(), variants = byte();
    Config c;
    c.players = 2 + players % 5;
    const char* names[] = {"abbey-mayor", "anniv20", "king-robber", "shrines"};
    for (int i = 0; i < 4; ++i)
      if (sets >> i & 1) c.expansions.push_back(names[i]);
    const char* starts[] = {"tile", "river2", "city", "city_plain"};
    c.variants["start"] = starts[sets >> 4 & 3];
    if (sets & 1) {
      c.variants["abbey_endgame"] = std::vector<std::string>{"mandatory", "final_round", "none"}[variants % 3];
      c.variants["wagon_move"] = variants / 3 % 2 ? "c1" : "c2";
    }
    if ((sets >> 4 & 3) == 2)
      c.variants["count_move"] = std::vector<std::string>{"free", "clockwise", "follow"}[variants / 6 % 3];
    c.seed = sets ^ uint64_t(players) << 8 ^ uint64_t(variants) << 16;
    return c;
  }

  // config(), validated; nullopt for a mix the rules refuse (River II with the City, CK-0).
  std::optional<Config> valid_config() {
    try {
      return validate(config());
    } catch (const ConfigError&) {
      return std::nullopt;
    }
  }

  // Plays `moves` decisions and draws chosen by the input's bytes (at most; fewer if the game
  // ends), each among the sorted legal actions; calls check(s) before each.
  template <class Check>
  void play(State& s, int moves, Check check) {
    for (int i = 0; i < moves && !s.is_terminal(); ++i) {
      check(s);
      std::vector<Action> legal = s.legal_actions();
      s.apply(legal[below(uint32_t(legal.size()))]);
    }
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace carc::fuzz
