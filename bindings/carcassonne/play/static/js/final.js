// The final scoring, item by item (every unfinished feature with figures on it, each farm with
// the complete cities it feeds, the King, the Robber): its own section of the move log, and a
// panel over the board that steps through the items, outlining each one.
import { page, $, TILE, svgElement, swatch, signed, playerName, escapeHtml } from "./common.js";
import { outlineFeature, scoringColour } from "./animate.js";
import { causeList } from "./panels.js";
import { bringIntoView } from "./board.js";

const FEATURE_NAMES = { road: "road", city: "city", monastery: "monastery", abbey: "abbey", shrine: "shrine", field: "farm" };
const FIGURE_NAMES = { meeple: "meeple", mayor: "mayor", wagon: "wagon", barn: "barn" };

let shownItem = null;  // the index of the item the panel shows

function plural(n, word) {
  return n === 1 ? `1 ${word}` : `${n} ${word}s`;
}

function cityCount(n) {
  return n === 1 ? "1 complete city" : `${n} complete cities`;
}

// Which complete cities a farm feeds and what they are worth: the engine's count and sum, in
// words. The City of Carcassonne is one of them when the farm reaches its squares (CK-1).
function farmCities(item) {
  const fed = item.cities.length + (item.feeds_the_city ? 1 : 0);
  let words = `feeds ${cityCount(fed)}`;
  if (item.feeds_the_city) words += fed === 1 ? ", the City of Carcassonne" : ", the City of Carcassonne among them";
  if (!fed) return words;
  const barns = item.figures.some((f) => f.kind === "barn");
  return `${words} (outlined with dashes): ${item.words} ${barns ? "to each barn" : "to the most farmers"}`;
}

// Who stands on the feature: "Red: 2 meeples, Blue: barn".
function figureList(figures) {
  const byPlayer = new Map();
  for (const f of figures) {
    const kinds = byPlayer.get(f.player) || {};
    kinds[f.kind] = (kinds[f.kind] || 0) + 1;
    byPlayer.set(f.player, kinds);
  }
  return [...byPlayer.entries()].map(([p, kinds]) => `${swatch(p)}${escapeHtml(playerName(p))}: ` +
    Object.entries(kinds).map(([k, n]) => (n === 1 ? FIGURE_NAMES[k] : plural(n, FIGURE_NAMES[k]))).join(", ")).join("; ");
}

// A one-line heading and a longer explanation of one item, in words.
export function describeItem(item) {
  const tiles = new Set(item.parts.map(([x, y]) => `${x},${y}`)).size;
  let title;
  let why = "";
  if (item.what === "king") {
    title = "The King";
    why = `who completed the largest city, 1 point per complete city on the board: ${item.words}`;
  } else if (item.what === "robber") {
    title = "The Robber";
    why = `who completed the longest road, 1 point per complete road on the board: ${item.words}`;
  } else if (item.type === "field") {
    title = `Farm of ${tiles} tile${tiles === 1 ? "" : "s"}`;
    why = `${farmCities(item)}; ${figureList(item.figures)}`;
  } else {
    const name = FEATURE_NAMES[item.type] || item.type;
    title = `Unfinished ${name}${["road", "city"].includes(item.type) ? ` of ${tiles} tile${tiles === 1 ? "" : "s"}` : ""}`;
    if (item.pennants) title += ` with ${item.pennants === 1 ? "a pennant" : `${item.pennants} pennants`}`;
    if (item.in_the_city) title += ", joined to the City of Carcassonne";
    why = `${figureList(item.figures)}: ${item.words}`;
  }
  const scorers = item.points.map((points, p) => (points ? `${swatch(p)}${escapeHtml(playerName(p))} <b>${signed(points)}</b>` : "")).filter(Boolean).join(", ") || "no points";
  const causes = Object.keys(item.causes).length > 1
    ? ` (${item.points.map((_, p) => causeList(Object.fromEntries(Object.entries(item.causes).map(([c, v]) => [c, v[p]])))).filter(Boolean).join("; ")})`
    : "";
  return { title, why, scorers: scorers + causes };
}

// The final scoring's section of the move log: one line per item, a click shows it.
export function renderFinalLog() {
  const items = page.game.final_scoring || [];
  $("final-log-section").hidden = !items.length;
  $("final-log").innerHTML = items.map((item, i) => {
    const { title, scorers } = describeItem(item);
    return `<li data-item="${i}" title="show it on the board">${title}: ${scorers}</li>`;
  }).join("");
}

// Shows item `index` of the final scoring in the panel over the board and outlines it.
export function showFinalItem(index) {
  const items = page.game.final_scoring || [];
  const layer = $("layer-focus");
  layer.replaceChildren();
  if (!items.length || index === null) {
    shownItem = null;
    $("final-panel").hidden = true;
    return;
  }
  shownItem = Math.max(0, Math.min(index, items.length - 1));
  const item = items[shownItem];
  // The rest of the board is dimmed, so the item stands out at any zoom.
  svgElement("rect", { x: -1e5, y: -1e5, width: 2e5, height: 2e5, class: "dim" }, layer);
  for (const city of item.cities) outlineFeature(layer, city, "#ffc300", "fed");
  const citySquares = item.feeds_the_city ? outlineTheCity(layer) : [];
  outlineFeature(layer, item.parts, scoringColour(Object.fromEntries(item.points.map((p, i) => [i, p]))));
  const { title, why, scorers } = describeItem(item);
  $("final-step").textContent = `${shownItem + 1} of ${items.length}`;
  $("final-text").innerHTML = `<b>${title}</b>: ${scorers}<div class="why">${why}</div>`;
  $("final-panel").hidden = false;
  $("final-back").disabled = shownItem === 0;
  $("final-forward").disabled = shownItem === items.length - 1;
  // The item in view, below the panel that lies over the top of the board.
  const cells = [item.parts, ...item.cities, citySquares].flat().map(([x, y]) => ({ x, y }));
  const panel = $("final-panel").getBoundingClientRect();
  bringIntoView(cells, panel.bottom - $("board").getBoundingClientRect().top + 8);
}

// The City of Carcassonne's block, dashed as the other cities a farm feeds; returns its squares.
function outlineTheCity(layer) {
  const squares = page.game.tiles.filter((t) => t.tile.startsWith("count-city.")).map((t) => [t.x, t.y]);
  const xs = squares.map(([x]) => x);
  const ys = squares.map(([, y]) => y);
  const group = svgElement("g", { class: "feature-outline fed", style: "--colour:#ffc300" }, layer);
  svgElement("rect", {
    x: Math.min(...xs) * TILE + 8, y: Math.min(...ys) * TILE + 8, rx: 12, class: "outline-area",
    width: (Math.max(...xs) - Math.min(...xs) + 1) * TILE - 16, height: (Math.max(...ys) - Math.min(...ys) + 1) * TILE - 16,
  }, group);
  return squares;
}

export function setUpFinalScoring() {
  $("final-back").addEventListener("click", () => showFinalItem(shownItem - 1));
  $("final-forward").addEventListener("click", () => showFinalItem(shownItem + 1));
  $("final-close").addEventListener("click", () => showFinalItem(null));
  $("final-log").addEventListener("click", (event) => {
    const line = event.target.closest("li[data-item]");
    if (line) showFinalItem(Number(line.dataset.item));
  });
  $("final-steps-button").addEventListener("click", () => {
    $("end-dialog").close();
    showFinalItem(0);
  });
  window.addEventListener("keydown", (event) => {
    if (shownItem === null || event.target.closest("input, select, dialog")) return;
    if (event.key === "ArrowRight") showFinalItem(shownItem + 1);
    if (event.key === "ArrowLeft") showFinalItem(shownItem - 1);
  });
}

// The panel closes when another game is shown.
export function forgetFinalItem() {
  showFinalItem(null);
}
