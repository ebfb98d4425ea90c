// The play page: draws the board from the server's tile drawings (/api/tiles) and the game state
// (/api/games/{id}), and sends the human's choices as action texts. All rules live in the engine:
// the page only offers what the server lists as legal. Modules: common, board, panels, dialogs,
// friends (invite links and the event stream), animate, final, legend, review; they reach back
// here only through actions.js, which start() fills in.
import { POLL_MS, IDLE_POLL_MS, page, $, svgElement, api, showStatus, seatName, playerName, keepToken, tokenFor, older, withFriends } from "./common.js";
import { forgetHover, renderBoard, rotate, placeSelected, fitView, allVisible, setUpBoardControls, zoomForFingers, focusBefore, keepFocus } from "./board.js";
import { renderTurn, renderScores, renderCity, renderBag, renderLog, showEndSummary, askHint } from "./panels.js";
import { setUpNewGameDialog, openNewGameDialog } from "./dialogs.js";
import { playBack, playing, finish, SPEEDS } from "./animate.js";
import { renderFinalLog, setUpFinalScoring, forgetFinalItem } from "./final.js";
import { setUpLegend } from "./legend.js";
import { followEvents, eventsLive, openInvites, showInvites, setUpNameDialog, openNameDialog } from "./friends.js";
import { openReview, closeReview, forgetReview, setUpReview } from "./review.js";
import { actions } from "./actions.js";

async function start() {
  Object.assign(actions, { play, render, setGame, created, replayTo, renderTurn });
  [page.options, page.tiles] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/tiles")]);
  const defs = $("tile-defs");
  for (const [kind, tile] of Object.entries(page.tiles)) {
    const group = svgElement("g", { id: `tile-${kind}` }, defs);
    group.innerHTML = tile.svg;
  }
  setUpBoardControls();
  setUpNewGameDialog();
  setUpButtons();
  // A link pasted into this tab (an invite, another game's address) changes only the fragment.
  window.addEventListener("hashchange", () => openFromAddress().catch((error) => showStatus(error.message, true)));
  // Leaving the page closes its event stream, so the others see this seat gone at once (a page
  // kept in the browser's back-forward cache would otherwise hold it open); back again, it reopens.
  window.addEventListener("pagehide", () => {
    if (page.events) page.events.close();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && page.game) watch(page.game.id);
  });
  if (!(await openFromAddress())) openNewGameDialog();
}

// Opens the game the address names (#game=ID, an invite link #game=ID&seat=KEY): true if it
// names one (the game shown already, or opened now).
async function openFromAddress() {
  const link = new URLSearchParams(location.hash.slice(1));
  const id = link.get("game");
  const joining = Boolean(id && link.get("seat"));
  if (joining) {
    // An invite link: the seat's token is kept in this browser, and leaves the address bar (a
    // copy of the address shows the game, it does not give the seat away).
    keepToken(id, link.get("seat"));
    history.replaceState(null, "", `#game=${id}`);
  }
  if (!id) return false;
  if (!joining && page.game && page.game.id === id) return true;  // the page's own address
  try {
    const game = await api("GET", `/api/games/${id}`);
    for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close();
    // A seat taken in the game shown: its event stream opens again, with the seat's presence key.
    if (joining && page.events && page.events.gameId === id) page.events.close();
    setGame(game, true);
    // A friend taking their seat names it first (a name already given may stay).
    if (joining && page.game.you.some((p) => !page.game.seats[p].name)) openNameDialog();
    return true;
  } catch (error) {
    showStatus(`Could not open game ${id}: ${error.message}`, true);
    return false;
  }
}

// A game this browser just created or loaded: with remote seats, it keeps the creator's token
// and shows the invite links to send.
function created(game) {
  if (game.host_token) keepToken(game.id, game.host_token);
  setGame(game, true);
  if (game.invites && game.invites.length) showInvites(game.id, game.invites);
}

function setGame(game, fit = false) {
  // An answer sent before the state shown (or waiting to be shown) but arriving after it.
  const latest = page.pending || page.game;
  if (latest && latest.id === game.id && older(game, latest)) return;
  // A state that comes while earlier moves are played back waits for the playback's end.
  if (playing() && page.game && page.game.id === game.id) {
    page.pending = game;
    return;
  }
  const previous = page.game;
  const sameGame = previous && previous.id === game.id;
  const changed = !sameGame || previous.moves !== game.moves || previous.version !== game.version;
  if (!sameGame) [page.replay, page.replayWanted] = [null, null];
  page.game = game;
  if (changed) forgetFinalItem();
  if (location.hash !== `#game=${game.id}`) location.hash = `game=${game.id}`;
  watch(game.id);
  forgetReview(game.id);
  $("save-link").href = `/api/games/${game.id}/record`;
  $("save-link").setAttribute("download", `carcassonne-${game.id}.json`);
  if (changed) {
    page.selected = null;
    forgetHover();
    // The figure of a whole-move hint just played stays marked; any other hint is gone.
    const followUp = page.followUp && game.legal.figures.concat(game.legal.choices).some((a) => a.action === page.followUp[0].action);
    page.hints = followUp ? page.followUp : null;
    page.followUp = null;
    $("hint-panel").hidden = true;
  }
  const zoomed = changed && zoomForFingers();  // a phone: onto the tile whose spots are to be tapped
  if (!zoomed && (fit || (changed && !allVisible([...game.tiles, ...game.legal.placements, ...game.legal.cells])))) fitView();
  if (changed || fit || game.bot_error) render();  // polls while a bot thinks mostly change nothing
  // The moves since the board was last drawn (a bot's replies, the scoring of one's own move).
  const fresh = sameGame && game.moves > previous.moves && !page.replay ? game.log.filter((e) => e.index >= previous.moves) : [];
  playBack(fresh, () => afterPlayBack(game, changed, fresh.length > 0));
  if (playing()) renderStatus();
}

function afterPlayBack(game, changed, playedBack) {
  const next = page.pending;
  page.pending = null;
  if (next) {
    setGame(next);
    return;
  }
  // The status said the moves were being shown (by this playback or one before it).
  if (playedBack || statusShowsPlayback) renderStatus();
  if (game.terminal && changed) showEndSummary();
  // Without the event stream: while a bot is to move, often; otherwise now and then, so that a
  // second tab on the same game (or another seat's player) sees the moves made elsewhere.
  if (!game.terminal && !game.bot_error && !game.deleted && !eventsLive()) schedulePoll(game.your_turn ? IDLE_POLL_MS : POLL_MS);
}

// The server tells of each change of the game shown; the page reads the state when it differs
// from the one it has (a move of its own is in the state it already got).
function watch(gameId) {
  followEvents(gameId, {
    changed: (summary) => {
      const known = page.pending || page.game;
      if (!known || known.id !== gameId) return;
      const same = summary.epoch === known.epoch && summary.version === known.version;
      if (!same) refresh();
      else if (String(summary.present) !== String(known.present)) {
        // Someone opened or closed the game: no new state, only who is here.
        known.present = summary.present;
        if (known === page.game) {
          renderScores();
          renderStatus();
        }
      }
    },
    deleted: () => {
      if (page.game && page.game.id === gameId) gameDeleted();
    },
    lost: () => schedulePoll(POLL_MS * 5),
  });
}

// Reads the state after an event: one request at a time, at most one every REFRESH_MS (bots
// playing each other may change the game hundreds of times a second).
const REFRESH_MS = 100;
let refreshing = false;
let refreshAgain = false;

async function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    await poll();
  } finally {
    setTimeout(() => {
      refreshing = false;
      if (refreshAgain) {
        refreshAgain = false;
        refresh();
      }
    }, REFRESH_MS);
  }
}

// The game shown was deleted (here or elsewhere): its board stays to look at, with no move to
// make and nobody thinking (its bots stopped with it), and the dialog offers another game.
function gameDeleted() {
  const game = page.game;
  Object.assign(game, { deleted: true, your_turn: false, human_to_move: false, undo: { allowed: false, why: "the game was deleted" } });
  page.pending = null;
  finish();  // a playback of its last moves ends at once
  clearTimeout(pollTimer);
  render();
  openNewGameDialog();
}

// A request answered with the state of the game shown (`path` below the game's address): it
// names the state the page has (its epoch and version), and the answer then holds only what
// changed since (`since`); joined here, the state is whole again.
async function stateRequest(id, method, path, body) {
  const base = page.pending || page.game;
  const known = base && base.id === id ? `?${new URLSearchParams({ epoch: base.epoch, version: base.version })}` : "";
  return joinChanges(base, await api(method, `/api/games/${id}${path}${known}`, body));
}

// The whole state from an answer and `base`, the state of the version it counts its changes
// from: the keys it leaves out are as they were, and the lists in `appended` grew by its items.
function joinChanges(base, answer) {
  if (answer.since === null) return answer;
  const game = { ...base, ...answer };
  for (const [key, start] of Object.entries(answer.appended)) game[key] = base[key].slice(0, start).concat(answer[key]);
  return game;
}

let pollTimer = null;

function schedulePoll(ms) {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(poll, ms);
}

async function poll() {
  if (!page.game) return;
  const id = page.game.id;
  try {
    const game = await stateRequest(id, "GET", "");
    if (page.game.id === id) setGame(game);  // which drops it if a newer state came meanwhile
  } catch (error) {
    if (error.status === 404) {
      gameDeleted();
      return;
    }
    showStatus(error.message, true);
    if (!eventsLive()) schedulePoll(POLL_MS * 5);
  }
}

async function play(action) {
  if (page.busy) return;
  finish();
  page.busy = true;
  try {
    setGame(await stateRequest(page.game.id, "POST", "/actions", { action }));
  } catch (error) {
    if (error.status === 409 || error.status === 400) {
      // Mostly a stale board (the game moved on in another tab): show the game as it is.
      showStatus(`That move cannot be made now (${error.message}); the board shows the game as it is.`, true);
      page.busy = false;
      await poll();
    } else {
      showStatus(error.message, true);
    }
  } finally {
    page.busy = false;
  }
}

function render() {
  const game = page.game;
  const focus = focusBefore();
  renderBoard();
  renderTurn();
  renderScores();
  renderCity();
  renderBag();
  renderLog();
  renderFinalLog();
  // Undo takes back the last person's move: only theirs, and the server says when.
  const undo = $("undo-button");
  undo.disabled = !game.undo.allowed;
  undo.title = game.undo.allowed
    ? (game.undo.consent ? "Ask the other players to let you take back your last move" : "Back to your previous decision")
    : `No undo now: ${game.undo.why}`;
  renderUndoRequest();
  renderRematch();
  $("name-button").hidden = !game.you.length || game.deleted;  // a deleted game's seats are gone
  $("hint-button").disabled = !game.your_turn;
  $("invite-button").hidden = !game.host || game.deleted;
  $("review-open").hidden = !game.terminal;
  $("round-button").hidden = Boolean(page.replay) || !lastRound(game).length;
  $("round-button").title = game.you.length ? "Show again the moves the others made since your last turn" : "Show again each player's last turn";
  $("replay-label").textContent = page.replay ? `move ${page.replay.moves} of ${game.moves}` : "";
  renderStatus();
  keepFocus(focus);
}

// An undo request of a friends' game: the people asked answer it here; everyone sees it.
function renderUndoRequest() {
  const game = page.game;
  const request = game.undo_request;
  $("undo-request").hidden = !request;
  if (!request) return;
  const asked = request.waiting.filter((p) => game.you.includes(p));
  const whose = playerName(request.seat);
  let text;
  if (request.refused_by !== null) text = `${playerName(request.refused_by)} said no to taking back ${whose}'s last move.`;
  else if (asked.length) text = `${whose} asks to take back their last move. Do you agree?`;
  else text = `${whose} asks to take back their last move; waiting for ${request.waiting.map(playerName).join(", ")} to agree.`;
  $("undo-request-text").textContent = text;
  $("undo-allow").hidden = $("undo-refuse").hidden = !asked.length || request.refused_by !== null;
}

async function answerUndo(accept) {
  try {
    setGame(await api("POST", `/api/games/${page.game.id}/undo/answer`, { accept }));
  } catch (error) {
    showStatus(error.message, true);
  }
}

// A finished game's rematch: its creator starts it (anyone, without friends' seats); then every
// page of the game offers to go there.
function renderRematch() {
  const game = page.game;
  const mayStart = game.host || (!withFriends(game) && game.you.length > 0);
  for (const button of document.querySelectorAll(".rematch-button")) {
    button.hidden = !game.terminal || game.deleted || !(game.rematch || mayStart);
    button.textContent = game.rematch ? "Go to the rematch" : "Rematch";
    button.title = game.rematch ? "The next game, with the same people in the same seats" : "A new game with the same seats and rules, new tiles";
  }
}

async function rematch() {
  const game = page.game;
  try {
    if (game.rematch) {
      // The same seats: this browser's key for this game is its key for the rematch.
      const token = tokenFor(game.id);
      if (token) keepToken(game.rematch, token);
      setGame(await api("GET", `/api/games/${game.rematch}`), true);
    } else {
      const made = await api("POST", `/api/games/${game.id}/rematch`);
      if (made.host_token) keepToken(made.id, made.host_token);
      setGame(made, true);
    }
    if ($("end-dialog").open) $("end-dialog").close();
  } catch (error) {
    showStatus(error.message, true);
  }
}

// The tab's title says when it is this page's turn in a game with someone else to wait for
// (a friend or a bot), so a tab in the background shows it.
const TITLE = "Carcassonne";

function renderTitle() {
  const game = page.game;
  const waitsForOthers = game.seats.some((_, p) => !game.you.includes(p));
  const mine = game.your_turn && !game.terminal && waitsForOthers;
  document.title = mine ? `● Your turn — ${TITLE}` : TITLE;
}

// What "Last round" plays back again. On a seat's page: the others' moves since its last turn
// (after any move of its own still in progress), empty when no other seat has moved since. On a
// spectator's (no seat): each seat's last turn, the round as the players saw it.
function lastRound(game) {
  if (!game.you.length) {
    const moves = game.log.filter((entry) => entry.player >= 0);
    const turns = [...new Set(moves.map((entry) => entry.turn))].slice(-game.seats.length);
    return moves.filter((entry) => turns.includes(entry.turn));
  }
  const mine = (entry) => game.you.includes(entry.player);
  let end = game.log.length;
  while (end > 0 && (mine(game.log[end - 1]) || game.log[end - 1].player < 0)) end--;
  let start = end;
  while (start > 0 && !mine(game.log[start - 1])) start--;
  return game.log.slice(start, end).filter((entry) => entry.player >= 0);
}

function replayLastRound() {
  if (page.replay || !page.game) return;
  playBack(lastRound(page.game), renderStatus);
  renderStatus();
}

let statusShowsPlayback = false;  // the status line says "Showing the last moves…"

function renderStatus() {
  const game = page.game;
  renderTitle();
  statusShowsPlayback = playing();
  if (playing()) showStatus("Showing the last moves (click to skip)…");
  else if (page.replay) {
    const scores = page.replay.scores.join(" : ");
    const { player, text } = page.replay;
    const move = text ? `${player >= 0 ? `${playerName(player)} ` : ""}${text}` : "the start";
    showStatus(`Replay: after move ${page.replay.moves} (${move}), scores ${scores}`);
  }
  else if (game.deleted) showStatus("This game was deleted (in another tab?). Start or continue another one.", true);
  else if (game.terminal) showStatus(game.rematch ? "Game over: the rematch has begun" : "Game over");
  else if (game.bot_error) showStatus(`The bot stopped: ${game.bot_error}`, true);
  else if (game.your_turn) showStatus(`${seatName(game.current_player)} to play`);
  else if (game.human_to_move) {
    const away = withFriends(game) && !game.present.includes(game.current_player) ? " (not connected)" : "";
    showStatus(`${game.you.length ? "Waiting for" : "Watching:"} ${seatName(game.current_player)}${away}`);
  }
  else showStatus(`${seatName(game.current_player)} is thinking…`);
}

// Shows the board after the first `moves` moves; at the last move, the game itself again.
// Quick clicks each step from the move last asked for, not from the last one shown.
async function replayTo(moves) {
  finish();  // a playback of today's moves does not belong on an earlier board
  const game = page.game;
  moves = Math.max(0, Math.min(moves, game.moves));
  page.replayWanted = moves;
  const snapshot = moves === game.moves ? null : await api("GET", `/api/games/${game.id}/replay/${moves}`).catch((error) => {
    showStatus(error.message, true);
    return undefined;
  });
  if (snapshot === undefined || page.replayWanted !== moves) return;  // failed, or superseded
  page.replay = snapshot;
  if (!snapshot) page.replayWanted = null;  // back to the game: steps start from its end again
  render();
}

function setUpReplay() {
  const current = () => page.replayWanted ?? page.game.moves;
  $("replay-first").addEventListener("click", () => replayTo(0));
  $("replay-back").addEventListener("click", () => replayTo(current() - 1));
  $("replay-forward").addEventListener("click", () => replayTo(current() + 1));
  $("replay-exit").addEventListener("click", () => replayTo(page.game.moves));
  $("log").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-moves]");
    if (item) replayTo(Number(item.dataset.moves));
  });
}

function setUpButtons() {
  setUpReplay();
  setUpFinalScoring();
  setUpLegend();
  setUpReview();
  const speed = $("speed");
  speed.value = page.speed in SPEEDS ? page.speed : "normal";
  speed.addEventListener("change", () => {
    page.speed = speed.value;
    localStorage.setItem("carcassonne-speed", speed.value);
  });
  $("skip-button").addEventListener("click", finish);
  $("round-button").addEventListener("click", replayLastRound);
  $("new-game-button").addEventListener("click", openNewGameDialog);
  $("invite-button").addEventListener("click", openInvites);
  $("review-button").addEventListener("click", openReview);
  $("review-open").addEventListener("click", openReview);
  $("review-close").addEventListener("click", closeReview);
  $("rotate-button").addEventListener("click", () => rotate(1));
  $("place-button").addEventListener("click", placeSelected);
  $("hint-button").addEventListener("click", askHint);
  $("undo-button").addEventListener("click", async () => {
    try {
      setGame(await api("POST", `/api/games/${page.game.id}/undo`));
    } catch (error) {
      showStatus(error.message, true);
    }
  });
  $("undo-allow").addEventListener("click", () => answerUndo(true));
  $("undo-refuse").addEventListener("click", () => answerUndo(false));
  setUpNameDialog(setGame);
  for (const button of document.querySelectorAll(".rematch-button")) button.addEventListener("click", rematch);
  $("name-button").addEventListener("click", openNameDialog);
  $("load-input").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const seats = page.game ? page.game.seats : undefined;
      const record = await file.text();
      let body = { record };
      try {
        const players = JSON.parse(record).config.players;
        if (seats && seats.length === players) body = { record, seats };
      } catch (error) {
        // The server names what is wrong with the record.
      }
      created(await api("POST", "/api/games/load", body));
    } catch (error) {
      showStatus(`Could not load: ${error.message}`, true);
    }
    event.target.value = "";
  });
}

window.page = page;  // for the browser tests and the console
start().catch((error) => showStatus(error.message, true));
