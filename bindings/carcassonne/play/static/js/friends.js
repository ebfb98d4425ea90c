// Playing with friends: the invite links of a game with remote seats, and the game's event stream
// (the server tells of every change, the page then reads the state; EventSource reconnects by
// itself after a dropped connection, and the page polls meanwhile).
import { page, $, api, COLOUR_NAMES, swatch, showStatus } from "./common.js";

// A friend's link: the token rides in the fragment, which the browser never sends to a server.
export function inviteLink(gameId, token) {
  return `${location.origin}${location.pathname}#game=${gameId}&seat=${token}`;
}

export function showInvites(gameId, invites) {
  const list = $("invite-list");
  list.replaceChildren();
  for (const { seat, token } of invites) {
    const item = document.createElement("li");
    item.innerHTML = `${swatch(seat)}<b>${COLOUR_NAMES[seat]}</b> `;
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
  const source = new EventSource(`/api/games/${gameId}/events`);
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
