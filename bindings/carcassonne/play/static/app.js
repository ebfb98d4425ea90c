// The play page: draws the board from the server's tile drawings (/api/tiles) and the game state
// (/api/games/{id}), and sends the human's choices as action texts. All rules live in the engine:
// the page only offers what the server lists as legal.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const TILE = 100;
const POLL_MS = 400;

const page = {
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

const $ = (id) => document.getElementById(id);
let hovered = null;  // the legal cell under the pointer, for the ghost preview

function svgElement(tag, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

async function api(method, path, body) {
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

function showStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.style.color = isError ? "#ffb4a8" : "";
}

// ---- Names and colours ---------------------------------------------------------------------

const COLOUR_NAMES = ["Red", "Blue", "Yellow", "Black", "Green", "Purple"];

function seatName(player) {
  const seat = page.game.seats[player];
  const who = seat.kind === "human" ? "you" : `bot, ${seat.level}`;
  return `${COLOUR_NAMES[player]} (${who})`;
}

function swatch(player) {
  return `<span class="swatch" style="background:${page.options.colours[player]}"></span>`;
}

// ---- Geometry --------------------------------------------------------------------------------

// A point of a tile turned `rotation` quarter turns clockwise about its centre.
function rotatePoint([x, y], rotation) {
  for (let i = 0; i < ((rotation % 4) + 4) % 4; i++) [x, y] = [TILE - y, x];
  return [x, y];
}

// What the board shows: the game now, or the replayed moment.
function shown() {
  return page.replay || page.game;
}

function tileAt(x, y) {
  return shown().tiles.find((t) => t.x === x && t.y === y);
}

// Board coordinates of the spot of feature `feature` on the tile at cell (x, y).
function featureSpot(x, y, feature) {
  const tile = tileAt(x, y);
  if (!tile) return [x * TILE + 50, y * TILE + 50];
  const anchor = page.tiles[tile.tile].anchors[feature] || [50, 50];
  const [ax, ay] = rotatePoint(anchor, tile.rotation);
  return [x * TILE + ax, y * TILE + ay];
}

// What a figure spot shows: nothing for a meeple (the usual case), a letter for the others.
const FIGURE_LETTERS = { meeple: "", mayor: "M", wagon: "W", barn: "B" };

const CORNERS = { NE: [100, 0], SE: [100, 100], SW: [0, 100], NW: [0, 0] };

function tileUse(kind, x, y, rotation, parent, extraClass = "") {
  const group = svgElement("g", { transform: `translate(${x * TILE},${y * TILE}) rotate(${90 * rotation} 50 50)`, class: extraClass }, parent);
  svgElement("use", { href: `#tile-${kind}` }, group);
  svgElement("rect", { width: TILE, height: TILE, fill: "none", stroke: "#0002", "stroke-width": 1 }, group);
  return group;
}

// ---- Start-up --------------------------------------------------------------------------------

async function start() {
  [page.options, page.tiles] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/tiles")]);
  const defs = $("tile-defs");
  for (const [kind, tile] of Object.entries(page.tiles)) {
    const group = svgElement("g", { id: `tile-${kind}` }, defs);
    group.innerHTML = tile.svg;
  }
  setUpBoardControls();
  setUpNewGameDialog();
  setUpButtons();
  const id = new URLSearchParams(location.hash.slice(1)).get("game");
  if (id) {
    try {
      setGame(await api("GET", `/api/games/${id}`), true);
      return;
    } catch (error) {
      showStatus(`Could not open game ${id}: ${error.message}`, true);
    }
  }
  openNewGameDialog();
}

// ---- Game state ------------------------------------------------------------------------------

function setGame(game, fit = false) {
  const changed = !page.game || page.game.id !== game.id || page.game.moves !== game.moves || page.game.version !== game.version;
  if (!page.game || page.game.id !== game.id) [page.replay, page.replayWanted] = [null, null];
  page.game = game;
  location.hash = `game=${game.id}`;
  $("save-link").href = `/api/games/${game.id}/record`;
  $("save-link").setAttribute("download", `carcassonne-${game.id}.json`);
  if (changed) {
    page.selected = null;
    hovered = null;
    page.hints = null;
    $("hint-panel").hidden = true;
  }
  if (fit || (changed && !allVisible([...game.tiles, ...game.legal.placements, ...game.legal.cells]))) fitView();
  if (changed || fit || game.bot_error) render();  // polls while a bot thinks mostly change nothing
  if (!game.terminal && !game.human_to_move && !game.bot_error) setTimeout(poll, POLL_MS);
  if (game.terminal && changed) showEndSummary();
}

async function poll() {
  if (!page.game || page.game.terminal || page.game.human_to_move) return;
  try {
    setGame(await api("GET", `/api/games/${page.game.id}`));
  } catch (error) {
    showStatus(error.message, true);
    setTimeout(poll, POLL_MS * 5);
  }
}

async function play(action) {
  if (page.busy) return;
  page.busy = true;
  try {
    setGame(await api("POST", `/api/games/${page.game.id}/actions`, { action }));
  } catch (error) {
    showStatus(error.message, true);
  } finally {
    page.busy = false;
  }
}

// ---- Rendering -------------------------------------------------------------------------------

function render() {
  const game = page.game;
  renderBoard();
  renderTurn();
  renderScores();
  renderCity();
  renderBag();
  renderLog();
  $("undo-button").disabled = !game.log.some((e) => e.player >= 0 && game.seats[e.player].kind === "human");
  $("hint-button").disabled = !game.human_to_move;
  $("replay-label").textContent = page.replay ? `move ${page.replay.moves} of ${game.moves}` : "";
  if (page.replay) {
    const scores = page.replay.scores.join(" : ");
    showStatus(`Replay: after move ${page.replay.moves} (${page.replay.action || "start"}), scores ${scores}`);
  }
  else if (game.terminal) showStatus("Game over");
  else if (game.bot_error) showStatus(`The bot stopped: ${game.bot_error}`, true);
  else if (game.human_to_move) showStatus(`${seatName(game.current_player)} to play`);
  else showStatus(`${seatName(game.current_player)} is thinking…`);
}

function renderBoard() {
  const game = page.game;
  const tilesLayer = $("layer-tiles");
  tilesLayer.replaceChildren();
  const board = shown();
  for (const t of board.tiles) tileUse(t.tile, t.x, t.y, t.rotation, tilesLayer);
  const last = board.tiles[board.tiles.length - 1];
  if (last && board.phase !== "place_tile") {
    svgElement("rect", { x: last.x * TILE + 2, y: last.y * TILE + 2, width: TILE - 4, height: TILE - 4, class: "last-tile" }, tilesLayer);
  }
  renderCityOnBoard();
  renderFigures();
  renderTargets();
  renderGhost();
  renderHints();
}

// The City of Carcassonne's quarters, drawn clockwise on the four inner squares of its block
// (the printed quarters' places are approximate; the rules need only the four places), with the
// figures in each and the Count. A quarter a figure may enter now is clickable.
const QUARTER_SQUARES = { castle: "CO2", market: "CO3", blacksmith: "CO7", cathedral: "CO6" };

function renderCityOnBoard() {
  const city = page.game.city;
  if (!city) return;
  const layer = $("layer-tiles");
  for (const [quarter, square] of Object.entries(QUARTER_SQUARES)) {
    const tile = page.game.tiles.find((t) => t.tile === `count-city.${square}`);
    if (!tile) continue;
    const [x, y] = [tile.x * TILE, tile.y * TILE];
    const group = svgElement("g", { class: "quarter-mark", transform: `translate(${x},${y})` }, layer);
    svgElement("rect", { x: 12, y: 30, width: 76, height: 56, rx: 6, class: "quarter-box" }, group);
    svgElement("text", { x: 50, y: 44, class: "quarter-name" }, group).textContent = quarter;
    let offset = 0;
    for (const f of city.figures.filter((f) => f.quarter === quarter)) {
      const figure = svgElement("g", { transform: `translate(${24 + offset},66) scale(0.7)` }, group);
      figure.innerHTML = page.options.figures[f.kind][f.player];
      if (f.number > 1) svgElement("text", { x: 32 + offset, y: 80, class: "quarter-count" }, group).textContent = `×${f.number}`;
      offset += 22;
    }
    if (city.count === quarter) {
      const count = svgElement("g", { transform: "translate(76,66) scale(0.9)", class: "count" }, group);
      count.innerHTML = page.options.figures.meeple[0].replace(/fill="#[0-9a-f]+"/, 'fill="#7d3c98"');
      svgElement("title", {}, count).textContent = "the Count";
    }
  }
}

// Spots on the quarters for the choices "meeple @castle" ... and "count market" ...
function addQuarterSpots(layer) {
  for (const [quarter, square] of Object.entries(QUARTER_SQUARES)) {
    const tile = page.game.tiles.find((t) => t.tile === `count-city.${square}`);
    const choices = page.game.legal.choices.filter((c) => c.action.endsWith(`@${quarter}`) || c.action === `count ${quarter}`);
    if (!tile) continue;
    choices.forEach((choice, i) => {
      const letter = choice.action.startsWith("count") ? "C" : FIGURE_LETTERS[choice.action.split(" ")[0]];
      addSpot(layer, tile.x * TILE + 30 + 20 * i, tile.y * TILE + 58, letter, choice.action, choice.label);
    });
  }
}

function renderFigures() {
  const layer = $("layer-figures");
  layer.replaceChildren();
  const seen = new Map();  // two figures on one feature (XX-4) stand side by side
  for (const f of shown().figures) {
    const key = `${f.x},${f.y},${f.feature}`;
    const offset = (seen.get(key) || 0) * 14;
    seen.set(key, (seen.get(key) || 0) + 1);
    const [x, y] = featureSpot(f.x, f.y, f.feature);
    const group = svgElement("g", { transform: `translate(${x + offset},${y})`, class: `placed-figure player-${f.player}` }, layer);
    group.innerHTML = page.options.figures[f.kind][f.player];
  }
}

function renderTargets() {
  const game = page.game;
  const targets = $("layer-targets");
  const spots = $("layer-spots");
  targets.replaceChildren();
  spots.replaceChildren();
  if (!game.human_to_move || page.replay) return;
  const legal = game.legal;
  if (game.city) addQuarterSpots(spots);
  for (const cell of legal.placements) {
    const rect = svgElement("rect", { x: cell.x * TILE + 3, y: cell.y * TILE + 3, width: TILE - 6, height: TILE - 6, rx: 6, class: "target", "data-cell": `${cell.x},${cell.y}` }, targets);
    if (page.selected && page.selected.x === cell.x && page.selected.y === cell.y) rect.classList.add("selected");
    rect.addEventListener("click", () => selectCell(cell));
    rect.addEventListener("mouseenter", () => previewCell(cell));
    rect.addEventListener("mouseleave", () => previewCell(null));
  }
  for (const choice of legal.cells) {
    if (choice.what === "abbey") tileUse("abbey-mayor.A", choice.x, choice.y, 0, targets, "ghost");
    const rect = svgElement("rect", { x: choice.x * TILE + 4, y: choice.y * TILE + 4, width: TILE - 8, height: TILE - 8, rx: 8, class: "cell-choice", "data-action": choice.action }, targets);
    svgElement("title", {}, rect).textContent = choice.action;
    rect.addEventListener("click", () => play(choice.action));
  }
  const used = new Map();
  for (const f of legal.figures) {
    let [x, y] = featureSpot(f.x, f.y, f.feature);
    const key = `${Math.round(x)},${Math.round(y)}`;
    const stack = used.get(key) || 0;  // a meeple, a mayor and a wagon may share a feature
    used.set(key, stack + 1);
    x += stack * 18;
    addSpot(spots, x, y, FIGURE_LETTERS[f.kind], f.action, `${f.kind} on ${f.feature_type}`);
  }
  for (const b of legal.barns) {
    const [cx, cy] = CORNERS[b.corner];
    addSpot(spots, b.x * TILE + cx, b.y * TILE + cy, "B", b.action, `barn on the ${b.corner} corner`);
  }
}

function addSpot(layer, x, y, text, action, title) {
  const grow = Math.max(1, 0.8 / page.view.scale);  // spots stay big enough to click when zoomed out
  const group = svgElement("g", { class: "spot", transform: `translate(${x},${y}) scale(${grow})`, "data-action": action }, layer);
  svgElement("circle", { r: 11 }, group);
  svgElement("text", { y: 4 }, group).textContent = text;
  svgElement("title", {}, group).textContent = `${title} (${action})`;
  group.addEventListener("click", (event) => {
    event.stopPropagation();
    play(action);
  });
}

// The rotation to show at a cell: the player's last choice if legal there, else the next legal one.
function rotationFor(cell) {
  const legal = Object.keys(cell.rotations).map(Number).sort();
  return legal.find((r) => r >= page.rotation) ?? legal[0];
}

function previewCell(cell) {
  hovered = cell;
  renderGhost();
}

function renderGhost() {
  const layer = $("layer-ghost");
  layer.replaceChildren();
  const game = page.game;
  if (!game.human_to_move || game.phase !== "place_tile" || page.replay) return;
  const cell = page.selected || hovered;
  // A hovered cell from an earlier turn (its target was drawn again) is not a preview now.
  if (!cell || !game.legal.placements.some((c) => c.x === cell.x && c.y === cell.y)) return;
  const rotation = page.selected ? page.selected.rotation : rotationFor(cell);
  tileUse(game.drawn_tile, cell.x, cell.y, rotation, layer, page.selected ? "ghost fixed" : "ghost");
  if (page.selected) {
    svgElement("rect", { x: cell.x * TILE + 1, y: cell.y * TILE + 1, width: TILE - 2, height: TILE - 2, class: "selection" }, layer);
  }
}

function selectCell(cell) {
  if (page.selected && page.selected.x === cell.x && page.selected.y === cell.y) {
    placeSelected();
    return;
  }
  page.selected = { ...cell, rotation: rotationFor(cell) };
  renderTargets();
  renderGhost();
  renderTurn();
}

function rotate(step = 1) {
  const game = page.game;
  if (!game || !game.human_to_move || game.phase !== "place_tile") return;
  page.rotation = (page.rotation + step + 4) % 4;
  if (page.selected) {
    const legal = Object.keys(page.selected.rotations).map(Number).sort();
    const index = legal.indexOf(page.selected.rotation);
    page.selected.rotation = legal[(index + (step > 0 ? 1 : legal.length - 1)) % legal.length];
    page.rotation = page.selected.rotation;
  }
  renderGhost();
  renderTurn();
}

function placeSelected() {
  if (!page.selected) return;
  play(page.selected.rotations[page.selected.rotation]);
}

function renderTurn() {
  const game = page.game;
  const prompt = $("prompt");
  const drawnSvg = $("drawn-tile");
  drawnSvg.replaceChildren();
  const placing = game.human_to_move && game.phase === "place_tile";
  if (game.terminal) prompt.textContent = "The game is over.";
  else if (game.human_to_move) prompt.innerHTML = `${swatch(game.current_player)}<b>${seatName(game.current_player)}</b>: ${game.prompt}`;
  else prompt.innerHTML = `${swatch(game.current_player)}${seatName(game.current_player)} is thinking…`;
  if (game.drawn_tile && !game.terminal) {
    const last = game.tiles[game.tiles.length - 1];
    const rotation = placing ? (page.selected ? page.selected.rotation : page.rotation) : last.rotation;
    const group = svgElement("g", { transform: `rotate(${90 * rotation} 50 50)` }, drawnSvg);
    svgElement("use", { href: `#tile-${game.drawn_tile}` }, group);
    svgElement("title", {}, drawnSvg).textContent = game.drawn_tile;
  }
  $("rotate-button").disabled = !placing;
  $("place-button").disabled = !(placing && page.selected);
  const choices = $("choices");
  choices.replaceChildren();
  const all = $("all-choices-list");
  all.replaceChildren();
  if (!game.human_to_move) return;
  for (const choice of game.legal.choices) {
    const button = document.createElement("button");
    button.textContent = choice.label;
    button.title = choice.action;
    button.dataset.action = choice.action;
    button.addEventListener("click", () => play(choice.action));
    choices.appendChild(button);
  }
  const every = [
    ...game.legal.placements.flatMap((c) => Object.values(c.rotations)),
    ...game.legal.figures.map((f) => f.action),
    ...game.legal.barns.map((b) => b.action),
    ...game.legal.cells.map((c) => c.action),
    ...game.legal.choices.map((c) => c.action),
  ];
  for (const action of every) {
    const button = document.createElement("button");
    button.textContent = action;
    button.addEventListener("click", () => play(action));
    all.appendChild(button);
  }
}

let shownScores = null;  // the scores last drawn: a change flashes the row

function renderScores() {
  const game = page.game;
  const before = shownScores && shownScores.length === game.scores.length ? shownScores : game.scores;
  shownScores = game.scores;
  const abbeyMayor = game.config.expansions.includes("abbey-mayor");
  const rows = game.scores.map((score, p) => {
    const causes = Object.entries(game.breakdown[p]).filter(([, points]) => points).map(([cause, points]) => `${cause} ${points}`).join(", ");
    const s = game.supply[p];
    let supply = `meeples ${s.meeple}`;
    if (abbeyMayor) supply += `, mayor ${s.mayor}, wagon ${s.wagon}, barn ${s.barn}, abbey ${s.abbeys}`;
    const titles = [game.king === p ? "♔ King" : "", game.robber === p ? "⚔ Robber" : ""].filter(Boolean).join(" ");
    const toMove = (p === game.current_player ? "to-move" : "") + (score !== before[p] ? " scored-now" : "");
    return `<tr class="${toMove}"><td>${swatch(p)}${seatName(p)} ${titles}<div class="causes">${causes || "no points yet"}</div>` +
      `<div class="supply">${supply}</div></td><td class="score">${score}${score !== before[p] ? ` <span class="gain">+${score - before[p]}</span>` : ""}<div class="causes" title="if the game ended now">→ ${game.final_estimate[p]}</div></td></tr>`;
  });
  $("scores").innerHTML = rows.join("");
}

function renderCity() {
  const city = page.game.city;
  $("city-panel").hidden = !city;
  if (!city) return;
  const quarters = ["castle", "market", "blacksmith", "cathedral"];
  $("city").innerHTML = quarters.map((q) => {
    const here = city.figures.filter((f) => f.quarter === q).map((f) => `${swatch(f.player)}${f.number} ${f.kind}`).join(" ");
    const count = city.count === q ? '<span class="count-here">the Count</span> ' : "";
    return `<div class="quarter"><span>${q}</span><span>${count}${here || "—"}</span></div>`;
  }).join("");
}

function renderBag() {
  const game = page.game;
  $("bag-size").textContent = `(${game.bag_size})`;
  const bag = $("bag");
  bag.replaceChildren();
  for (const [kind, count] of Object.entries(game.bag)) {
    if (!count) continue;
    const item = document.createElement("div");
    item.className = "bag-tile";
    item.title = kind;
    const svg = svgElement("svg", { viewBox: "0 0 100 100" }, item);
    svgElement("use", { href: `#tile-${kind}` }, svg);
    const badge = document.createElement("span");
    badge.textContent = count;
    item.appendChild(badge);
    bag.appendChild(item);
  }
}

function renderLog() {
  const game = page.game;
  const items = [];
  for (const entry of game.log) {
    const who = entry.player >= 0 ? `${swatch(entry.player)}` : "";
    const kind = entry.player < 0 ? "draw" : "";
    let line = `<li class="${kind}" value="${entry.index + 1}" data-moves="${entry.index + 1}" title="show the board after this move">T${entry.turn} ${who}${entry.label}`;
    for (const s of entry.scored) line += ` <span class="scored">${swatch(s.player)}+${s.points} ${s.cause}</span>`;
    items.push(line + "</li>");
  }
  $("log").innerHTML = items.reverse().join("");
}

// Shows the board after the first `moves` moves; at the last move, the game itself again.
// Quick clicks each step from the move last asked for, not from the last one shown.
async function replayTo(moves) {
  const game = page.game;
  moves = Math.max(0, Math.min(moves, game.moves));
  page.replayWanted = moves;
  const snapshot = moves === game.moves ? null : await api("GET", `/api/games/${game.id}/replay/${moves}`).catch((error) => {
    showStatus(error.message, true);
    return undefined;
  });
  if (snapshot === undefined || page.replayWanted !== moves) return;  // failed, or superseded
  page.replay = snapshot;
  if (!snapshot) page.replayWanted = null;  // back to the game: steps start from its end again
  render();
}

function showEndSummary() {
  const game = page.game;
  const best = Math.max(...game.scores);
  const rows = game.scores.map((score, p) => {
    const causes = Object.entries(game.breakdown[p]).filter(([, v]) => v).map(([c, v]) => `${c} ${v}`).join(", ");
    return `<tr><td>${swatch(p)}${seatName(p)}${score === best ? " ★ winner" : ""}</td><td class="score">${score}</td><td class="causes">${causes}</td></tr>`;
  });
  $("end-summary").innerHTML = `<table>${rows.join("")}</table>`;
  $("end-dialog").showModal();
}

// ---- Hints -------------------------------------------------------------------------------------

async function askHint() {
  const game = page.game;
  $("hint-panel").hidden = false;
  $("hint-list").innerHTML = "<li>Thinking…</li>";
  try {
    const hint = await api("POST", `/api/games/${game.id}/hint`, { time: 1.5 });
    if (page.game.id !== game.id || page.game.moves !== game.moves) return;
    page.hints = hint.moves;
    $("hint-list").innerHTML = "";
    hint.moves.forEach((move, i) => {
      const chances = move.win.map((w, p) => `${swatch(p)}${Math.round(100 * w)}%`).join(" ");
      const item = document.createElement("li");
      item.innerHTML = `<b>${move.action}</b> — win chance ${chances} `;
      const button = document.createElement("button");
      button.textContent = "Play";
      button.addEventListener("click", () => play(move.action));
      item.appendChild(button);
      item.dataset.rank = i + 1;
      $("hint-list").appendChild(item);
    });
    renderHints();
  } catch (error) {
    $("hint-list").innerHTML = `<li class="error">${error.message}</li>`;
  }
}

// Draws the hinted moves on the board: a numbered frame on a placement's cell or around a spot.
function renderHints() {
  const layer = $("layer-hints");
  layer.replaceChildren();
  if (!page.hints || page.replay) return;
  const legal = page.game.legal;
  page.hints.forEach((move, i) => {
    let x = null, y = null, size = TILE - 12;
    const placement = /^place (-?\d+),(-?\d+) r(\d)$/.exec(move.action);
    const figure = legal.figures.find((f) => f.action === move.action);
    const cell = legal.cells.find((c) => c.action === move.action);
    if (placement) {
      [x, y] = [placement[1] * TILE + 6, placement[2] * TILE + 6];
      // The best move's tile, turned as suggested, shows faintly where it would go.
      if (i === 0) tileUse(page.game.drawn_tile, Number(placement[1]), Number(placement[2]), Number(placement[3]), layer, "ghost hint-ghost");
    }
    else if (cell) [x, y] = [cell.x * TILE + 6, cell.y * TILE + 6];
    else if (figure) {
      const [fx, fy] = featureSpot(figure.x, figure.y, figure.feature);
      size = 30;
      [x, y] = [fx - 15, fy - 15];
    }
    if (x === null) return;
    svgElement("rect", { x, y, width: size, height: size, rx: 6, class: "hint-mark" }, layer);
    svgElement("text", { x: x + 4, y: y + 24, class: "hint-mark-text" }, layer).textContent = `${i + 1}`;
  });
}

// ---- Board controls: pan, zoom, rotate, coordinates -------------------------------------------

function applyView() {
  const { x, y, scale } = page.view;
  $("world").setAttribute("transform", `translate(${x},${y}) scale(${scale})`);
}

function fitView() {
  const game = page.game;
  const cells = page.replay ? page.replay.tiles : [...game.tiles, ...game.legal.placements];
  const xs = cells.map((c) => c.x), ys = cells.map((c) => c.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs) + 1, Math.min(...ys), Math.max(...ys) + 1];
  const box = $("board").getBoundingClientRect();
  const scale = Math.min(1.2, Math.min(box.width / ((maxX - minX + 1) * TILE), box.height / ((maxY - minY + 1) * TILE)));
  page.view = {
    scale,
    x: box.width / 2 - ((minX + maxX) / 2) * TILE * scale,
    y: box.height / 2 - ((minY + maxY) / 2) * TILE * scale,
  };
  applyView();
}

// True if every one of these cells lies inside the board's view.
function allVisible(cells) {
  const box = $("board").getBoundingClientRect();
  const { x, y, scale } = page.view;
  return cells.every((c) => c.x * TILE * scale + x >= 0 && (c.x + 1) * TILE * scale + x <= box.width &&
    c.y * TILE * scale + y >= 0 && (c.y + 1) * TILE * scale + y <= box.height);
}

function zoom(factor, cx, cy) {
  const box = $("board").getBoundingClientRect();
  if (cx === undefined) [cx, cy] = [box.width / 2, box.height / 2];
  const v = page.view;
  const scale = Math.min(3, Math.max(0.1, v.scale * factor));
  v.x = cx - ((cx - v.x) * scale) / v.scale;
  v.y = cy - ((cy - v.y) * scale) / v.scale;
  v.scale = scale;
  applyView();
}

function boardCell(event) {
  const box = $("board").getBoundingClientRect();
  const v = page.view;
  return [Math.floor((event.clientX - box.left - v.x) / v.scale / TILE), Math.floor((event.clientY - box.top - v.y) / v.scale / TILE)];
}

function setUpBoardControls() {
  const board = $("board");
  let drag = null;
  board.addEventListener("pointerdown", (event) => {
    if (event.target.closest(".spot, .target, .cell-choice")) return;
    drag = { x: event.clientX, y: event.clientY, vx: page.view.x, vy: page.view.y };
    board.classList.add("dragging");
  });
  window.addEventListener("pointerup", () => {
    drag = null;
    board.classList.remove("dragging");
  });
  board.addEventListener("pointermove", (event) => {
    const [x, y] = boardCell(event);
    $("coords").textContent = `${x}, ${y}`;
    if (!drag) return;
    page.view.x = drag.vx + event.clientX - drag.x;
    page.view.y = drag.vy + event.clientY - drag.y;
    applyView();
  });
  board.addEventListener("wheel", (event) => {
    event.preventDefault();
    const placing = page.game && page.game.human_to_move && page.game.phase === "place_tile";
    // Over a legal cell or the chosen one, the wheel turns the tile; elsewhere it zooms.
    if (placing && (event.target.closest(".target") || page.selected)) {
      rotate(event.deltaY > 0 ? 1 : -1);
      return;
    }
    const box = board.getBoundingClientRect();
    zoom(event.deltaY > 0 ? 0.9 : 1.1, event.clientX - box.left, event.clientY - box.top);
  }, { passive: false });
  window.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, dialog")) return;
    if (event.key === "r" || event.key === "R") rotate(event.shiftKey ? -1 : 1);
    if (event.key === "Enter") placeSelected();
    if (event.key === "Escape" && page.selected) {
      page.selected = null;
      render();
    }
  });
  $("zoom-in").addEventListener("click", () => zoom(1.25));
  $("zoom-out").addEventListener("click", () => zoom(0.8));
  $("zoom-fit").addEventListener("click", fitView);
  window.addEventListener("resize", () => page.game && fitView());
}

function setUpReplay() {
  const current = () => page.replayWanted ?? page.game.moves;
  $("replay-first").addEventListener("click", () => replayTo(0));
  $("replay-back").addEventListener("click", () => replayTo(current() - 1));
  $("replay-forward").addEventListener("click", () => replayTo(current() + 1));
  $("replay-exit").addEventListener("click", () => replayTo(page.game.moves));
  $("log").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-moves]");
    if (item) replayTo(Number(item.dataset.moves));
  });
}

function setUpButtons() {
  setUpReplay();
  $("new-game-button").addEventListener("click", openNewGameDialog);
  $("rotate-button").addEventListener("click", () => rotate(1));
  $("place-button").addEventListener("click", placeSelected);
  $("hint-button").addEventListener("click", askHint);
  $("undo-button").addEventListener("click", async () => {
    try {
      setGame(await api("POST", `/api/games/${page.game.id}/undo`));
    } catch (error) {
      showStatus(error.message, true);
    }
  });
  $("load-input").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const seats = page.game ? page.game.seats : undefined;
      const record = await file.text();
      let body = { record };
      try {
        const players = JSON.parse(record).config.players;
        if (seats && seats.length === players) body = { record, seats };
      } catch (error) {
        // The server names what is wrong with the record.
      }
      setGame(await api("POST", "/api/games/load", body), true);
    } catch (error) {
      showStatus(`Could not load: ${error.message}`, true);
    }
    event.target.value = "";
  });
}

// ---- New game dialog -----------------------------------------------------------------------------

function setUpNewGameDialog() {
  const options = page.options;
  const count = $("player-count");
  for (let n = options.players[0]; n <= options.players[1]; n++) count.add(new Option(`${n}`, `${n}`));
  count.addEventListener("change", renderSeats);
  renderSeats();
  $("expansion-list").innerHTML = options.expansions
    .map((e) => `<label><input type="checkbox" name="expansion" value="${e}"> ${e}</label>`).join("");
  $("variant-list").innerHTML = options.variants
    .map((v) => `<label>${v.name} <select name="variant" data-name="${v.name}">${v.values.map((value) => `<option>${value}</option>`).join("")}</select></label>`)
    .join("");
  $("start-button").addEventListener("click", async (event) => {
    event.preventDefault();
    const seats = [...document.querySelectorAll(".seat")].map((row) => {
      const kind = row.querySelector("select").value;
      if (kind === "human") return { kind: "human" };
      return { kind: "bot", level: kind, time: Number(row.querySelector("input").value) || 2 };
    });
    const expansions = [...document.querySelectorAll("input[name=expansion]:checked")].map((i) => i.value);
    const variants = {};
    for (const select of document.querySelectorAll("select[name=variant]")) {
      if (select.selectedIndex > 0) variants[select.dataset.name] = select.value;
    }
    try {
      const game = await api("POST", "/api/games", { seats, expansions, variants, seed: Number($("seed").value) || 0 });
      $("new-game-dialog").close();
      $("new-game-error").textContent = "";
      setGame(game, true);
    } catch (error) {
      $("new-game-error").textContent = error.message;
    }
  });
}

// Shows the dialog with the games the server keeps, newest first, each a link to continue it.
async function openNewGameDialog() {
  $("new-game-dialog").showModal();
  const list = $("saved-game-list");
  list.replaceChildren();
  for (const saved of await api("GET", "/api/games").catch(() => [])) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#game=${saved.id}`;
    link.textContent = `${saved.id}, last move ${new Date(saved.updated * 1000).toLocaleString()}`;
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      try {
        setGame(await api("GET", `/api/games/${saved.id}`), true);
        $("new-game-dialog").close();
      } catch (error) {
        $("new-game-error").textContent = error.message;
      }
    });
    item.appendChild(link);
    list.appendChild(item);
  }
}

function renderSeats() {
  const n = Number($("player-count").value);
  const list = $("seat-list");
  const old = [...list.querySelectorAll(".seat select")].map((s) => s.value);
  list.innerHTML = "";
  for (let p = 0; p < n; p++) {
    const row = document.createElement("div");
    row.className = "seat";
    const chosen = old[p] || (p === 0 ? "human" : "easy");
    row.innerHTML = `<span class="swatch" style="background:${page.options.colours[p]}"></span>${COLOUR_NAMES[p]}
      <select data-seat="${p}">${["human", "easy", "medium", "hard"].map((k) => `<option value="${k}" ${k === chosen ? "selected" : ""}>${k === "human" ? "human" : `bot: ${k}`}</option>`).join("")}</select>
      <label>s/move <input type="number" min="0.1" max="60" step="0.1" value="2" style="width:4em"></label>`;
    list.appendChild(row);
    // Only a hard bot has a time a move to set.
    const select = row.querySelector("select");
    const time = row.querySelector("label");
    const showTime = () => { time.hidden = select.value !== "hard"; };
    select.addEventListener("change", showTime);
    showTime();
  }
}

start().catch((error) => showStatus(error.message, true));
