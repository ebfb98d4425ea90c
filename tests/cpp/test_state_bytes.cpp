// State::to_bytes / from_bytes (pickling): exact round trips, and damaged bytes either refused
// with RecordError or giving a state that is consistent and plays on (never a crash).
// Positions at every chance node keep the node (Position::tile_taken) are here too.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/game.h"
#include "invariants.h"

namespace carc {
namespace {

// Every mix of the supported expansions and starts, as the fuzzers' inputs read them
// (tests/fuzz/fuzz_input.h): abbey-mayor, anniv20, king-robber, shrines on or off, times the
// starts tile, river2, city and city_plain; 2-6 players and the variants vary with the mix.
std::vector<Config> every_mix() {
  std::vector<Config> out;
  const char* names[] = {"abbey-mayor", "anniv20", "king-robber", "shrines"};
  const char* starts[] = {"tile", "river2", "city", "city_plain"};
  for (int mix = 0; mix < 64; ++mix) {
    Config c;
    c.players = 2 + mix % 5;
    for (int i = 0; i < 4; ++i)
      if (mix >> i & 1) c.expansions.push_back(names[i]);
    c.variants["start"] = starts[mix >> 4];
    if (mix & 1) {
      c.variants["abbey_endgame"] = std::vector<std::string>{"mandatory", "final_round", "none"}[mix % 3];
      c.variants["wagon_move"] = mix / 3 % 2 ? "c1" : "c2";
    }
    if (mix >> 4 == 2) c.variants["count_move"] = std::vector<std::string>{"free", "clockwise", "follow"}[mix % 3];
    c.seed = 1000u + uint64_t(mix);
    try {
      out.push_back(validate(c));
    } catch (const ConfigError&) {  // River II with the City (CK-0)
    }
  }
  return out;
}

// Plays a random game of this config, calling visit(state) at every node before its action.
template <class Visit>
void play(const Config& config, Visit visit) {
  State s(config);
  Rng rng(config.seed);
  while (!s.is_terminal()) {
    visit(s);
    std::vector<Action> legal = s.legal_actions();
    s.apply(s.is_chance() ? s.sample_chance() : legal[rng.below(uint32_t(legal.size()))]);
  }
  visit(s);
}

// Accepted bytes must give a consistent state that plays on to the end.
void expect_playable(State s, uint64_t seed, int max_moves = 400) {
  s.check_consistency();
  Rng rng(seed);
  for (int moves = 0; !s.is_terminal() && moves < max_moves; ++moves) {
    std::vector<Action> legal = s.legal_actions();
    ASSERT_FALSE(legal.empty());
    s.apply(s.is_chance() ? s.sample_chance() : legal[rng.below(uint32_t(legal.size()))]);
    s.check_consistency();
  }
}

TEST(StateBytes, RoundTripIsExactAtEveryNodeOfEveryMix) {
  for (const Config& config : every_mix()) {
    int nodes = 0;
    play(config, [&](const State& s) {
      if (++nodes % 7 != 0 && !s.is_terminal()) return;  // every 7th node, and the end
      State back = State::from_bytes(s.to_bytes());
      ASSERT_TRUE(back.same_position(s)) << s.to_string();
      ASSERT_EQ(back.to_bytes(), s.to_bytes());
    });
  }
}

TEST(StateBytes, RefusesBytesOfAnotherBuildOrNoState) {
  State s(Config{});
  std::string bytes = s.to_bytes();
  EXPECT_THROW(State::from_bytes(""), RecordError);
  EXPECT_THROW(State::from_bytes("not a state at all, but long enough to hold a header"), RecordError);
  EXPECT_THROW(State::from_bytes(bytes.substr(0, bytes.size() - 1)), RecordError);
  EXPECT_THROW(State::from_bytes(bytes + "x"), RecordError);
  std::string other_format = bytes;
  ++other_format[8];  // the format number follows the 8-byte magic
  EXPECT_THROW(State::from_bytes(other_format), RecordError);
}

// Every single byte of the state changed (to several values), in games of several mixes at
// several nodes: refused, or a consistent state that plays on. Most changes are refused; those
// accepted touch bytes that are free (the PRNG, scores, unused list slots).
TEST(StateBytes, EverySingleByteChangeIsRefusedOrHarmless) {
  std::vector<Config> mixes = every_mix();
  int refused = 0, accepted = 0;
  for (size_t m = 0; m < mixes.size(); m += 21) {
    int nodes = 0;
    std::vector<std::string> samples;
    play(mixes[m], [&](const State& s) {
      if (++nodes == 40 + int(m)) samples.push_back(s.to_bytes());
    });
    for (const std::string& original : samples) {
      const size_t header = original.size() - sizeof(State);
      for (size_t i = header; i < original.size(); ++i)
        for (uint8_t change : {uint8_t(1), uint8_t(0xFF)}) {
          std::string bytes = original;
          bytes[i] = char(uint8_t(bytes[i]) ^ change);
          try {
            State s = State::from_bytes(bytes);
            ++accepted;
            if (i % 61 == 0) expect_playable(s, i, 30);  // a sample: playing on is slower
          } catch (const RecordError&) {
            ++refused;
          }
        }
    }
  }
  EXPECT_GT(refused, 10000);
  EXPECT_GT(accepted, 0);
  std::printf("single byte changes: %d refused, %d accepted\n", refused, accepted);
}

// Many bytes changed at once, as the issue found (200 random bytes after the header): refused,
// or consistent and playable.
TEST(StateBytes, ManyRandomByteChangesAreRefusedOrHarmless) {
  std::vector<Config> mixes = every_mix();
  int refused = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Config& config = mixes[seed % mixes.size()];
    std::string bytes;
    int nodes = 0;
    play(config, [&](const State& s) {
      if (++nodes == 60) bytes = s.to_bytes();
    });
    if (bytes.empty()) continue;
    Rng rng(seed);
    const size_t header = bytes.size() - sizeof(State);
    const int flips = seed % 3 == 0 ? 200 : 1 + int(seed % 7);
    for (int i = 0; i < flips; ++i) bytes[header + rng.below(uint32_t(sizeof(State)))] = char(rng.next());
    try {
      expect_playable(State::from_bytes(bytes), seed);
    } catch (const RecordError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
  std::printf("random byte changes: %d of 300 refused\n", refused);
}

// A position taken at any chance node (a draw: at a turn start, after "take-tile", after a
// discarded tile) or abbey choice sets up the same node: same phase, player, turn number,
// discarded tiles, actions, draws, and the same game from there.
TEST(Positions, RoundTripAtEveryChanceNodeOfEveryMix) {
  int taken = 0, after_discards = 0;
  for (const Config& config : every_mix()) {
    Rng rng(config.seed);
    play(config, [&](const State& s) {
      if (s.phase() != Phase::Draw && s.phase() != Phase::AbbeyChoice) return;
      Position p = s.to_position();
      taken += p.tile_taken;
      after_discards += s.discarded() > 0;
      State copy = State::from_position(p);
      ASSERT_EQ(copy.phase(), s.phase()) << phase_name(s.phase()) << " at turn " << s.turn_number();
      ASSERT_EQ(copy.current_player(), s.current_player());
      ASSERT_EQ(copy.turn_number(), s.turn_number());
      ASSERT_EQ(copy.discarded(), s.discarded()) << "at turn " << s.turn_number();
      invariants::check_position_round_trip(s, rng, 6);
    });
  }
  EXPECT_GT(taken, 0);           // the case of the issue: draws after "take-tile" were met
  EXPECT_GT(after_discards, 0);  // and positions after a tile was discarded (B-4)
}

TEST(Positions, TurnNumberAndDiscardedAreCheckedAndKept) {
  Position p = State(Config{}).to_position();
  EXPECT_EQ(p.turn_number, 0);
  EXPECT_EQ(p.discarded, 0);
  p.turn_number = 12;
  EXPECT_EQ(State::from_position(p).turn_number(), 12);
  p.turn_number = -1;
  EXPECT_THROW(State::from_position(p), PositionError);
  p.turn_number = 0;
  // Every tile of the bag is placed or left in it: none can have been discarded.
  p.discarded = 1;
  EXPECT_THROW(State::from_position(p), PositionError);
  p.discarded = -1;
  EXPECT_THROW(State::from_position(p), PositionError);
  // Two tiles neither placed nor in the bag: up to two were discarded.
  p.bag->pop_back();
  p.bag->pop_back();
  p.discarded = 2;
  EXPECT_EQ(State::from_position(p).discarded(), 2);
  p.discarded = 3;
  EXPECT_THROW(State::from_position(p), PositionError);
}

TEST(Positions, TileTakenOnlyWhereTakeTileIsLegal) {
  Config config;
  config.expansions = {"abbey-mayor"};
  State s(config);  // no hole yet: the turn starts with the draw
  Position p = s.to_position();
  EXPECT_FALSE(p.tile_taken);
  p.tile_taken = true;
  EXPECT_THROW(State::from_position(p), PositionError);
}

}  // namespace
}  // namespace carc
