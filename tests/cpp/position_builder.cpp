#include "position_builder.h"

namespace carc::testing {

State game_with_draws(std::vector<std::string> draws, int players) {
  Config config;
  config.players = players;
  config.draw_order = std::move(draws);
  return State(config);
}

State position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
               std::vector<std::string> draws, int players, int current_player) {
  Position p;
  p.config.players = players;
  p.config.draw_order = std::move(draws);
  p.tiles = std::move(tiles);
  p.figures = std::move(figures);
  p.current_player = current_player;
  return State::from_position(p);
}

void play(State& state, const std::vector<std::string>& actions) {
  for (const std::string& a : actions) state.apply(state.parse_action(a));
}

void turn(State& state, const std::string& place, const std::string& figure) {
  state.apply(state.sample_chance());
  state.apply(state.parse_action(place));
  // A figure decision with nothing but "pass" to choose is skipped by the engine.
  if (state.phase() == Phase::PlaceFigure) state.apply(state.parse_action(figure));
}

}  // namespace carc::testing
