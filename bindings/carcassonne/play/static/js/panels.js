// The side panels: the turn and its choices, scores, the City, tiles left, the move log, the
// end summary and hints.
import { page, $, svgElement, api, seatHtml, playerName, escapeHtml, swatch, signed, withFriends } from "./common.js";
import { renderHints } from "./board.js";
import { actions } from "./actions.js";

// How to place the tile, with what the screen has: a finger, or a mouse and keyboard.
const PLACING_HOW = {
  finger: "tap a highlighted cell, turn the tile with Rotate ⟳, then tap the cell again (or Place here)",
  mouse: "click a highlighted cell (or Tab to the board, arrow keys to move), turn it with R, the wheel " +
    "or Rotate, then click it again (or Enter)",
};

export function renderTurn() {
  const game = page.game;
  const prompt = $("prompt");
  const drawnSvg = $("drawn-tile");
  drawnSvg.replaceChildren();
  drawnSvg.setAttribute("aria-label", "No tile drawn");
  const placing = game.your_turn && game.phase === "place_tile" && !page.replay;
  if (page.replay) prompt.textContent = "Replaying an earlier move: press Now (in Moves) to go on playing.";
  else if (game.deleted) prompt.textContent = "This game was deleted.";
  else if (game.terminal) prompt.textContent = "The game is over.";
  else if (game.your_turn) {
    const how = placing ? `: ${PLACING_HOW[matchMedia("(pointer: coarse)").matches ? "finger" : "mouse"]}` : "";
    prompt.innerHTML = `${swatch(game.current_player)}<b>${seatHtml(game.current_player)}</b>: ${game.prompt}${how}`;
  }
  else if (game.human_to_move) prompt.innerHTML = `${swatch(game.current_player)}${seatHtml(game.current_player)} is to play…`;
  else prompt.innerHTML = `${swatch(game.current_player)}${seatHtml(game.current_player)} is thinking…`;
  if (game.drawn_tile && !game.terminal && !game.deleted) {
    const last = game.tiles[game.tiles.length - 1];
    const rotation = placing ? (page.selected ? page.selected.rotation : page.rotation) : last.rotation;
    const group = svgElement("g", { transform: `rotate(${90 * rotation} 50 50)` }, drawnSvg);
    svgElement("use", { href: `#tile-${game.drawn_tile}` }, group);
    const drawn = [...game.log].reverse().find((e) => e.player < 0);
    const words = drawn ? drawn.text.replace(/^Drawn: /, "") : game.drawn_tile;
    drawnSvg.setAttribute("aria-label", `The tile ${placing ? "to place" : "placed"}: ${words}, turned ${90 * rotation}°`);
  }
  $("rotate-button").disabled = !placing;
  $("place-button").disabled = !(placing && page.selected);
  const choices = $("choices");
  choices.replaceChildren();
  const all = $("all-choices-list");
  all.replaceChildren();
  if (!game.your_turn || page.replay) return;
  for (const choice of game.legal.choices) {
    const button = document.createElement("button");
    button.textContent = choice.label;
    button.title = choice.action;
    button.dataset.action = choice.action;
    button.addEventListener("click", () => actions.play(choice.action));
    choices.appendChild(button);
  }
  for (const { action, label } of game.legal.every) {
    const button = document.createElement("button");
    button.textContent = label;
    button.title = action;
    button.addEventListener("click", () => actions.play(action));
    all.appendChild(button);
  }
}

// Each player's points in the last round (since their own last turn began), from the log: a
// bot's move does not hide what one's own move scored, and nothing compares two games.
function lastRoundGains(game) {
  const gains = game.scores.map(() => 0);
  const since = game.turn + 1 - game.seats.length;  // log turns count from 1, game.turn from 0
  for (const entry of game.log) {
    if (entry.turn <= since) continue;
    for (const s of entry.scored) gains[s.player] += s.points;
  }
  return gains;
}

export const CAUSE_NAMES = {
  city: "cities", road: "roads", cloister: "monasteries", shrine: "shrines", field: "farmers",
  barn: "barns", king: "King", robber: "Robber", arrow: "arrows", city_mayor: "mayors",
  field_barn: "farmers with a barn", other: "other",
};

export function causeList(breakdown) {
  return Object.entries(breakdown).filter(([, points]) => points).map(([cause, points]) => `${CAUSE_NAMES[cause] || cause} ${points}`).join(", ");
}

// In a friends' game, whether the seat's person has the game open: a line under the name.
function presence(game, p) {
  if (!withFriends(game) || game.seats[p].kind === "bot") return "";
  const here = game.present.includes(p);
  const title = here ? "has this game open now" : "the game is not open on their screen";
  return `<div class="presence ${here ? "here" : "away"}" title="${title}">${here ? "● connected" : "○ not connected"}</div>`;
}

export function renderScores() {
  const game = page.game;
  const replay = page.replay;
  const gains = lastRoundGains(game);
  const abbeyMayor = game.config.expansions.includes("abbey-mayor");
  const rows = game.scores.map((now, p) => {
    // While replaying: the scores after the move shown, nothing of today's game.
    const score = replay ? replay.scores[p] : now;
    const causes = replay ? "" : causeList(game.breakdown[p]);
    const s = game.supply[p];
    let supply = `meeples ${s.meeple}`;
    if (abbeyMayor) supply += `, mayor ${s.mayor}, wagon ${s.wagon}, barn ${s.barn}, abbey ${s.abbeys}`;
    const titles = [game.king === p ? "♔ King" : "", game.robber === p ? "⚔ Robber" : ""].filter(Boolean).join(" ");
    const gain = !replay && gains[p] ? ` <span class="gain ${gains[p] < 0 ? "loss" : ""}" title="points in the last round">${signed(gains[p])}</span>` : "";
    const estimate = replay ? "" : `<div class="causes" title="if the game ended now">→ ${game.final_estimate[p]}</div>`;
    const toMove = p === (replay ? replay.current_player : game.current_player) ? "to-move" : "";
    const here = withFriends(game) && game.present.includes(p) ? " data-present" : "";
    return `<tr class="${toMove}" data-player="${p}"${here}><td>${swatch(p)}${seatHtml(p)} ${replay ? "" : titles}${presence(game, p)}<div class="causes">${replay ? "" : causes || "no points yet"}</div>` +
      `<div class="supply">${replay ? "" : supply}</div></td><td class="score">${score}${gain}${estimate}</td></tr>`;
  });
  $("scores").innerHTML = rows.join("");
  // On a phone the table is below the turn: the scores in one line beside the turn's heading.
  $("score-strip").innerHTML = game.scores.map((now, p) => `<span>${swatch(p)}${replay ? replay.scores[p] : now}</span>`).join(" ");
}

export function renderCity() {
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

export function renderBag() {
  const game = page.game;
  $("bag-size").textContent = `(${game.bag_size})`;
  const bag = $("bag");
  bag.replaceChildren();
  for (const [kind, count] of Object.entries(game.bag)) {
    if (!count) continue;
    const item = document.createElement("div");
    item.className = "bag-tile";
    item.title = kind;
    const svg = svgElement("svg", { viewBox: "0 0 100 100", role: "img", "aria-label": `${kind}: ${count} left` }, item);
    svgElement("use", { href: `#tile-${kind}` }, svg);
    const badge = document.createElement("span");
    badge.textContent = count;
    item.appendChild(badge);
    bag.appendChild(item);
  }
}

export function renderLog() {
  const game = page.game;
  const items = [];
  for (const entry of game.log) {
    // "Red placed a city tile…": the server words the move, the page names the player.
    const who = entry.player >= 0 ? `${swatch(entry.player)}${escapeHtml(playerName(entry.player))} ` : "";
    const kind = entry.player < 0 ? "draw" : "";
    let line = `<li class="${kind}" value="${entry.index + 1}" data-moves="${entry.index + 1}" title="show the board after this move">Turn ${entry.turn} ${who}${escapeHtml(entry.text)}`;
    for (const s of entry.scored) {
      // The hover names the player and the engine's sum behind the points ("2 tiles × 2 = 4").
      const sums = entry.events.filter((e) => e.causes.includes(s.cause) && e.points[s.player]).map((e) => e.words);
      const title = playerName(s.player) + (sums.length ? `: ${sums.join("; ")}` : "");
      line += ` <span class="scored ${s.points < 0 ? "loss" : ""}" title="${escapeHtml(title)}">${swatch(s.player)}${signed(s.points)} ${CAUSE_NAMES[s.cause] || s.cause}</span>`;
    }
    items.push(line + "</li>");
  }
  $("log").innerHTML = items.reverse().join("");
}

export function showEndSummary() {
  const game = page.game;
  const best = Math.max(...game.scores);
  const rows = game.scores.map((score, p) => {
    const causes = causeList(game.breakdown[p]);
    return `<tr><td>${swatch(p)}${seatHtml(p)}${score === best ? " ★ winner" : ""}</td><td class="score">${score}</td><td class="causes">${causes}</td></tr>`;
  });
  $("end-summary").innerHTML = `<table>${rows.join("")}</table>`;
  $("end-dialog").showModal();
}

export async function askHint() {
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
      const then = move.then ? `, then <b>${move.then.label.toLowerCase()}</b>` : "";
      item.innerHTML = `<b>${move.label}</b>${then} — win chance ${chances} `;
      const button = document.createElement("button");
      button.textContent = "Play";
      // A whole move: after the placement, its figure is marked as the next hint.
      button.addEventListener("click", () => {
        page.followUp = move.then ? [{ action: move.then.action, label: move.then.label, win: move.win }] : null;
        actions.play(move.action);
      });
      item.appendChild(button);
      item.dataset.rank = i + 1;
      $("hint-list").appendChild(item);
    });
    renderHints();
  } catch (error) {
    $("hint-list").innerHTML = `<li class="error">${error.message}</li>`;
  }
}
