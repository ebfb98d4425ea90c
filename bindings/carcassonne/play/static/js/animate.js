// Following the game: the moves made since the board was last drawn are played back on it one
// step at a time (another player's tile fades in where it lands, its figure follows; a scored feature is
// outlined, its points rise in the scorer's colour and its figures leave for home), at the speed
// the player chose. A click on the board, a key or Skip shows the end at once.
import { TILE, page, $, svgElement, featureSpot, figurePoint, figureKey, signed, tileAtCell } from "./common.js";

export const SPEEDS = { slow: 1700, normal: 1000, fast: 450, off: 0 };  // ms a step
const PLACE = /^place (-?\d+),(-?\d+) r\d$/;
const MAX_PLAYBACK = 12;  // moves played back at most (a round of six players' tiles and figures)

let timer = null;
let onFinish = null;

export function playing() {
  return timer !== null;
}

// The shape of the feature made of `parts` ([[x, y, feature]...]) drawn in `colour` on `layer`.
export function outlineFeature(layer, parts, colour, extraClass = "") {
  const group = svgElement("g", { class: `feature-outline ${extraClass}`, style: `--colour:${colour}` }, layer);
  for (const [x, y, feature] of parts) {
    const tile = tileAtCell(x, y);
    const outline = tile && page.tiles[tile.tile].outlines[feature];
    if (!outline) continue;
    const kind = page.tiles[tile.tile].features[feature];
    const onTile = svgElement("g", { transform: `translate(${x * TILE},${y * TILE}) rotate(${90 * tile.rotation} 50 50)` }, group);
    const shape = outline.area ? (kind === "field" ? "outline-field" : "outline-area") : "outline-line";
    svgElement("path", { d: outline.d, class: shape }, onTile);
  }
  return group;
}

// The middle of a feature's figure spots (where its points rise), or of a cell.
export function featureCentre(parts, fallback) {
  const spots = parts.map(([x, y, f]) => featureSpot(x, y, f));
  if (!spots.length) return fallback ? [fallback.x * TILE + 50, fallback.y * TILE + 50] : [0, 0];
  return [spots.reduce((s, p) => s + p[0], 0) / spots.length, spots.reduce((s, p) => s + p[1], 0) / spots.length];
}

// The colour of a scoring: its one scorer's, or gold when several share it (or nobody scored).
export function scoringColour(points) {
  const scorers = Object.keys(points).filter((p) => points[p]);
  return scorers.length === 1 ? page.options.colours[scorers[0]] : "#ffc300";
}

function timed(element, name, delay, duration) {
  page.playedBack[name] = (page.playedBack[name] || 0) + 1;  // what was shown, for the tests
  element.style.animation = `${name} ${duration}ms ease-in-out ${delay}ms both`;
  return element;
}

// Points rising from (x, y): one line per scorer, in the scorer's colour.
export function risingPoints(layer, x, y, points, delay, duration) {
  Object.entries(points).forEach(([player, gain], i) => {
    const at = svgElement("g", { transform: `translate(${x},${y})` }, layer);
    const grown = svgElement("g", { class: "grow" }, at);
    const text = svgElement("text", { class: "rising-points", fill: page.options.colours[player], y: -30 * i }, grown);
    text.textContent = signed(gain);
    timed(text, "rise", delay, duration);
  });
}

function showScoring(layer, event, entry, delay, step) {
  const placed = PLACE.exec(entry.action);
  const fallback = placed ? { x: Number(placed[1]), y: Number(placed[2]) } : page.game.tiles[page.game.tiles.length - 1];
  const duration = Math.max(2 * step, 900);
  timed(outlineFeature(layer, event.parts, scoringColour(event.points)), "flash", delay, duration);
  for (const f of event.returned) {
    const [x, y] = figurePoint(f);
    const at = svgElement("g", { transform: `translate(${x},${y})` }, layer);
    const figure = svgElement("g", { class: "going-home" }, at);
    figure.innerHTML = page.options.figures[f.kind][f.player];
    timed(figure, "go-home", delay, duration);
  }
  const [x, y] = featureCentre(event.parts, fallback);
  risingPoints(layer, x, y, event.points, delay, duration);
}

// Plays back `entries` (log entries of moves already on the board, oldest first); `done` runs
// when the playback ends or is skipped.
export function playBack(entries, done) {
  finish();
  const step = SPEEDS[page.speed] ?? SPEEDS.normal;
  const layer = $("layer-anim");
  let steps = 0;
  // A long catch-up (the page reopened, the connection back) shows its last moves only.
  const moves = entries.filter((entry) => entry.player >= 0).slice(-MAX_PLAYBACK);
  for (const entry of step ? moves : []) {
    // Another player's move (a bot's, a friend's at their own screen): this page did not see it made.
    const elsewhere = !page.game.you.includes(entry.player);
    const delay = steps * step;
    let shown = false;
    const placed = PLACE.exec(entry.action);
    if (elsewhere && placed) {
      const tile = document.querySelector(`#layer-tiles [data-cell="${placed[1]},${placed[2]}"]`);
      if (tile) timed(tile, "arrive", delay, step * 0.6);
      const at = svgElement("g", { transform: `translate(${placed[1] * TILE + 50},${placed[2] * TILE + 50})` }, layer);
      timed(svgElement("rect", { x: -50, y: -50, width: TILE, height: TILE, class: "landing", stroke: page.options.colours[entry.player] }, at), "land", delay, step * 0.9);
      shown = true;
    }
    if (elsewhere) {
      for (const f of entry.placed_figures) {
        const figure = document.querySelector(`#layer-figures [data-figure="${figureKey(f)}"]`);
        if (figure) timed(figure, "arrive", delay + (placed ? step * 0.4 : 0), step * 0.5);
        shown = true;
      }
    }
    if (entry.events.length) {
      const at = delay + (shown ? step * 0.5 : 0);
      for (const event of entry.events) showScoring(layer, event, entry, at, step);
      shown = true;
    }
    if (shown) steps++;
  }
  if (!steps) {
    done();
    return;
  }
  onFinish = done;
  $("board").classList.add("playing-back");
  $("skip-button").hidden = false;
  timer = setTimeout(finish, steps * step + Math.max(2 * step, 900));
}

// Ends a playback at once: the board as it is now, then what waited for the playback.
export function finish() {
  if (timer === null) return;
  clearTimeout(timer);
  timer = null;
  $("layer-anim").replaceChildren();
  for (const element of document.querySelectorAll("#layer-tiles [style], #layer-figures [style]")) element.style.animation = "";
  $("board").classList.remove("playing-back");
  $("skip-button").hidden = true;
  const done = onFinish;
  onFinish = null;
  if (done) done();
}
