// What the other modules ask of main.js (play a move, draw the page again, show a game state,
// show an earlier board) and board.js of panels.js (redraw the turn panel). main.js fills in
// each at start; through this table no module imports main.js, and board.js does not import
// panels.js, so the modules import no circle.
export const actions = {
  play: async (action) => {},
  render: () => {},
  setGame: (game, fit = false) => {},
  created: (game) => {},
  replayTo: async (moves) => {},
  renderTurn: () => {},
};
