// The new-game dialog: seats, expansions, variants, seed, and the saved games to continue.
import { page, $, api, COLOUR_NAMES, swatch, escapeHtml } from "./common.js";
import { actions } from "./actions.js";

// What the dialog says for the engine's names (the names stay the values sent).
const EXPANSIONS = {
  "abbey-mayor": ["Abbey & Mayor", "abbeys, mayors, wagons and barns"],
  river2: ["River II", "the game starts with a river"],
  city: ["The City of Carcassonne", "the game starts with the City and its Count"],
  "king-robber": ["King & Robber", "titles for the biggest city and the longest road"],
  shrines: ["Shrines", "cult places that challenge monasteries"],
  anniv20: ["20th anniversary", "tiles with arrows: extra meeples and turns"],
};
const VARIANTS = {
  abbey_endgame: ["Abbeys at the end", { mandatory: "must still be placed", final_round: "one last round to place them", none: "no more abbeys" }],
  wagon_move: ["Where a wagon may move", { c2: "to a feature on its tile or the 8 around", c1: "along the scored feature's road ends (1st edition)" }],
  start: ["Start", { tile: "the start tile", river2: "the river (River II)", city: "the City with the Count", city_plain: "the City without the Count" }],
  count_move: ["The Count moves", { free: "to any quarter", clockwise: "clockwise only", follow: "to the quarter of the figure that left" }],
};

function randomSeed() {
  return Math.floor(Math.random() * 2 ** 31);
}

// The start follows the expansions: River II starts with the river, the City with the City.
function matchStart() {
  const ticked = (name) => document.querySelector(`input[name=expansion][value='${name}']`)?.checked;
  const start = document.querySelector("select[data-name='start']");
  if (start) {
    for (const option of start.options) {
      option.disabled = (option.value === "river2" && ticked("city")) || (option.value.startsWith("city") && ticked("river2"));
    }
    if (ticked("river2")) start.value = "river2";
    else if (ticked("city") && !start.value.startsWith("city")) start.value = "city";
    else if (!ticked("city") && !ticked("river2") && start.value !== "tile") start.value = "tile";
  }
  // A variant of an expansion not in play is not offered.
  for (const label of document.querySelectorAll("#variant-list label[data-expansion]")) {
    label.hidden = !ticked(label.dataset.expansion);
  }
}

export function setUpNewGameDialog() {
  const options = page.options;
  const count = $("player-count");
  for (let n = options.players[0]; n <= options.players[1]; n++) count.add(new Option(`${n}`, `${n}`));
  count.addEventListener("change", renderSeats);
  renderSeats();
  $("expansion-list").innerHTML = options.expansions
    .map((e) => `<label title="${(EXPANSIONS[e] || [e, ""])[1]}"><input type="checkbox" name="expansion" value="${e}"> ${(EXPANSIONS[e] || [e])[0]}</label>`).join("");
  $("variant-list").innerHTML = options.variants
    .map((v) => {
      const [name, values] = VARIANTS[v.name] || [v.name, {}];
      const choices = v.values.map((value) => `<option value="${value}">${values[value] || value}</option>`).join("");
      const expansion = v.expansion ? ` data-expansion="${v.expansion}"` : "";
      return `<label${expansion}>${name} <select name="variant" data-name="${v.name}">${choices}</select></label>`;
    })
    .join("");
  $("expansion-list").addEventListener("change", matchStart);
  matchStart();
  $("new-seed").addEventListener("click", () => { $("seed").value = randomSeed(); });
  $("start-button").addEventListener("click", async (event) => {
    event.preventDefault();
    const seats = [...document.querySelectorAll(".seat")].map((row) => {
      const kind = row.querySelector("select").value;
      const name = row.querySelector(".seat-name").value.trim();
      const named = name ? { name } : {};  // unnamed: the seat goes by its colour
      if (kind === "human" || kind === "remote") return { kind, ...named };
      return { kind: "bot", level: kind, time: Number(row.querySelector(".seat-time").value) || 2, ...named };
    });
    const expansions = [...document.querySelectorAll("input[name=expansion]:checked")].map((i) => i.value);
    const variants = {};
    for (const select of document.querySelectorAll("select[name=variant]")) {
      if (select.selectedIndex > 0 && !select.closest("label").hidden) variants[select.dataset.name] = select.value;
    }
    try {
      // An empty seed field: the server deals from a fresh random seed, for each game anew.
      const seed = $("seed").value === "" ? {} : { seed: Number($("seed").value) };
      const game = await api("POST", "/api/games", { seats, expansions, variants, ...seed });
      $("new-game-dialog").close();
      $("new-game-error").textContent = "";
      actions.created(game);
    } catch (error) {
      $("new-game-error").textContent = error.message;
    }
  });
}

// Shows the dialog with the games the server keeps, newest first: who plays, the expansions,
// the turn and scores, finished or not; each may be continued (or looked at) or deleted.
export async function openNewGameDialog() {
  if (!$("new-game-dialog").open) $("new-game-dialog").showModal();
  await renderSavedGames();
}

function savedGameText(saved) {
  const who = { human: "person", remote: "friend" };
  const seats = saved.seats.map((seat, p) => `${swatch(p)}${seat.name ? escapeHtml(seat.name) : who[seat.kind] || `${seat.level} bot`}`).join(" ");
  if (saved.damaged) return `${seats} — this saved game cannot be read (${saved.damaged})`;
  const names = saved.expansions.map((e) => (EXPANSIONS[e] || [e])[0]).join(", ") || "base game";
  const state = saved.finished ? "finished" : `turn ${saved.turn}`;
  const when = new Date(saved.updated * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
  return `${seats} · ${names} · ${state} · scores ${saved.scores.join(" : ")} · ${when}`;
}

async function renderSavedGames() {
  const list = $("saved-game-list");
  list.replaceChildren();
  let saved = [];
  try {
    saved = await api("GET", "/api/games");
  } catch (error) {
    $("new-game-error").textContent = `The saved games cannot be listed: ${error.message}`;
  }
  $("saved-games-count").textContent = `(${saved.length})`;
  for (const game of saved) {
    const item = document.createElement("li");
    item.dataset.game = game.id;
    const text = document.createElement("span");
    text.innerHTML = savedGameText(game);
    const open = document.createElement("button");
    open.type = "button";
    open.textContent = game.finished ? "Look" : "Continue";
    open.disabled = Boolean(game.damaged);
    open.addEventListener("click", async () => {
      try {
        actions.setGame(await api("GET", `/api/games/${game.id}`), true);
        $("new-game-dialog").close();
      } catch (error) {
        $("new-game-error").textContent = error.message;
      }
    });
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete";
    remove.textContent = "Delete";
    remove.addEventListener("click", async () => {
      if (!confirm("Delete this saved game for good?")) return;
      try {
        await api("DELETE", `/api/games/${game.id}`);
        await renderSavedGames();
      } catch (error) {
        $("new-game-error").textContent = error.message;
      }
    });
    item.append(text, open, remove);
    list.appendChild(item);
  }
}

function renderSeats() {
  const n = Number($("player-count").value);
  const list = $("seat-list");
  const old = [...list.querySelectorAll(".seat select")].map((s) => s.value);
  const oldNames = [...list.querySelectorAll(".seat-name")].map((input) => input.value);
  list.innerHTML = "";
  for (let p = 0; p < n; p++) {
    const row = document.createElement("div");
    row.className = "seat";
    const chosen = old[p] || (p === 0 ? "human" : "easy");
    const kinds = { human: "a person at this screen", remote: "a friend, by invite link", easy: "computer, easy", medium: "computer, medium", hard: "computer, hard" };
    row.innerHTML = `<span class="swatch" style="background:${page.options.colours[p]}"></span>${COLOUR_NAMES[p]}
      <select data-seat="${p}" aria-label="Who plays ${COLOUR_NAMES[p]}">${Object.entries(kinds).map(([k, text]) => `<option value="${k}" ${k === chosen ? "selected" : ""}>${text}</option>`).join("")}</select>
      <input class="seat-name" aria-label="${COLOUR_NAMES[p]}'s name" maxlength="24" placeholder="name (optional)" title="The name the players see for this seat; a friend may change their own">
      <label>s/move <input class="seat-time" type="number" min="0.1" max="60" step="0.1" value="2" style="width:4em"></label>`;
    row.querySelector(".seat-name").value = oldNames[p] || "";
    list.appendChild(row);
    // Only a hard bot has a time a move to set.
    const select = row.querySelector("select");
    const time = row.querySelector("label");
    const showTime = () => { time.hidden = select.value !== "hard"; };
    select.addEventListener("change", showTime);
    showTime();
  }
}
