// Shared by the page's modules: its state, the server API, names and colours, tile geometry.

const SVG_NS = "http://www.w3.org/2000/svg";

export const TILE = 100;

export const POLL_MS = 400;

export const page = {
  options: null,   // /api/options
  tiles: null,     // /api/tiles: {kind: {svg, anchors, ...}}
  game: null,      // the last state from the server
  selected: null,  // at place_tile: {x, y, rotations: {r: action}, rotation}
  rotation: 0,     // the rotation the player last chose
  view: { x: 0, y: 0, scale: 0.7 },
  hints: null,
  busy: false,
  replayWanted: null,  // the move count the replay controls last asked for
  replay: null,    // while replaying: the board after some moves (/api/games/{id}/replay/{n})
};

export const $ = (id) => document.getElementById(id);

export function svgElement(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

export async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    throw new Error(detail || response.statusText);
  }
  return data;
}

export function showStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.style.color = isError ? "#ffb4a8" : "";
}

export const COLOUR_NAMES = ["Red", "Blue", "Yellow", "Black", "Green", "Purple"];

export function seatName(player) {
  const seat = page.game.seats[player];
  const who = seat.kind === "human" ? "you" : `bot, ${seat.level}`;
  return `${COLOUR_NAMES[player]} (${who})`;
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

export function tileUse(kind, x, y, rotation, parent, extraClass = "") {
  const group = svgElement("g", { transform: `translate(${x * TILE},${y * TILE}) rotate(${90 * rotation} 50 50)`, class: extraClass }, parent);
  svgElement("use", { href: `#tile-${kind}` }, group);
  svgElement("rect", { width: TILE, height: TILE, fill: "none", stroke: "#0002", "stroke-width": 1 }, group);
  return group;
}
