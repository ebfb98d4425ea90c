// Helpers for tests: games with a fixed draw order, positions, actions by their text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/game.h"

namespace carc::testing {

// A new game whose bag is exactly `draws`, in order.
State game_with_draws(std::vector<std::string> draws, int players = 2);

// A position: tiles as {kind, x, y, rotation}, figures as {player, kind, x, y, feature}, the bag
// as a fixed draw order.
State position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures, std::vector<std::string> draws,
               int players = 2, int current_player = 0);

// Applies actions given as text ("draw base.E", "place 0,-1 r2", "meeple city#0", "pass").
void play(State& state, const std::vector<std::string>& actions);

// Draws the next tile of a fixed bag, places it and chooses a figure (or "pass").
void turn(State& state, const std::string& place, const std::string& figure = "pass");

// A position with these expansions (and variants); the draws are the bag in order, and no draws
// means an empty bag. `described` returns it unvalidated (to add more), `position_in` sets it up.
Position described(std::vector<std::string> expansions, std::vector<Position::Tile> tiles,
                   std::vector<Position::Figure> figures, std::vector<std::string> draws, int current_player = 0,
                   std::map<std::string, std::string> variants = {}, int players = 2);
State position_in(std::vector<std::string> expansions, std::vector<Position::Tile> tiles,
                  std::vector<Position::Figure> figures, std::vector<std::string> draws, int current_player = 0,
                  std::map<std::string, std::string> variants = {}, int players = 2);

// The texts of the legal actions, sorted as strings, for comparison with expected lists.
std::vector<std::string> legal_texts(const State& state);
std::vector<std::string> sorted(std::vector<std::string> texts);
// Returns true if the action with this text is legal.
bool offers(const State& state, const std::string& text);

}  // namespace carc::testing
