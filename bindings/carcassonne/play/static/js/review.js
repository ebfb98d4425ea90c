// The post-game review: every player's win chance after each move as a graph (the server's MCTS,
// computed once per game in the background), the moves that cost their player the most marked
// and listed with what the computer would have played; a click shows the board after that move.
import { page, $, api, svgElement, swatch, seatHtml, showStatus } from "./common.js";
import { replayTo } from "./main.js";

const W = 340, H = 150, LEFT = 30, TOP = 6, BOTTOM = 18;
let review = null;  // the review shown: {gameId, points, marked, ...}
let reviewing = null;  // the id of the game whose review the panel shows (or computes)
let timer = null;

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
  $("review-graph").replaceChildren();
  $("review-marked").replaceChildren();
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
  page.game.seats.forEach((_, p) => {
    const line = points.map((point, k) => `${x(k).toFixed(1)},${y(point.win[p]).toFixed(1)}`).join(" ");
    svgElement("polyline", { points: line, class: "win-line", stroke: page.options.colours[p], "data-player": p }, svg);
  });
  if (selected !== null) svgElement("line", { x1: x(selected), x2: x(selected), y1: TOP, y2: H - BOTTOM, class: "cursor" }, svg);
  review.marked.forEach((k, n) => {
    const point = points[k];
    const mark = svgElement("g", { class: "costly", "data-point": k }, svg);
    svgElement("circle", { cx: x(k), cy: y(point.win[point.player]), r: 7, stroke: page.options.colours[point.player] }, mark);
    svgElement("text", { x: x(k), y: y(point.win[point.player]) + 3.5, "text-anchor": "middle" }, mark).textContent = n + 1;
    svgElement("title", {}, mark).textContent = `${point.label}: −${percent(point.cost)}`;
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
  $("review-text").textContent = review.marked.length
    ? `Each line: a player's chance to win after each move (MCTS, ${review.iterations} iterations a position). The moves that cost the most:`
    : `Each line: a player's chance to win after each move (MCTS, ${review.iterations} iterations a position). No move cost much.`;
  review.marked.forEach((k) => {
    const point = points[k];
    const p = point.player;
    const item = document.createElement("li");
    item.dataset.point = k;
    item.innerHTML = `Turn ${point.turn} ${swatch(p)}${seatHtml(p)}: <b>${point.label}</b> cost ${percent(point.cost)} win chance; ` +
      `the computer would have played <b>${point.best.label}</b> (${percent(point.best.win[p])}).`;
    item.addEventListener("click", () => show(k));
    list.appendChild(item);
  });
}

// The board after move `k` of the review, and that move's win chances.
function show(k) {
  const point = review.points[k];
  drawGraph(k);
  for (const item of $("review-marked").children) item.classList.toggle("selected", Number(item.dataset.point) === k);
  const other = point.best.action !== point.action;
  // Drawn with the board of that move (board.js): the computer's move, where it has a place.
  page.reviewMark = other && point.best.where ? { moves: point.index + 1, where: point.best.where } : null;
  replayTo(point.index + 1);
  const chances = point.win.map((w, p) => `${swatch(p)}${percent(w)}`).join(" ");
  $("review-text").innerHTML = `Turn ${point.turn}, ${seatHtml(point.player)}: <b>${point.label}</b>. Win chances after it: ${chances}` +
    (!other ? " (the computer's choice too)." :
      `; the computer would have played <b>${point.best.label}</b>${page.reviewMark ? " (marked “better” on the board)" : ""}.`);
  showStatus(`Review: the board after turn ${point.turn}'s move`);
}
