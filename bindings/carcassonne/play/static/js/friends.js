// Playing with friends: the invite links of a game with remote seats, the names of one's seats,
// and the game's event stream (the server tells of every change, the page then reads the state;
// EventSource reconnects by itself after a dropped connection, and the page polls meanwhile).
import { page, $, api, COLOUR_NAMES, swatch, showStatus, playerName, escapeHtml } from "./common.js";

// A friend's link: the token rides in the fragment, which the browser never sends to a server.
export function inviteLink(gameId, token) {
  return `${location.origin}${location.pathname}#game=${gameId}&seat=${token}`;
}

export function showInvites(gameId, invites) {
  const list = $("invite-list");
  list.replaceChildren();
  for (const { seat, token } of invites) {
    const item = document.createElement("li");
    item.innerHTML = `${swatch(seat)}<b>${escapeHtml(playerName(seat))}</b> `;
    const input = document.createElement("input");
    input.readOnly = true;
    input.className = "invite-link";
    input.dataset.seat = seat;
    input.value = inviteLink(gameId, token);
    input.addEventListener("focus", () => input.select());
    const copy = document.createElement("button");
    copy.type = "button";
    copy.textContent = "Copy";
    copy.addEventListener("click", () => copyLink(input, copy));
    item.append(input, copy);
    list.appendChild(item);
  }
  // The game's own address: anyone may watch with it, nobody plays.
  const watch = document.createElement("li");
  watch.innerHTML = "<span>To watch</span> ";
  const address = document.createElement("input");
  address.readOnly = true;
  address.className = "watch-link";
  address.value = `${location.origin}${location.pathname}#game=${gameId}`;
  address.addEventListener("focus", () => address.select());
  watch.appendChild(address);
  list.appendChild(watch);
  if (!$("invite-dialog").open) $("invite-dialog").showModal();
}

async function copyLink(input, button) {
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);  // only on https or localhost
  } catch (error) {
    document.execCommand("copy");  // a LAN address over plain http: the selection
  }
  button.textContent = "Copied";
}

export async function openInvites() {
  const game = page.game;
  try {
    showInvites(game.id, (await api("GET", `/api/games/${game.id}/invites`)).invites);
  } catch (error) {
    showStatus(error.message, true);
  }
}

// Follows a game's event stream: `changed(summary)` after each change (and on each connection:
// what happened while it was down), `deleted()`, and `lost()` when the connection drops.
export function followEvents(gameId, { changed, deleted, lost }) {
  if (page.events && page.events.gameId === gameId && page.events.readyState !== EventSource.CLOSED) return;
  if (page.events) page.events.close();
  // The presence key (not the seat's key) tells the server whose page this is.
  const key = page.game && page.game.id === gameId ? page.game.presence_key : null;
  const source = new EventSource(`/api/games/${gameId}/events${key ? `?key=${encodeURIComponent(key)}` : ""}`);
  source.gameId = gameId;
  page.events = source;
  source.addEventListener("open", () => showConnection(true));
  source.addEventListener("state", (event) => {
    showConnection(true);
    changed(JSON.parse(event.data));
  });
  source.addEventListener("deleted", () => {
    source.close();
    deleted();
  });
  source.addEventListener("error", () => {
    if (page.events !== source) return;
    showConnection(false);
    lost();
    // Refused (too many streams, a server starting): EventSource gives up, so try again later.
    if (source.readyState === EventSource.CLOSED) {
      setTimeout(() => {
        if (page.events === source) followEvents(gameId, { changed, deleted, lost });
      }, 5000);
    }
  });
}

export function eventsLive() {
  return Boolean(page.events) && page.events.readyState === EventSource.OPEN;
}

function showConnection(live) {
  $("connection").hidden = live;
}

// The name dialog: a name for each of this page's seats, as the others see it. `apply` shows
// the game state each answer brings (main.js's setGame, given to keep the modules apart).
let applyState = null;

export function setUpNameDialog(apply) {
  applyState = apply;
  $("name-form").addEventListener("submit", async (event) => {
    if (event.submitter && event.submitter.value === "later") return;  // the dialog just closes
    event.preventDefault();
    const game = page.game;
    try {
      for (const input of $("name-list").querySelectorAll("input")) {
        const seat = Number(input.dataset.seat);
        const name = input.value.trim();
        if (name === (game.seats[seat].name || "")) continue;
        applyState(await api("PUT", `/api/games/${game.id}/seats/${seat}/name`, { name }));
      }
      $("name-dialog").close();
    } catch (error) {
      $("name-error").textContent = error.message;
    }
  });
}

export function openNameDialog() {
  const game = page.game;
  const list = $("name-list");
  list.replaceChildren();
  for (const seat of game.you) {
    const label = document.createElement("label");
    label.innerHTML = `${swatch(seat)}${COLOUR_NAMES[seat]} `;
    const input = document.createElement("input");
    input.dataset.seat = seat;
    input.maxLength = 24;
    input.required = true;
    input.placeholder = "your name";
    input.value = game.seats[seat].name || "";
    label.appendChild(input);
    list.appendChild(label);
  }
  $("name-error").textContent = "";
  if (!$("name-dialog").open) $("name-dialog").showModal();
}
