// The post-game review: every player's win chance after each move as a graph (the server's MCTS,
// computed once per game in the background, averaged over a round of moves), one player's
// costliest moves (this page's own seat first) marked and listed with what the computer would
// have played and the points each move gave, and the small slips below the mark summed up; a
// click shows the board after that move.
import { page, $, api, svgElement, swatch, seatHtml, playerName, escapeHtml, showStatus } from "./common.js";
import { actions } from "./actions.js";

const W = 340, H = 150, LEFT = 30, TOP = 6, BOTTOM = 18;
let review = null;  // the review shown: {gameId, points, players, ...}
let reviewing = null;  // the id of the game whose review the panel shows (or computes)
let timer = null;
let whose = 0;  // the player whose moves the review marks

// This page's own seat first; a watcher sees a person's moves; a game of bots, the first seat's.
function firstPlayer(game) {
  const person = game.seats.findIndex((seat) => seat.kind !== "bot");
  return game.you.length ? game.you[0] : Math.max(0, person);
}

const percent = (w) => `${Math.round(100 * w)}%`;

export async function openReview() {
  const game = page.game;
  reviewing = game.id;
  $("end-dialog").close();
  $("review-panel").hidden = false;
  $("review-panel").scrollIntoView({ block: "nearest" });
  clearTimeout(timer);
  try {
    const answer = await api("GET", `/api/games/${game.id}/review`);
    if (reviewing !== game.id) return;  // closed, or another game shown meanwhile
    if (answer.status === "running") {
      showProgress(answer);
      timer = setTimeout(openReview, 700);
      return;
    }
    review = { gameId: game.id, ...answer };
    $("review-progress").hidden = true;
    whose = firstPlayer(game);
    const select = $("review-whose");
    select.innerHTML = game.seats.map((_, p) => `<option value="${p}">${seatHtml(p)}</option>`).join("");
    select.value = whose;
    $("review-whose-label").hidden = false;
    drawGraph();
    listMarked();
  } catch (error) {
    $("review-text").textContent = error.message;
  }
}

function showProgress({ done, total }) {
  $("review-progress").hidden = false;
  $("review-progress").max = total;
  $("review-progress").value = done;
  $("review-text").textContent = `Working out the win chances: ${done} of ${total} positions searched…`;
  $("review-whose-label").hidden = true;
  $("review-graph").replaceChildren();
  $("review-marked").replaceChildren();
  $("review-slips").replaceChildren();
}

export function setUpReview() {
  $("review-whose").addEventListener("change", (event) => {
    whose = Number(event.target.value);
    drawGraph();
    listMarked();
  });
  // The slips named in the summary show their board too.
  $("review-slips").addEventListener("click", (event) => {
    const slip = event.target.closest("[data-point]");
    if (slip) show(Number(slip.dataset.point));
  });
  // The marked moves and the slips are buttons to the keyboard as well.
  for (const list of [$("review-marked"), $("review-slips")]) {
    list.addEventListener("keydown", (event) => {
      const item = event.target.closest("[data-point]");
      if (!item || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();  // Space would scroll the panel
      show(Number(item.dataset.point));
    });
  }
}

export function closeReview() {
  clearTimeout(timer);
  $("review-panel").hidden = true;
  page.reviewMark = null;
  review = null;
  reviewing = null;
}

// A review belongs to one game: another game shown closes it.
export function forgetReview(gameId) {
  if (reviewing && reviewing !== gameId) closeReview();
}

const x = (k) => LEFT + (k * (W - LEFT - 4)) / Math.max(1, review.points.length - 1);
const y = (w) => TOP + (1 - w) * (H - TOP - BOTTOM);

function drawGraph(selected = null) {
  const svg = $("review-graph");
  svg.replaceChildren();
  for (const w of [0, 0.5, 1]) {
    svgElement("line", { x1: LEFT, x2: W - 4, y1: y(w), y2: y(w), class: "grid" }, svg);
    svgElement("text", { x: LEFT - 4, y: y(w) + 4, class: "axis", "text-anchor": "end" }, svg).textContent = percent(w);
  }
  const points = review.points;
  const last = points[points.length - 1];
  svgElement("text", { x: LEFT, y: H - 3, class: "axis" }, svg).textContent = "turn 1";
  svgElement("text", { x: W - 4, y: H - 3, class: "axis", "text-anchor": "end" }, svg).textContent = `turn ${last.turn}`;
  // Each player's line: the chances averaged over a round of moves; faint, one search's own.
  page.game.seats.forEach((_, p) => {
    const line = (key) => points.map((point, k) => `${x(k).toFixed(1)},${y(point[key][p]).toFixed(1)}`).join(" ");
    svgElement("polyline", { points: line("win"), class: "win-raw", stroke: page.options.colours[p] }, svg);
    svgElement("polyline", { points: line("smooth"), class: "win-line", stroke: page.options.colours[p], "data-player": p }, svg);
  });
  if (selected !== null) svgElement("line", { x1: x(selected), x2: x(selected), y1: TOP, y2: H - BOTTOM, class: "cursor" }, svg);
  review.players[whose].marked.forEach((k, n) => {
    const point = points[k];
    const mark = svgElement("g", { class: "costly", "data-point": k }, svg);
    svgElement("circle", { cx: x(k), cy: y(point.smooth[point.player]), r: 7, stroke: page.options.colours[point.player] }, mark);
    svgElement("text", { x: x(k), y: y(point.smooth[point.player]) + 3.5, "text-anchor": "middle" }, mark).textContent = n + 1;
    svgElement("title", {}, mark).textContent = `${point.why.played}: −${percent(point.cost)}`;
  });
  // A click anywhere on the graph: the nearest move.
  svg.onclick = (event) => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * W;
    const k = Math.round(((at - LEFT) / (W - LEFT - 4)) * (points.length - 1));
    show(Math.max(0, Math.min(points.length - 1, k)));
  };
}

function listMarked() {
  const list = $("review-marked");
  list.replaceChildren();
  const points = review.points;
  const summary = review.players[whose];
  const name = escapeHtml(playerName(whose));
  const valued = review.evaluator ? `; leaves valued by ${escapeHtml(review.evaluator)}` : "";
  const how = `Each line: a player's chance to win after each move (MCTS, ${review.iterations} iterations a position${valued}), ` +
    `averaged over the ${review.smoothing} moves either side; one position's own estimate (the faint line) strays about ` +
    `±${percent(review.jitter)} from it, so read the trend and the big drops.`;
  $("review-text").innerHTML = `${how} ${summary.marked.length ? `${swatch(whose)}${name}'s moves that cost the most:` : `No move of ${swatch(whose)}${name}'s cost ${percent(0.05)} or more.`}`;
  summary.marked.forEach((k) => {
    const point = points[k];
    const item = document.createElement("li");
    item.dataset.point = k;
    item.innerHTML = `Turn ${point.turn}: ${escapeHtml(point.why.played)} — cost <b>${percent(point.cost)}</b> win chance.` +
      `<div class="better">The computer would have ${escapeHtml(point.why.better)}. ${escapeHtml(point.why.verdict)}</div>`;
    item.title = "Show the board after this move, the computer's move marked “better”";
    item.tabIndex = 0;  // Tab reaches it, Enter or Space shows it
    item.setAttribute("role", "button");
    item.addEventListener("click", () => show(k));
    list.appendChild(item);
  });
  // A loss is many small slips as often as a few big ones: their sum, the biggest named.
  const slips = summary.biggest_slips.map((k) => `<span class="slip" data-point="${k}" tabindex="0" role="button" title="Show the board after this move">turn ${points[k].turn} (${percent(points[k].cost)})</span>`).join(", ");
  $("review-slips").innerHTML = summary.slips
    ? `Besides, ${summary.slips} smaller slip${summary.slips === 1 ? "" : "s"} (1–5% each) cost ${name} about ` +
      `<b>${Math.round(100 * summary.slips_cost)} points</b> of win chance together, counted one by one` +
      `${summary.marked.length ? `, the marked moves ${Math.round(100 * summary.marked.reduce((sum, k) => sum + points[k].cost, 0))}` : ""}; ` +
      `the biggest: ${slips}.`
    : "";
}

// The board after move `k` of the review, and that move's win chances.
function show(k) {
  const point = review.points[k];
  drawGraph(k);
  for (const item of $("review-marked").children) item.classList.toggle("selected", Number(item.dataset.point) === k);
  const other = point.best.action !== point.action;
  // Drawn with the board of that move (board.js): the computer's move, where it has a place.
  page.reviewMark = other && point.best.where ? { moves: point.index + 1, where: point.best.where } : null;
  actions.replayTo(point.index + 1);
  const chances = point.smooth.map((w, p) => `${swatch(p)}${percent(w)}`).join(" ");
  const better = point.why ? escapeHtml(point.why.better) : `played <b>${point.best.label}</b>`;
  const marked = page.reviewMark ? " (marked “better” on the board)" : "";
  $("review-text").innerHTML = `Turn ${point.turn}, ${seatHtml(point.player)}: <b>${escapeHtml(point.why ? point.why.played : page.game.log[point.index].text)}</b>. Win chances about then: ${chances}` +
    (!other ? " (the computer's choice too)." :
      `; the computer would have ${better}${marked}.${point.why ? ` ${escapeHtml(point.why.verdict)}` : ""}`);
  showStatus(`Review: the board after turn ${point.turn}'s move`);
}
