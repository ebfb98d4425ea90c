// Actions as text (game.h): action_to_string, parse_action (which inverts it), and the text
// picture of a state.
#include <array>
#include <cctype>
#include <charconv>
#include <sstream>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

std::string State::action_to_string(Action a) const {
  switch (a.kind()) {
    case ActionKind::Draw:
      return a.tile_kind() < catalogue().size() ? "draw " + catalogue().kind(KindId(a.tile_kind())).name
                                                : "draw #" + std::to_string(a.tile_kind());
    case ActionKind::Place: return "place " + cell_text(a.cell()) + " r" + std::to_string(a.rotation());
    case ActionKind::Pass: return "pass";
    case ActionKind::Abbey: return "abbey " + cell_text(a.cell());
    case ActionKind::TakeTile: return "take-tile";
    case ActionKind::Arrow: return "arrow " + cell_text(a.cell());
    case ActionKind::Quarter:
      return std::string(figure_kind_name(a.figure_kind())) + " @" + kQuarterNames[int(a.quarter())];
    case ActionKind::Count: return std::string("count ") + kQuarterNames[int(a.quarter())];
    case ActionKind::Figure: {
      std::string name = figure_kind_name(a.figure_kind());
      if (a.figure_kind() == FigureKind::Barn) return name + " " + kCornerNames[a.feature() & 3];
      std::string type = "feature";
      int slot = a.elsewhere() ? board_.slot_at(a.figure_cell()) : turn_.last_slot;
      if (slot >= 0) {
        const PlacedTile& t = board_.tile(slot);
        if (a.feature() < catalogue().kind(t.kind).num_segments)
          type = feature_type_name(features_[t.first_segment + a.feature()].type);
      }
      std::string text = name + " " + type + "#" + std::to_string(a.feature());
      return a.elsewhere() ? text + " @" + cell_text(a.figure_cell()) : text;
    }
  }
  return "action #" + std::to_string(a.code);
}

Action State::parse_action(std::string_view text) const {
  auto bad = [&](const std::string& why) -> IllegalActionError {
    return IllegalActionError("cannot parse action '" + std::string(text) + "': " + why);
  };
  // The words, split at white space without a copy (legal-action checks parse every action's
  // text): no action has more than three, the fourth is kept for the error message.
  std::array<std::string_view, 4> words{};
  size_t count = 0;
  for (size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (count < words.size()) words[count] = text.substr(i, end - i);
    ++count;
    i = end;
  }
  const std::string verb(words[0]);
  auto parse_int = [&](std::string_view s, int& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
  };
  auto parse_cell = [&](std::string_view s, Cell& c) {
    auto comma = s.find(',');
    int x = 0, y = 0;
    if (comma == std::string::npos || !parse_int(s.substr(0, comma), x) || !parse_int(s.substr(comma + 1), y))
      return false;
    if (std::abs(x) >= kCoordLimit - 1 || std::abs(y) >= kCoordLimit - 1) throw bad("cell out of range");
    c = Cell{int16_t(x), int16_t(y)};
    return true;
  };
  auto expect_words = [&](size_t n) {
    if (count > n) throw bad("unexpected '" + std::string(words[n]) + "'");
    if (count < n) throw bad("too few words");
  };
  Cell cell;
  if (verb == "pass" || verb == "take-tile") {
    expect_words(1);
    return verb == "pass" ? Action::pass() : Action::take_tile();
  }
  if (verb == "draw") {
    expect_words(2);
    if (!catalogue().contains(words[1])) throw bad("unknown tile '" + std::string(words[1]) + "'");
    return Action::draw(catalogue().find(words[1]));
  }
  if (verb == "abbey" || verb == "arrow") {
    expect_words(2);
    if (!parse_cell(words[1], cell)) throw bad("expected '" + verb + " <x>,<y>'");
    return verb == "abbey" ? Action::abbey(cell) : Action::arrow(cell);
  }
  if (verb == "place") {
    int r = 0;
    if (count < 3 || !parse_cell(words[1], cell)) throw bad("expected 'place <x>,<y> r<rotation>'");
    if (words[2].size() != 2 || words[2][0] != 'r' || !parse_int(words[2].substr(1), r) || r > 3)
      throw bad("rotation must be r0, r1, r2 or r3");
    expect_words(3);
    return Action::place(cell, r);
  }
  if (verb == "count") {
    expect_words(2);
    for (int q = 0; q < kNumQuarters; ++q)
      if (words[1] == kQuarterNames[q]) return Action::count_to(Quarter(q));
    throw bad("the Count goes to a quarter: castle, market, blacksmith or cathedral");
  }
  if (count == 2 && words[1].size() > 1 && words[1][0] == '@' &&
      !std::isdigit(static_cast<unsigned char>(words[1][1])) && words[1][1] != '-') {
    for (int f = 0; f < kNumFigureKinds; ++f)
      for (int q = 0; q < kNumQuarters; ++q)
        if (verb == figure_kind_name(FigureKind(f)) && words[1].substr(1) == kQuarterNames[q])
          return Action::enter_city(FigureKind(f), Quarter(q));
    throw bad("expected '<figure> @<quarter>' with a quarter: castle, market, blacksmith or cathedral");
  }
  if (verb == "barn") {
    expect_words(2);
    for (int corner = 0; corner < 4; ++corner)
      if (words[1] == kCornerNames[corner]) return Action::figure(FigureKind::Barn, corner);
    throw bad("a barn goes on a corner: NE, SE, SW or NW");
  }
  for (int f = 0; f < kNumFigureKinds; ++f) {
    if (verb != figure_kind_name(FigureKind(f))) continue;
    const std::string_view arg = words[1];
    auto hash = arg.find('#');
    int index = 0;
    if (hash == std::string_view::npos || !parse_int(arg.substr(hash + 1), index) || index < 0 ||
        index >= kMaxSegmentsPerTile)
      throw bad("expected '" + verb + " <feature>#<index>'");
    bool elsewhere = count >= 3;
    if (elsewhere && (words[2][0] != '@' || !parse_cell(words[2].substr(1), cell)))
      throw bad("expected '@<x>,<y>' after the feature");
    expect_words(elsewhere ? 3 : 2);
    int slot = elsewhere ? board_.slot_at(cell) : (turn_.phase == Phase::PlaceFigure ? turn_.last_slot : -1);
    if (elsewhere && slot < 0) throw bad("no tile at " + cell_text(cell));
    if (slot >= 0) {
      const PlacedTile& t = board_.tile(slot);
      if (index >= catalogue().kind(t.kind).num_segments)
        throw bad("the tile has no feature #" + std::to_string(index));
      std::string_view type = arg.substr(0, hash);
      std::string actual = feature_type_name(features_[t.first_segment + index].type);
      if (actual != type)
        throw bad("feature #" + std::to_string(index) + " of " + catalogue().kind(t.kind).name + " is a " + actual +
                  ", not a " + std::string(type));
    }
    return elsewhere ? Action::figure_at(FigureKind(f), index, cell) : Action::figure(FigureKind(f), index);
  }
  throw bad("unknown verb '" + verb +
            "' (draw, place, pass, meeple, mayor, wagon, barn, abbey, take-tile, arrow, count)");
}

std::string State::to_string() const {
  std::ostringstream out;
  out << "turn " << turn_.number << ", player " << int(turn_.player) << ", " << phase_name(turn_.phase);
  if (turn_.phase == Phase::PlaceTile || turn_.phase == Phase::PlaceFigure)
    out << " (" << catalogue().kind(turn_.drawn).name << ")";
  out << "\nscores:";
  for (int p = 0; p < rules_.players; ++p) out << ' ' << scores_[p];
  out << "\nmeeples in supply:";
  for (int p = 0; p < rules_.players; ++p) out << ' ' << int(supply_[p][0]);
  out << "\ntiles: " << board_.num_tiles() << " placed, " << bag_.size() << " in the bag, " << turn_.discarded
      << " discarded\n";
  return out.str();
}

}  // namespace carc
