#include "position_builder.h"

#include <algorithm>

namespace carc::testing {

State game_with_draws(std::vector<std::string> draws, int players) {
  Config config;
  config.players = players;
  config.draw_order = std::move(draws);
  return State(config);
}

State position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures, std::vector<std::string> draws,
               int players, int current_player) {
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

Position described(std::vector<std::string> expansions, std::vector<Position::Tile> tiles,
                   std::vector<Position::Figure> figures, std::vector<std::string> draws, int current_player,
                   std::map<std::string, std::string> variants, int players) {
  Position p;
  p.config.players = players;
  p.config.expansions = std::move(expansions);
  p.config.variants = std::move(variants);
  p.config.draw_order = std::move(draws);
  if (p.config.draw_order.empty()) p.bag = std::vector<std::string>{};
  p.tiles = std::move(tiles);
  p.figures = std::move(figures);
  p.current_player = current_player;
  return p;
}

State position_in(std::vector<std::string> expansions, std::vector<Position::Tile> tiles,
                  std::vector<Position::Figure> figures, std::vector<std::string> draws, int current_player,
                  std::map<std::string, std::string> variants, int players) {
  return State::from_position(described(std::move(expansions), std::move(tiles), std::move(figures), std::move(draws),
                                        current_player, std::move(variants), players));
}

std::vector<std::string> legal_texts(const State& state) {
  std::vector<std::string> out;
  for (Action a : state.legal_actions()) out.push_back(state.action_to_string(a));
  return sorted(std::move(out));
}

std::vector<std::string> sorted(std::vector<std::string> texts) {
  std::sort(texts.begin(), texts.end());
  return texts;
}

bool offers(const State& state, const std::string& text) {
  std::vector<std::string> all = legal_texts(state);
  return std::find(all.begin(), all.end(), text) != all.end();
}

}  // namespace carc::testing
