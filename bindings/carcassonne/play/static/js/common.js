// Shared by the page's modules: its state, the server API, names and colours, tile geometry.

const SVG_NS = "http://www.w3.org/2000/svg";

export const TILE = 100;

// Polling is the fallback while the game's event stream is down.
export const POLL_MS = 400;
export const IDLE_POLL_MS = 3000;  // while a human is to move: the game may move on in another tab

export const page = {
  options: null,   // /api/options
  tiles: null,     // /api/tiles: {kind: {svg, anchors, ...}}
  game: null,      // the last state from the server
  selected: null,  // at place_tile: {x, y, rotations: {r: action}, rotation}
  rotation: 0,     // the rotation the player last chose
  view: { x: 0, y: 0, scale: 0.7 },
  hints: null,
  followUp: null,  // the second half of a whole-move hint being played: [{action, label, win}]
  busy: false,
  replayWanted: null,  // the move count the replay controls last asked for
  replay: null,    // while replaying: the board after some moves (/api/games/{id}/replay/{n})
  reviewMark: null,  // in a review: {moves, where} of the computer's better move, drawn on that board
  speed: localStorage.getItem("carcassonne-speed") || "normal",  // how fast moves are played back
  pending: null,   // a newer state that waits for the playback of the moves before it
  playedBack: {},  // how many of each animation the playbacks showed (arrive, land, flash, ...)
  events: null,    // the EventSource that tells of the shown game's changes
};

// The seat tokens this browser holds, by game: a friend's from the invite link, the creator's
// host token of a game with remote seats. Kept in the browser, sent only in a header.
const TOKENS_KEY = "carcassonne-tokens";

function tokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS_KEY)) || {};
  } catch (error) {
    return {};
  }
}

export function tokenFor(gameId) {
  return tokens()[gameId] || null;
}

export function keepToken(gameId, token) {
  localStorage.setItem(TOKENS_KEY, JSON.stringify({ ...tokens(), [gameId]: token }));
}

export const $ = (id) => document.getElementById(id);

// Whether game state `a` is older than `b` (of the same game): answers may arrive out of order.
export function older(a, b) {
  return a.epoch < b.epoch || (a.epoch === b.epoch && a.version < b.version);
}

export function svgElement(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

export async function api(method, path, body) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  const game = path.match(/^\/api\/games\/([^/?]+)/);  // the id, not the query after it
  const token = game && tokenFor(game[1]);
  if (token) headers["X-Seat-Token"] = token;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error("The game server cannot be reached: is it still running? (check the terminal that started it)");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof data.detail === "string" ? data.detail : friendlyValidation(data.detail);
    const error = new Error(detail || response.statusText);
    error.status = response.status;
    throw error;
  }
  return data;
}

// FastAPI's validation errors ([{loc, msg}]) as one sentence.
function friendlyValidation(detail) {
  if (!Array.isArray(detail)) return JSON.stringify(detail);
  return detail.map((d) => `${(d.loc || []).filter((l) => l !== "body").join(" ")}: ${d.msg}`).join("; ");
}

export function showStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.style.color = isError ? "#ffb4a8" : "";
}

export const COLOUR_NAMES = ["Red", "Blue", "Yellow", "Black", "Green", "Purple"];

// A seat's own name, or its colour's: plain text (see seatHtml).
export function playerName(player) {
  return page.game.seats[player].name || COLOUR_NAMES[player];
}

// A seat as the page names it: "Ann (you)", "Blue (friend)", "Red (bot, easy)". Plain text:
// set it as textContent, or give seatHtml to innerHTML (a name may hold "<" or quotes).
export function seatName(player) {
  const seats = page.game.seats;
  const seat = seats[player];
  const mine = page.game.you || [];
  const remote = seats.some((s) => s.kind === "remote");
  // Hot seat: with several humans at one screen, none of them is "you".
  const humans = seats.filter((s) => s.kind === "human").length;
  let who = `bot, ${seat.level}`;
  if (seat.kind !== "bot" && remote) who = mine.includes(player) && (mine.length === 1 || seat.kind === "remote") ? "you" : mine.includes(player) ? "human" : "friend";
  else if (seat.kind !== "bot") who = humans > 1 ? "human" : "you";
  return `${playerName(player)} (${who})`;
}

export function escapeHtml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

export function seatHtml(player) {
  return escapeHtml(seatName(player));
}

// Whether the game has friends' seats: their people's presence is shown, an undo is asked.
export function withFriends(game) {
  return game.seats.some((s) => s.kind === "remote");
}

export function swatch(player) {
  return `<span class="swatch" style="background:${page.options.colours[player]}"></span>`;
}

// A point of a tile turned `rotation` quarter turns clockwise about its centre.
function rotatePoint([x, y], rotation) {
  for (let i = 0; i < ((rotation % 4) + 4) % 4; i++) [x, y] = [TILE - y, x];
  return [x, y];
}

// What the board shows: the game now, or the replayed moment.
export function shown() {
  return page.replay || page.game;
}

function tileAt(x, y) {
  return shown().tiles.find((t) => t.x === x && t.y === y);
}

// Board coordinates of the spot of feature `feature` on the tile at cell (x, y).
export function featureSpot(x, y, feature) {
  const tile = tileAt(x, y);
  if (!tile) return [x * TILE + 50, y * TILE + 50];
  const anchor = page.tiles[tile.tile].anchors[feature] || [50, 50];
  const [ax, ay] = rotatePoint(anchor, tile.rotation);
  return [x * TILE + ax, y * TILE + ay];
}

// What a figure spot shows: nothing for a meeple (the usual case), a letter for the others.
export const FIGURE_LETTERS = { meeple: "", mayor: "M", wagon: "W", barn: "B" };

export const CORNERS = { NE: [100, 0], SE: [100, 100], SW: [0, 100], NW: [0, 0] };

// A number with its sign: +4, −4 (a minus sign, never "+-4"), ±0.
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

export function tileAtCell(x, y) {
  return tileAt(x, y);
}

// The board point of a figure: its feature's spot (a barn: its corner).
export function figurePoint(f) {
  return featureSpot(f.x, f.y, f.feature);
}

export function figureKey(f) {
  return `${f.player},${f.kind},${f.x},${f.y},${f.feature}`;
}

export function tileUse(kind, x, y, rotation, parent, extraClass = "") {
  const group = svgElement("g", { transform: `translate(${x * TILE},${y * TILE}) rotate(${90 * rotation} 50 50)`, class: extraClass, "data-cell": `${x},${y}` }, parent);
  svgElement("use", { href: `#tile-${kind}` }, group);
  svgElement("rect", { width: TILE, height: TILE, fill: "none", stroke: "#0002", "stroke-width": 1 }, group);
  return group;
}
