// The new-game dialog: seats, expansions, variants, seed, and the saved games to continue.
import { page, $, api, COLOUR_NAMES, swatch } from "./common.js";
import { setGame } from "./main.js";

export function setUpNewGameDialog() {
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
export async function openNewGameDialog() {
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
