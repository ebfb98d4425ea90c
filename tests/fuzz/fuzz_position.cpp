// libFuzzer target: State::from_position on positions decoded from the input's bytes. Half the
// inputs (first byte even) describe a position from scratch: tiles each beside an earlier one,
// figures on them, scores, holders, a bag; the others take the position of a game played by the
// input's bytes and change parts of it (a tile's kind, cell or rotation, a figure, a score, who
// is to move), so that most are nearly valid and reach the deep checks. Every input must either
// be refused with ConfigError or PositionError, or give a consistent state whose own position
// sets up the same game (tests/cpp/invariants.h: the next 40 actions are played on both).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_input.h"
#include "tests/cpp/invariants.h"

namespace carc {
namespace {

const std::string& kind_name(fuzz::Input& in) {
  const Catalogue& cat = Catalogue::builtin();
  return cat.kind(KindId(in.below(uint32_t(cat.size())))).name;
}

Position from_scratch(fuzz::Input& in, const Config& config) {
  Position p;
  p.config = config;
  const int tiles = in.byte() % 48;
  for (int i = 0; i < tiles; ++i) {
    Cell cell{0, 0};
    if (i > 0) cell = neighbour(p.tiles[in.below(uint32_t(i))].cell, Side(in.byte() % 4));
    p.tiles.push_back({kind_name(in), cell, in.byte() % 4});
  }
  const int figures = in.byte() % 10;
  const char* kinds[] = {"meeple", "mayor", "wagon", "barn", "robot"};
  for (int i = 0; i < figures && tiles > 0; ++i)
    p.figures.push_back(
        {in.byte() % 7 - 1, kinds[in.byte() % 5], p.tiles[in.below(uint32_t(tiles))].cell, in.byte() % 8 - 1});
  if (in.byte() & 1)
    for (int i = 0; i < config.players; ++i) p.scores.push_back(in.byte() - 8);
  if (in.byte() & 1) {
    p.bag.emplace();
    const int bag = in.byte() % 16;
    for (int i = 0; i < bag; ++i) p.bag->push_back(kind_name(in));
  }
  p.current_player = in.byte() % 8 - 1;
  p.king = in.byte() % 8 - 2;
  p.robber = in.byte() % 8 - 2;
  p.extra_turn = in.byte() & 1;
  p.last_placer = in.byte() % 8 - 2;
  p.final_round_left = in.byte() % 8 - 1;
  p.turn_number = in.byte() - 2;
  p.discarded = in.byte() % 8 - 1;
  return p;
}

Position changed(fuzz::Input& in, const Config& config) {
  State s(config);
  in.play(s, in.byte() * 2, [](const State&) {});
  while (!s.is_terminal() && s.phase() != Phase::Draw && s.phase() != Phase::AbbeyChoice)  // to a turn start
    in.play(s, 1, [](const State&) {});
  if (s.is_terminal()) return from_scratch(in, config);  // a finished game has no position
  Position p = s.to_position();
  const int changes = in.byte() % 4;
  for (int i = 0; i < changes; ++i) {
    switch (in.byte() % 8) {
      case 0:
        if (!p.tiles.empty()) p.tiles[in.below(uint32_t(p.tiles.size()))].kind = kind_name(in);
        break;
      case 1:
        if (!p.tiles.empty()) p.tiles[in.below(uint32_t(p.tiles.size()))].rotation = in.byte() % 5;
        break;
      case 2:
        if (!p.tiles.empty()) {
          auto& t = p.tiles[in.below(uint32_t(p.tiles.size()))];
          t.cell = neighbour(t.cell, Side(in.byte() % 4));
        }
        break;
      case 3:
        if (!p.figures.empty()) p.figures[in.below(uint32_t(p.figures.size()))].feature = in.byte() % 8;
        break;
      case 4:
        if (!p.tiles.empty()) p.figures.push_back({in.byte() % 6, "meeple", p.tiles.back().cell, in.byte() % 6});
        break;
      case 5:
        if (!p.scores.empty()) p.scores[in.below(uint32_t(p.scores.size()))] += in.byte() - 128;
        break;
      case 6: p.current_player = in.byte() % 7 - 1; break;
      case 7:
        if (!p.tiles.empty()) p.tiles.erase(p.tiles.begin() + in.below(uint32_t(p.tiles.size())));
        break;
    }
  }
  return p;
}

}  // namespace
}  // namespace carc

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carc;
  fuzz::Input in(data, size);
  const bool scratch = in.byte() % 2 == 0;
  std::optional<Config> config = in.valid_config();
  if (!config) return 0;
  Position position = scratch ? from_scratch(in, *config) : changed(in, *config);
  State s = [&] {
    try {
      return State::from_position(position);
    } catch (const ConfigError&) {
    } catch (const PositionError&) {
    }
    return State(*config);  // refused with a message: check the new game instead
  }();
  s.check_consistency();
  if (s.phase() != Phase::Draw && s.phase() != Phase::AbbeyChoice) return 0;
  Rng rng(size);
  invariants::check_position_round_trip(s, rng, 40);
  return 0;
}
