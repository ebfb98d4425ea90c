// The board: tiles, figures, the City's quarters, legal cells and figure spots, the ghost of the
// tile being placed, hint marks; pan, zoom, rotate and coordinates; and play by keyboard.
import { TILE, page, $, svgElement, shown, featureSpot, FIGURE_LETTERS, CORNERS, tileUse, figureKey } from "./common.js";
import { playing, finish, outlineFeature } from "./animate.js";
import { actions } from "./actions.js";

let hovered = null;  // the legal cell under the pointer, for the ghost preview

export function forgetHover() {
  hovered = null;
}

export function renderBoard() {
  const game = page.game;
  const tilesLayer = $("layer-tiles");
  tilesLayer.replaceChildren();
  const board = shown();
  for (const t of board.tiles) tileUse(t.tile, t.x, t.y, t.rotation, tilesLayer);
  // The tile placed last, framed in its player's colour (so a bot's move is seen at once).
  const last = board.tiles[board.tiles.length - 1];
  const placer = page.replay ? null : [...game.log].reverse().find((e) => e.action.startsWith("place "));
  if (last && (page.replay || placer)) {
    const colour = placer ? page.options.colours[placer.player] : "#fff";
    svgElement("rect", { x: last.x * TILE + 3, y: last.y * TILE + 3, width: TILE - 6, height: TILE - 6, class: "last-tile", stroke: colour }, tilesLayer);
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
      count.innerHTML = page.options.count;
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
      // Above the quarter's box, so the figures in it stay visible.
      addSpot(layer, tile.x * TILE + 30 + 20 * i, tile.y * TILE + 17, letter, choice.action, choice.label);
    });
  }
}

function featureType(x, y, feature) {
  const tile = shown().tiles.find((t) => t.x === x && t.y === y);
  return tile ? page.tiles[tile.tile].features[feature] : "";
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
    // A meeple in a field is a farmer: it lies down.
    const farmer = f.kind === "meeple" && featureType(f.x, f.y, f.feature) === "field";
    const group = svgElement("g", { transform: `translate(${x + offset},${y})${farmer ? " rotate(-90)" : ""}`, class: `placed-figure player-${f.player}${farmer ? " farmer" : ""}`, "data-figure": figureKey(f) }, layer);
    group.innerHTML = page.options.figures[f.kind][f.player];
  }
}

function renderTargets() {
  const game = page.game;
  const targets = $("layer-targets");
  const spots = $("layer-spots");
  $("layer-hover").replaceChildren();
  targets.replaceChildren();
  spots.replaceChildren();
  if (!game.your_turn || page.replay) return;
  const legal = game.legal;
  if (game.city) addQuarterSpots(spots);
  for (const cell of legal.placements) {
    const rect = svgElement("rect", { x: cell.x * TILE + 3, y: cell.y * TILE + 3, width: TILE - 6, height: TILE - 6, rx: 6, class: "target", "data-cell": `${cell.x},${cell.y}`, ...stopAttributes(`Place the tile ${cell.where}`) }, targets);
    rect.addEventListener("click", () => selectCell(cell));
    rect.addEventListener("mouseenter", () => previewCell(cell));
    rect.addEventListener("mouseleave", () => previewCell(null));
  }
  for (const choice of legal.cells) {
    if (choice.what === "abbey") tileUse("abbey-mayor.A", choice.x, choice.y, 0, targets, "ghost");
    const words = choice.what === "abbey" ? `Place the abbey ${choice.where}` : `Use the arrow of the tile ${choice.where}`;
    const rect = svgElement("rect", { x: choice.x * TILE + 4, y: choice.y * TILE + 4, width: TILE - 8, height: TILE - 8, rx: 8, class: "cell-choice", "data-action": choice.action, ...stopAttributes(words) }, targets);
    svgElement("title", {}, rect).textContent = words;
    rect.addEventListener("click", () => actions.play(choice.action));
  }
  for (const { x, y, f, remote } of figureSpots(legal)) {
    // Away from the new tile (an arrow's "place anywhere"): smaller and fainter until pointed
    // at, so that the board stays readable under them.
    const words = `${f.kind} on the ${f.feature_type}, ${sideOfTile(x, y, f.x, f.y)}${remote ? `, on the tile ${f.where}` : ""}`;
    const spot = addSpot(spots, x, y, FIGURE_LETTERS[f.kind], f.action, words, [f.x, f.y, f.feature], f.feature_type);
    if (remote) spot.classList.add("remote");
  }
  for (const { x, y, b } of barnSpots(legal)) addSpot(spots, x, y, "B", b.action, `barn on the ${b.corner} corner`, null, "field");
  markSelected();
}

// Where the decision's figure spots lie on the board (a meeple, a mayor and a wagon may share a
// feature: side by side), each with its shape's kind and whether it is off the new tile.
function figureSpots(legal) {
  const used = new Map();
  const newTile = page.game.tiles[page.game.tiles.length - 1] || { x: 0, y: 0 };
  return legal.figures.map((f) => {
    const [x, y] = featureSpot(f.x, f.y, f.feature);
    const key = `${Math.round(x)},${Math.round(y)}`;
    const stack = used.get(key) || 0;
    used.set(key, stack + 1);
    return { x: x + stack * 18, y, kind: f.feature_type, remote: f.x !== newTile.x || f.y !== newTile.y, f };
  });
}

function barnSpots(legal) {
  return legal.barns.map((b) => ({ x: b.x * TILE + CORNERS[b.corner][0], y: b.y * TILE + CORNERS[b.corner][1], kind: "field", b }));
}

// The attributes of a candidate on the board (a legal cell, a cell choice, a figure spot): a
// button named in words, reached from the board's one Tab stop with the arrow keys.
function stopAttributes(name) {
  return { role: "button", tabindex: "-1", "aria-label": name };
}

const STOPS = ".target, .cell-choice, .spot";

function boardStops() {
  return [...$("board").querySelectorAll(STOPS)];
}

function stopKey(element) {
  return element.dataset.action || element.dataset.cell;
}

// Where on its tile a spot lies, in words: "north side", "in the middle" (spots of two roads of
// one tile would otherwise have the same name).
const SIDES = ["east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east"];

function sideOfTile(x, y, cellX, cellY) {
  const [dx, dy] = [x - (cellX + 0.5) * TILE, y - (cellY + 0.5) * TILE];
  if (Math.hypot(dx, dy) < 15) return "in the middle";
  return `${SIDES[(Math.round(Math.atan2(dy, dx) / (Math.PI / 4)) + 8) % 8]} side`;
}

// The selected cell is marked (and the board's Tab stop, unless the keyboard is elsewhere on it).
function markSelected() {
  const key = page.selected ? `${page.selected.x},${page.selected.y}` : null;
  let marked = null;
  for (const rect of $("layer-targets").querySelectorAll(".target")) {
    const selected = rect.dataset.cell === key;
    rect.classList.toggle("selected", selected);
    if (selected) marked = rect;
  }
  const stops = boardStops();
  if (!stops.some((s) => s === document.activeElement)) makeTabStop(marked || stops[0]);
}

// The board's one Tab stop; the arrow keys reach the others.
function makeTabStop(element) {
  for (const other of boardStops()) other.setAttribute("tabindex", other === element ? "0" : "-1");
}

// What has the keyboard's focus before a redraw, to keep it after (keepFocus).
export function focusBefore() {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  return { key: active.matches(STOPS) ? stopKey(active) : null };
}

// After a redraw took away the element the keyboard was on (a move made, a new state shown), or
// while it rests on the board itself: the same candidate drawn anew, else the board's Tab stop,
// else the turn's first choice, else the board; so that Tab and the arrow keys go on from there.
export function keepFocus(before) {
  if (!before) return;
  const active = document.activeElement;
  const lost = !active || active === document.body || active.disabled;
  if (!lost && active !== $("board")) return;
  const stops = boardStops();
  const target = stops.find((s) => before.key && stopKey(s) === before.key) ||
    stops.find((s) => s.getAttribute("tabindex") === "0") || $("choices").querySelector("button") || $("board");
  if (target !== active) target.focus({ preventScroll: true });
}

// The stop nearest `from` in the direction [dx, dy] (screen pixels), preferring the ones in line.
function nearestStop(from, [dx, dy]) {
  const centre = (e) => {
    const box = e.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  };
  const [x0, y0] = centre(from);
  let best = null, bestScore = Infinity;
  for (const stop of boardStops()) {
    const [x, y] = centre(stop);
    const along = (x - x0) * dx + (y - y0) * dy;
    if (stop === from || along < 1) continue;
    const score = along + 2 * Math.abs((x - x0) * dy - (y - y0) * dx);
    if (score < bestScore) [best, bestScore] = [stop, score];
  }
  return best;
}

// Pans the board so that a stop the keyboard moved to is in view.
function showStop(element) {
  const box = $("board").getBoundingClientRect();
  const r = element.getBoundingClientRect();
  if (r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom) return;
  page.view.x += box.left + box.width / 2 - (r.left + r.width / 2);
  page.view.y += box.top + box.height / 2 - (r.top + r.height / 2);
  applyView();
}

function placementAt(element) {
  return page.game.legal.placements.find((c) => `${c.x},${c.y}` === element.dataset.cell);
}

// Enter (or Space) on a stop: a cell places the tile there as it is turned; a spot or a cell
// choice is played.
function activate(element) {
  if (!element.matches(".target")) {
    actions.play(element.dataset.action);
    return;
  }
  const cell = placementAt(element);
  if (!page.selected || page.selected.x !== cell.x || page.selected.y !== cell.y) selectCell(cell, false);
  placeSelected();
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

function setUpKeyboardPlay(board) {
  board.addEventListener("focusin", (event) => {
    if (!event.target.matches(STOPS)) return;
    makeTabStop(event.target);
    showStop(event.target);
  });
  board.addEventListener("keydown", (event) => {
    const step = ARROWS[event.key];
    if (event.target === board && step) {  // nothing to choose on the board: the keys pan it
      event.preventDefault();
      page.view.x -= 60 * step[0];
      page.view.y -= 60 * step[1];
      applyView();
      return;
    }
    if (!event.target.matches(STOPS)) return;
    if (step) {
      event.preventDefault();
      const next = nearestStop(event.target, step);
      if (!next) return;
      next.focus();
      if (next.matches(".target")) selectCell(placementAt(next), false);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      event.stopPropagation();  // not the page's own Enter too
      activate(event.target);
    }
  });
}

// Tells a screen reader what the keyboard just changed on the board (the chosen cell, its turn).
function announce(text) {
  $("board-news").textContent = text;
}

// A clickable figure spot; `part` ([x, y, feature]) is outlined while the pointer is on it, so
// the feature a figure would stand on is seen. Spots keep their size on screen as the board
// zooms out (the --grow of applyView), so they stay big enough to tap.
// Each feature's spot has its own shape: a city a square (a tower), a road a diamond, a field a
// flat ellipse (farmers lie), a monastery, shrine or abbey a circle.
export const SPOT_SHAPES = {
  city: (g) => svgElement("rect", { x: -11, y: -11, width: 22, height: 22, rx: 3 }, g),
  road: (g) => svgElement("rect", { x: -9, y: -9, width: 18, height: 18, transform: "rotate(45)" }, g),
  field: (g) => svgElement("ellipse", { rx: 15, ry: 11 }, g),
  other: (g) => svgElement("circle", { r: 11 }, g),
};
// Half the width and height of each shape above (board units at --grow 1).
const SPOT_HALF = { city: [11, 11], road: [9 * Math.SQRT2, 9 * Math.SQRT2], field: [15, 11], other: [11, 11] };

function addSpot(layer, x, y, text, action, title, part = null, featureKind = "other") {
  const group = svgElement("g", { class: `spot spot-${featureKind}`, transform: `translate(${x},${y})`, "data-action": action, ...stopAttributes(title) }, layer);
  const grown = svgElement("g", { class: "grow" }, group);
  (SPOT_SHAPES[featureKind] || SPOT_SHAPES.other)(grown).classList.add("spot-shape");
  svgElement("text", { y: 4 }, grown).textContent = text;
  svgElement("title", {}, group).textContent = title;
  group.addEventListener("click", (event) => {
    event.stopPropagation();
    actions.play(action);
  });
  if (part) {
    const outline = () => outlineFeature($("layer-hover"), [part], page.options.colours[page.game.current_player], "hovered");
    const clear = () => $("layer-hover").replaceChildren();
    group.addEventListener("mouseenter", outline);
    group.addEventListener("mouseleave", clear);
    group.addEventListener("focus", outline);
    group.addEventListener("blur", clear);
  }
  return group;
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
  if (!game.your_turn || game.phase !== "place_tile" || page.replay) return;
  const cell = page.selected || hovered;
  // A hovered cell from an earlier turn (its target was drawn again) is not a preview now.
  if (!cell || !game.legal.placements.some((c) => c.x === cell.x && c.y === cell.y)) return;
  const rotation = page.selected ? page.selected.rotation : rotationFor(cell);
  tileUse(game.drawn_tile, cell.x, cell.y, rotation, layer, page.selected ? "ghost fixed" : "ghost");
  if (page.selected) {
    svgElement("rect", { x: cell.x * TILE + 1, y: cell.y * TILE + 1, width: TILE - 2, height: TILE - 2, class: "selection" }, layer);
  }
}

// A click on a cell selects it, a second click places the tile (`placeIfSelected`); the arrow
// keys only select.
function selectCell(cell, placeIfSelected = true) {
  if (page.selected && page.selected.x === cell.x && page.selected.y === cell.y) {
    if (placeIfSelected) placeSelected();
    return;
  }
  page.selected = { ...cell, rotation: rotationFor(cell) };
  markSelected();
  renderGhost();
  actions.renderTurn();
  announce(`${cell.where}, turned ${90 * page.selected.rotation}°`);
}

export function rotate(step = 1) {
  const game = page.game;
  if (!game || !game.your_turn || game.phase !== "place_tile") return;
  page.rotation = (page.rotation + step + 4) % 4;
  if (page.selected) {
    const legal = Object.keys(page.selected.rotations).map(Number).sort();
    const index = legal.indexOf(page.selected.rotation);
    page.selected.rotation = legal[(index + (step > 0 ? 1 : legal.length - 1)) % legal.length];
    page.rotation = page.selected.rotation;
    announce(`turned ${90 * page.selected.rotation}°`);
  }
  renderGhost();
  actions.renderTurn();
}

export function placeSelected() {
  if (!page.selected) return;
  actions.play(page.selected.rotations[page.selected.rotation]);
}

// Draws the hinted moves on the board: a numbered frame on a placement's cell or around a spot.
export function renderHints() {
  const layer = $("layer-hints");
  layer.replaceChildren();
  renderReviewMark(layer);
  if (!page.hints || page.replay) return;
  const legal = page.game.legal;
  const marked = new Map();  // frame corner -> hints drawn there
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
    // Hints on one cell (two turns of the tile) share its frame; their numbers stand side by side.
    const key = `${x},${y}`;
    const before = marked.get(key) || 0;
    marked.set(key, before + 1);
    if (!before) svgElement("rect", { x, y, width: size, height: size, rx: 6, class: "hint-mark" }, layer);
    svgElement("text", { x: x + 4 + 20 * before, y: y + 24, class: "hint-mark-text" }, layer).textContent = `${i + 1}`;
  });
}

// In a review, on the board after a costly move: where the computer would have played instead
// (its tile turned on its cell, or its figure's spot), in a dashed frame marked "better".
function renderReviewMark(layer) {
  const mark = page.reviewMark;
  if (!mark || !page.replay || page.replay.moves !== mark.moves) return;
  const where = mark.where;
  let x, y, size = TILE - 12;
  if (where.tile) {
    tileUse(where.tile, where.x, where.y, where.rotation, layer, "ghost review-ghost");
    [x, y] = [where.x * TILE + 6, where.y * TILE + 6];
  } else if (where.feature !== undefined || where.corner) {
    const [cx, cy] = where.corner ? [where.x * TILE + CORNERS[where.corner][0], where.y * TILE + CORNERS[where.corner][1]]
      : featureSpot(where.x, where.y, where.feature);
    size = 44;
    [x, y] = [cx - 22, cy - 22];
  } else [x, y] = [where.x * TILE + 6, where.y * TILE + 6];
  const group = svgElement("g", { class: "review-best" }, layer);
  svgElement("rect", { x, y, width: size, height: size, rx: 6, class: "review-mark" }, group);
  svgElement("text", { x: x + size / 2, y: y - 6, class: "review-mark-text", "text-anchor": "middle" }, group).textContent = "better";
}

// With a finger, spots are FINGER_SPOT times their board size on screen (34 px across) however
// far the board is zoomed: zoomed in, they keep that size and move apart.
const FINGER_SPOT = 1.55;

function applyView() {
  const { x, y, scale } = page.view;
  $("world").setAttribute("transform", `translate(${x},${y}) scale(${scale})`);
  // Spots stay at least 18 px across on screen with a mouse.
  const finger = matchMedia("(pointer: coarse)").matches;
  $("board").style.setProperty("--grow", finger ? FINGER_SPOT / scale : Math.max(1, 0.8 / scale));
}

// On a touch screen, the smallest zoom the fit chooses: a tile (and a legal cell) at least 34 px
// wide, big enough to tap. A board too large for that is centred on where the tile may go
// (the ⤢ button still shows the whole board).
const MIN_TOUCH_SCALE = 0.34;

function bounds(cells) {
  const xs = cells.map((c) => c.x), ys = cells.map((c) => c.y);
  return [Math.min(...xs), Math.max(...xs) + 1, Math.min(...ys), Math.max(...ys) + 1];
}

export function fitView(whole = false) {
  const game = page.game;
  const cells = page.replay ? page.replay.tiles : [...game.tiles, ...game.legal.placements];
  let [minX, maxX, minY, maxY] = bounds(cells);
  const box = $("board").getBoundingClientRect();
  let scale = Math.min(1.2, Math.min(box.width / ((maxX - minX + 1) * TILE), box.height / ((maxY - minY + 1) * TILE)));
  if (scale < MIN_TOUCH_SCALE && !whole && matchMedia("(pointer: coarse)").matches) {
    scale = MIN_TOUCH_SCALE;
    const focus = page.replay ? [] : [...game.legal.placements, ...game.legal.cells];
    const last = cells[cells.length - 1];
    [minX, maxX, minY, maxY] = bounds(focus.length ? focus : last ? [last] : cells);
  }
  page.view = {
    scale,
    x: box.width / 2 - ((minX + maxX) / 2) * TILE * scale,
    y: box.height / 2 - ((minY + maxY) / 2) * TILE * scale,
  };
  applyView();
}

// With a finger, figure spots are tapped, not clicked: the board zooms onto the tile just placed
// until its spots (34 px across) lie apart, as far as the tile fits on the board.
export function zoomForFingers() {
  const game = page.game;
  if (!matchMedia("(pointer: coarse)").matches || page.replay || !game.your_turn) return false;
  if (!game.legal.figures.length && !game.legal.barns.length) return false;
  const last = game.tiles[game.tiles.length - 1];
  const box = $("board").getBoundingClientRect();
  const spots = [...figureSpots(game.legal).filter((spot) => !spot.remote), ...barnSpots(game.legal)];
  let scale = 1.5;
  spots.forEach((a, i) => {
    for (const b of spots.slice(i + 1)) {
      // Two spots' boxes are apart once their distance across or down covers their half sizes.
      const [aw, ah] = SPOT_HALF[a.kind] || SPOT_HALF.other;
      const [bw, bh] = SPOT_HALF[b.kind] || SPOT_HALF.other;
      const across = ((aw + bw) * FINGER_SPOT) / Math.abs(a.x - b.x);
      const down = ((ah + bh) * FINGER_SPOT) / Math.abs(a.y - b.y);
      scale = Math.max(scale, 1.1 * Math.min(across, down));  // a tenth more: their outlines
    }
  });
  scale = Math.min(scale, Math.min(box.width, box.height) / (1.1 * TILE));
  page.view = { scale, x: box.width / 2 - (last.x + 0.5) * TILE * scale, y: box.height / 2 - (last.y + 0.5) * TILE * scale };
  applyView();
  return true;
}

// True if every one of these cells lies inside the board's view, below `top` px of it.
export function allVisible(cells, top = 0) {
  const box = $("board").getBoundingClientRect();
  const { x, y, scale } = page.view;
  return cells.every((c) => c.x * TILE * scale + x >= 0 && (c.x + 1) * TILE * scale + x <= box.width &&
    c.y * TILE * scale + y >= top && (c.y + 1) * TILE * scale + y <= box.height);
}

// Shows every one of `cells` below `top` px of the board (what a panel over it leaves free):
// centred there, zoomed out if they do not fit; a view that shows them already stays.
export function bringIntoView(cells, top = 0) {
  if (!cells.length || allVisible(cells, top)) return;
  const box = $("board").getBoundingClientRect();
  const [minX, maxX, minY, maxY] = bounds(cells);
  const height = Math.max(box.height - top, TILE);
  const fits = Math.min(box.width / ((maxX - minX + 0.5) * TILE), height / ((maxY - minY + 0.5) * TILE));
  const scale = Math.min(page.view.scale, fits);
  page.view = {
    scale,
    x: box.width / 2 - ((minX + maxX) / 2) * TILE * scale,
    y: top + height / 2 - ((minY + maxY) / 2) * TILE * scale,
  };
  applyView();
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

export function setUpBoardControls() {
  const board = $("board");
  setUpKeyboardPlay(board);
  let drag = null;
  const fingers = new Map();  // pointer id -> [x, y]: two of them pinch to zoom
  let pinch = null;
  const spread = () => {
    const [a, b] = [...fingers.values()];
    return [Math.hypot(a[0] - b[0], a[1] - b[1]), (a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  };
  board.addEventListener("pointerdown", (event) => {
    if (playing()) finish();  // a click shows the end of a playback at once
    fingers.set(event.pointerId, [event.clientX, event.clientY]);
    if (fingers.size === 2) {
      drag = null;
      pinch = spread()[0];
      return;
    }
    // A drag may start anywhere, on a legal cell too (on a phone they cover the board); only a
    // press that did not move is a click.
    drag = { x: event.clientX, y: event.clientY, vx: page.view.x, vy: page.view.y };
    moved = false;
    board.classList.add("dragging");
  });
  let moved = false;
  board.addEventListener("click", (event) => {
    if (moved) event.stopPropagation();  // the end of a drag, not a choice
  }, true);
  const lift = (event) => {
    fingers.delete(event.pointerId);
    if (fingers.size < 2) pinch = null;
    drag = null;
    board.classList.remove("dragging");
  };
  window.addEventListener("pointerup", lift);
  window.addEventListener("pointercancel", lift);
  board.addEventListener("pointermove", (event) => {
    const [x, y] = boardCell(event);
    $("coords").textContent = `${x}, ${y}`;
    if (fingers.has(event.pointerId)) fingers.set(event.pointerId, [event.clientX, event.clientY]);
    if (pinch && fingers.size === 2) {
      const [distance, cx, cy] = spread();
      const box = board.getBoundingClientRect();
      zoom(distance / pinch, cx - box.left, cy - box.top);
      pinch = distance;
      return;
    }
    if (!drag) return;
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > 8) moved = true;
    if (!moved) return;
    page.view.x = drag.vx + event.clientX - drag.x;
    page.view.y = drag.vy + event.clientY - drag.y;
    applyView();
  });
  board.addEventListener("wheel", (event) => {
    event.preventDefault();
    const placing = page.game && page.game.your_turn && page.game.phase === "place_tile";
    // Over a legal cell or the chosen one, the wheel turns the tile; elsewhere it zooms.
    if (placing && event.target.closest(".target")) {
      rotate(event.deltaY > 0 ? 1 : -1);
      return;
    }
    const box = board.getBoundingClientRect();
    zoom(event.deltaY > 0 ? 0.9 : 1.1, event.clientX - box.left, event.clientY - box.top);
  }, { passive: false });
  window.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, dialog")) return;
    if (playing()) {  // any key shows the end of a playback at once
      finish();
      return;
    }
    if (event.key === "r" || event.key === "R") {
      // R on a legal cell the keyboard is on turns the tile there.
      const cell = event.target.matches(".target") && placementAt(event.target);
      if (cell) selectCell(cell, false);
      rotate(event.shiftKey ? -1 : 1);
    }
    // Enter elsewhere belongs to the button or link it is pressed on.
    if (event.key === "Enter" && (event.target === document.body || event.target === board)) placeSelected();
    if (event.key === "Escape" && page.selected) {
      page.selected = null;
      actions.render();
    }
  });
  $("zoom-in").addEventListener("click", () => zoom(1.25));
  $("zoom-out").addEventListener("click", () => zoom(0.8));
  $("zoom-fit").addEventListener("click", () => fitView(true));
  window.addEventListener("resize", () => page.game && fitView());
}
