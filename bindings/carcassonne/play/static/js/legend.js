// The help panel: every symbol the board draws, drawn by the same code, with a line of what it
// means, and the scoring rules in short.
import { page, $ } from "./common.js";

// An inline SVG of one symbol, drawn around (0, 0) in a box of `size` board units.
function icon(inner, size = 34) {
  const h = size / 2;
  return `<svg class="legend-icon" aria-hidden="true" viewBox="${-h} ${-h} ${size} ${size}" width="36" height="36">${inner}</svg>`;
}

function tileIcon(kind) {
  return `<svg class="legend-icon" aria-hidden="true" viewBox="0 0 100 100" width="36" height="36"><use href="#tile-${kind}"/></svg>`;
}

function spot(shape, letter = "") {
  return icon(`<g class="spot spot-${shape}">${shape === "city" ? '<rect class="spot-shape" x="-11" y="-11" width="22" height="22" rx="3"/>'
    : shape === "road" ? '<rect class="spot-shape" x="-9" y="-9" width="18" height="18" transform="rotate(45)"/>'
    : shape === "field" ? '<ellipse class="spot-shape" rx="15" ry="11"/>' : '<circle class="spot-shape" r="11"/>'}` +
    `<text y="4">${letter}</text></g>`);
}

function row(symbol, text) {
  return `<div class="legend-row">${symbol}<span>${text}</span></div>`;
}

export function renderLegend() {
  const figures = page.options.figures;
  const expansions = page.game ? page.game.config.expansions : [];
  const has = (e) => expansions.includes(e);
  const parts = [];
  parts.push("<h3>Figures</h3>");
  parts.push(row(icon(figures.meeple[0]), "a meeple (thief on a road, knight in a city, monk on a monastery)"));
  parts.push(row(icon(`<g transform="rotate(-90)">${figures.meeple[0]}</g>`), "a farmer: a meeple lying in a field"));
  if (has("abbey-mayor")) {
    parts.push(row(icon(figures.mayor[1]), "the mayor: in a city, as strong as the city's pennants"));
    parts.push(row(icon(figures.wagon[2]), "the wagon: moves on to a neighbouring feature when its own scores"));
    parts.push(row(icon(figures.barn[4]), "the barn: on a corner where four fields meet; its farm scores 4 a finished city at the end"));
  }
  if (has("city")) parts.push(row(icon(page.options.count), "the Count of Carcassonne (nobody's figure), in a City quarter"));
  parts.push("<h3>Where a figure may go</h3>");
  parts.push(row(spot("city"), "a city"));
  parts.push(row(spot("road"), "a road"));
  parts.push(row(spot("field"), "a field (the figure lies down: a farmer)"));
  parts.push(row(spot("other"), "a monastery, shrine or abbey"));
  parts.push(row(spot("other", "M") + spot("other", "W") + spot("field", "B"), "a mayor, a wagon, a barn; hover a spot to see its feature outlined"));
  parts.push("<h3>On the board</h3>");
  parts.push(row(icon('<rect x="-14" y="-14" width="28" height="28" fill="#ffe066" fill-opacity="0.35" stroke="#e0a800" stroke-width="3" rx="3"/>'), "a cell where the drawn tile fits"));
  parts.push(row(icon(`<rect x="-14" y="-14" width="28" height="28" fill="none" stroke="${page.options.colours[1]}" stroke-width="4"/>`), "the tile placed last, framed in its player's colour"));
  parts.push(row(icon('<path d="M-12,-6 h24 v6 l-12,10 l-12,-10 z" fill="#ffc300" fill-opacity="0.5" stroke="#ffc300" stroke-width="3"/><text y="-8" font-size="14" font-weight="bold" text-anchor="middle" fill="#1d4ed8">+4</text>'), "a feature that scored: outlined, its points rising, its figures going home"));
  parts.push(row(icon('<rect x="-13" y="-13" width="26" height="26" fill="none" stroke="#00b4d8" stroke-width="3" stroke-dasharray="5 3"/><text x="-9" y="5" font-size="14" font-weight="bold" fill="#0077b6">1</text>'), "a hint: the computer's best moves, numbered"));
  parts.push(row(icon('<path d="M-7,-8 h14 v8 l-7,8 l-7,-8 z" fill="#2456a6" stroke="#fff" stroke-width="1.5"/>', 26), "a pennant (coat of arms): a city scores more"));
  if (has("anniv20") || has("river2")) {
    for (const [kind, text] of [["meeple-beside", "meeple beside: a meeple next to one of yours"], ["place-anywhere", "place anywhere: a meeple on any open feature"], ["extra-turn", "extra turn: play once more"]]) {
      const arrow = page.options.arrows[kind];
      if (arrow) parts.push(row(`<svg class="legend-icon" aria-hidden="true" viewBox="30 0 40 40" width="36" height="36">${arrow}</svg>`, `arrow, ${text}`));
    }
  }
  parts.push("<h3>Keyboard</h3>");
  parts.push(`<ul class="rules">
    <li>Tab to the board; the arrow keys go from one legal cell (or figure spot) to the next.</li>
    <li>R turns the tile (Shift+R back), Enter places it or puts the figure on the spot, Escape lets go of the cell.</li>
  </ul>`);
  parts.push("<h3>Scoring in short</h3>");
  parts.push(`<ul class="rules">
    <li>A finished road: 1 point a tile. A finished city: 2 a tile and 2 a pennant. A finished monastery: 9.</li>
    <li>Whoever has the most figures on a feature scores it (a tie: all of them); the figures go home.</li>
    <li>At the end, unfinished features score 1 a tile (and 1 a pennant); a monastery 1 for itself and each neighbour.</li>
    <li>At the end, each farm scores 3 points for every finished city it touches, for whoever has the most farmers there.</li>
    ${has("king-robber") ? "<li>King: who finished the biggest city; Robber: the longest road. Each scores 1 a finished city (road) at the end.</li>" : ""}
  </ul>`);
  $("legend").innerHTML = parts.join("");
}

export function setUpLegend() {
  $("help-button").addEventListener("click", () => {
    renderLegend();
    $("help-dialog").showModal();
  });
}
