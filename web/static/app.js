// The play page of `monster-zoo serve`. The server holds the game and sends each viewer only what
// that viewer may see; this page shows it, sends a person's moves and asks agents to move, one
// move at a time. Every name shown comes from the server and is set as text, never as markup;
// the pictures are the games' own SVG drawings.
"use strict";

const $ = (id) => document.getElementById(id);
const HUMAN = "human";
const OUTCOME_WORDS = { win: "won", draw: "shares the best result", loss: "lost" };
const page = {
  games: [], sessionId: null, view: null, viewer: null, mode: null, since: 0, timer: null, paused: false,
  busy: false, recordPage: null,
};

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// A random token this browser keeps and sends with every request: the server lists the games it
// started under "games on this server", so they can be closed after their tabs are gone.
const OWNER_KEY = "monster-zoo-owner";
function ownerToken() {
  let token = null;
  try { token = localStorage.getItem(OWNER_KEY); } catch (err) { return null; }
  if (!token) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    token = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    try { localStorage.setItem(OWNER_KEY, token); } catch (err) { return null; }
  }
  return token;
}

// One request to the API: the JSON answer, or an ApiError with the server's message.
async function api(method, url, body, raw) {
  const init = { method, headers: {} };
  const owner = ownerToken();
  if (owner) init.headers["X-Monster-Zoo-Owner"] = owner;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = raw ? body : JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, (data && data.error) || response.statusText);
  return data;
}

function element(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  return node;
}

function showSection(id) {
  for (const name of ["setup", "play", "records"]) $(name).hidden = name !== id;
}

function say(id, text, ok) {
  $(id).textContent = text || "";
  $(id).classList.toggle("ok", Boolean(ok));
}

// --- the new-game form ------------------------------------------------------------------------
function currentGame() { return page.games.find((g) => g.id === $("game").value); }

function optionControl(option) {
  let control;
  if (option.choices) {
    control = element("select");
    for (const choice of option.choices) {
      const item = element("option", choice === null ? "none" : String(choice), { value: JSON.stringify(choice) });
      if (JSON.stringify(choice) === JSON.stringify(option.default)) item.selected = true;
      control.appendChild(item);
    }
  } else {
    control = element("input", undefined, { type: option.kind === "integer" ? "number" : "text",
                                            placeholder: String(option.default) });
  }
  control.dataset.option = option.name;
  control.dataset.kind = option.choices ? "choice" : option.kind;
  control.title = option.doc;
  return control;
}

function renderOptions() {
  const box = $("options");
  box.replaceChildren();
  for (const option of currentGame().options) {
    // The option's name in words ("num_players": "players"); its full text on hover.
    const words = option.name === "num_players" ? "players" : option.name.replace(/_/g, " ");
    const label = element("label", words + " ", { title: option.doc });
    label.appendChild(optionControl(option));
    box.appendChild(label);
    label.lastChild.addEventListener("change", renderSeats);  // the agents offered depend on every option
  }
  renderSeats();
}

function playerCount() {
  const control = document.querySelector('[data-option="num_players"]');
  return control ? JSON.parse(control.value) : currentGame().min_players;
}

function renderSeats() {
  const game = currentGame();
  const before = [...document.querySelectorAll("[data-seat]")].map((s) => s.value);
  const box = $("seats");
  box.replaceChildren();
  for (let seat = 0; seat < playerCount(); seat++) {
    const select = element("select", undefined, { "data-seat": String(seat) });
    select.appendChild(element("option", "a person at this screen", { value: HUMAN }));
    // Only the agents that play this many players with these options (a champion ships for some
    // counts only, and plays the options it was trained with).
    const chosen = chosenOptions();
    const fits = (name) => Object.entries(game.agent_options[name] || {}).every(
      ([option, values]) => values.some((v) => JSON.stringify(v) === JSON.stringify(chosen[option])));
    const playable = game.agents.filter((name) => !(name in game.agent_players) ||
                                        (game.agent_players[name].includes(playerCount()) && fits(name)));
    for (const name of playable) select.appendChild(element("option", name, { value: name }));
    const wanted = before[seat] || (seat === 0 ? HUMAN : "random");
    select.value = [...select.options].some((o) => o.value === wanted) ? wanted : "random";
    select.addEventListener("change", updateStartButton);
    const label = element("label", `player_${seat} `);
    label.appendChild(select);
    box.appendChild(label);
  }
  updateStartButton();
}

function updateStartButton() {
  const people = [...document.querySelectorAll("[data-seat]")].some((s) => s.value === HUMAN);
  $("start").textContent = people ? "play" : "watch";
}

function chosenOptions() {
  const options = {};
  for (const control of document.querySelectorAll("[data-option]")) {
    const name = control.dataset.option;
    if (control.dataset.kind === "choice") options[name] = JSON.parse(control.value);
    else if (control.value.trim() !== "") {
      options[name] = control.dataset.kind === "integer" ? Number(control.value) : control.value.trim();
    }
  }
  return options;
}

async function startGame() {
  const body = { game: $("game").value, options: chosenOptions(),
                 seats: [...document.querySelectorAll("[data-seat]")].map((s) => s.value) };
  if ($("seed").value.trim() !== "") body.seed = Number($("seed").value);
  say("setup-message", "starting...", true);
  try {
    const made = await api("POST", "/api/sessions", body);
    say("setup-message", "");
    openSession(made.session);
  } catch (err) {
    say("setup-message", err.message);
    if (err.status === 429) listGames();
  }
}

// --- games on this server ----------------------------------------------------------------------
async function listGames() {
  let listed;
  try {
    listed = await api("GET", "/api/sessions");
  } catch (err) {
    return;
  }
  const items = listed.yours.map((game) => {
    const state = game.finished ? "finished" : `move ${game.step}`;
    const left = game.expires_in_s < 120 ? `${game.expires_in_s} s` : `${Math.round(game.expires_in_s / 60)} min`;
    const item = element("li", `${game.title} (${game.seats.join(", ")}): ${state}, dropped in ${left} unless opened `);
    const open = element("button", "open", { type: "button" });
    open.addEventListener("click", () => openSession(game.session));
    const close = element("button", "close", { type: "button" });
    close.addEventListener("click", async () => {
      await api("DELETE", `/api/sessions/${game.session}`).catch(() => null);
      listGames();
    });
    item.append(open, " ", close);
    return item;
  });
  $("your-games").replaceChildren(...(items.length ? items : [element("li", "none")]));
  $("other-games").textContent = listed.others_in_progress
    ? `${listed.others_in_progress} game(s) in progress started elsewhere also count against the server's limit.`
    : "";
}

// --- a game ------------------------------------------------------------------------------------
function sessionUrl(path) { return `/api/sessions/${page.sessionId}${path || ""}`; }

function viewerQuery() {
  return `viewer=${page.viewer === null ? "public" : page.viewer}&since=${page.since}`;
}

async function openSession(sessionId) {
  clearTimeout(page.timer);
  Object.assign(page, { sessionId, view: null, viewer: null, since: 0, paused: false, busy: false });
  history.replaceState(null, "", `#session=${sessionId}`);
  $("log").replaceChildren();
  for (const id of ["end", "chooser", "cover"]) $(id).hidden = true;
  say("message", "");
  showSection("play");
  try {
    const first = await api("GET", sessionUrl(`?${viewerQuery()}`));
    page.mode = first.mode;
    const humans = first.seats.filter((s) => s.human).map((s) => s.seat);
    if (humans.length) {
      page.viewer = humans.includes(first.on_move) ? first.on_move : humans[0];
      return refresh();
    }
    show(first);
  } catch (err) {
    say("message", err.message);
  }
}

async function refresh() {
  try {
    show(await api("GET", sessionUrl(`?${viewerQuery()}`)));
  } catch (err) {
    say("message", err.message);
  }
}

function seatName(view, seat) {
  const entry = view.seats[seat];
  if (entry.human) return page.viewer === seat ? `player_${seat} (you)` : `player_${seat}`;
  return `player_${seat} (${entry.name})`;
}

function statusText(view) {
  if (view.stopped) return `stopped at step ${view.step}`;
  if (view.over) return `game over after ${view.step} moves`;
  return `step ${view.step} · ${seatName(view, view.on_move)} on move`;
}

// Draw ``view``: the picture with its places, the moves, the log, the end; then what comes next.
function show(view) {
  page.view = view;
  $("title").textContent = view.title;
  $("status").textContent = statusText(view);
  $("thinking").hidden = !view.thinking;
  if (view.thinking) {
    $("thinking").textContent = `${seatName(view, view.thinking.seat)} is thinking (${view.thinking.seconds} s ` +
      `of ${view.time_limit_s} s)`;
  }
  $("watch-controls").hidden = view.mode !== "watch" || Boolean(view.result);
  showViewChoice(view);
  $("picture").innerHTML = view.svg;
  showMoves(view);
  showLog(view);
  showEnd(view);
  next(view);
}

function showViewChoice(view) {
  const free = view.mode === "watch" || Boolean(view.result);
  $("view-choice").hidden = !free;
  if (!free) return;
  const select = $("view");
  const wanted = ["public", ...view.seats.map((s) => String(s.seat))];
  if ([...select.options].map((o) => o.value).join() !== wanted.join()) {
    select.replaceChildren(...wanted.map((v) => element("option", v === "public" ? "public" : `player_${v}`,
                                                        { value: v })));
  }
  select.value = view.viewer === "public" ? "public" : String(view.viewer);
}

// A move's button: its name, and under it the game's words for it where its name uses codes.
function moveButton(move) {
  const button = element("button", undefined, { type: "button", "data-action": String(move.action),
                                                title: move.words || move.name });
  button.appendChild(element("span", move.name, { class: "move-name" }));
  if (move.words) button.appendChild(element("span", move.words, { class: "move-words" }));
  if (move.preview) {  // the game's own drawing of the move where it would go (server-made SVG)
    const picture = element("span", undefined, { class: "preview" });
    picture.innerHTML = move.preview;
    button.prepend(picture);
  }
  button.addEventListener("click", () => sendMove({ action: move.action }));
  return button;
}

function showMoves(view) {
  const moves = view.moves;
  $("moves-box").hidden = moves.length === 0;
  $("chooser").hidden = true;
  const listed = moves.filter((m) => m.place === null);
  const placed = moves.filter((m) => m.place !== null);
  $("moves").replaceChildren(...listed.map(moveButton));
  $("placed-moves").replaceChildren(...placed.map(moveButton));
  $("placed-box").hidden = placed.length === 0;
  $("placed-summary").textContent = `the ${placed.length} moves on the picture, by name`;
  $("moves-note").textContent = placed.length ? "Click a highlighted place on the picture" +
    (listed.length ? ", or a move below." : ".") : "Choose a move.";
  const byPlace = new Map();
  for (const move of placed) byPlace.set(move.place, [...(byPlace.get(move.place) || []), move]);
  for (const [place, here] of byPlace) {
    for (const node of $("picture").querySelectorAll(`[data-place="${CSS.escape(place)}"]`)) {
      node.classList.add("legal");
      node.addEventListener("click", () => (here.length === 1 ? sendMove({ action: here[0].action })
                                                               : choose(here)));
    }
  }
}

// Several moves are made on one place (a card played on a space, a tile turned four ways): ask which.
function choose(moves) {
  $("chooser-title").textContent = "Which move?";
  $("chooser-moves").replaceChildren(...moves.map(moveButton));
  $("chooser").hidden = false;
}

function showLog(view) {
  const log = $("log");
  for (const old of log.querySelectorAll("li.new")) old.classList.remove("new");
  for (const event of view.events) {
    if (event.index < page.since) continue;
    // the move's words beside its name where this seat knew the move, as the terminal and the replay say it
    const said = event.words ? `${event.name} (${event.words})` : event.name;
    const item = element("li", `${seatName(view, event.seat)}: ${said}`, { value: String(event.index + 1) });
    item.classList.add("new");
    log.appendChild(item);
    page.since = event.index + 1;
  }
  log.scrollTop = log.scrollHeight;
}

function showEnd(view) {
  const result = view.result;
  $("end").hidden = !result;
  if (!result) return;
  const people = view.seats.filter((s) => s.human).map((s) => s.seat);
  const winners = result.outcomes.map((o, s) => (o === "loss" ? null : s)).filter((s) => s !== null);
  let title = winners.length ? `${winners.map((s) => seatName(view, s)).join(" and ")} ` +
    (winners.length > 1 ? "share the best result" : "won") : "game over";
  if (people.length === 1) title = { win: "You won!", draw: "You share the best result", loss: "You lost" }[
    result.outcomes[people[0]]];
  if (result.truncated) title += " (the step limit ended the game)";
  if (result.stopped) title = "The game stopped";
  $("end-title").textContent = title;
  const rows = [["player", view.score_label, "result"].map((h) => element("th", h))];
  view.seats.forEach((seat, s) => {
    rows.push([seatName(view, s), String(view.scores[s]), OUTCOME_WORDS[result.outcomes[s]]]
      .map((text) => element("td", text)));
  });
  $("end-table").replaceChildren(...rows.map((cells) => { const row = element("tr"); row.append(...cells); return row; }));
  $("end-note").textContent = [result.stopped, view.record_note].filter(Boolean).join(". ");
  $("download").href = sessionUrl("/record");
  $("replay-link").href = `/sessions/${page.sessionId}/replay`;
}

// What happens after a view is shown: an agent's move after a pause, a cover for the next person,
// or nothing until a person moves.
function next(view) {
  clearTimeout(page.timer);
  if (view.result || view.on_move === null) return;
  if (view.seats[view.on_move].human) {
    if (page.viewer !== view.on_move) cover(view.on_move);
    return;
  }
  if (view.mode === "watch" && page.paused) return;
  page.timer = setTimeout(advance, view.thinking ? 200 : Number($("speed").value));
}

function cover(seat) {
  $("picture").replaceChildren();
  $("moves-box").hidden = true;
  $("cover-text").textContent = `player_${seat}'s turn: pass the screen to player_${seat}`;
  $("cover").hidden = false;
  $("cover-go").onclick = () => {
    $("cover").hidden = true;
    page.viewer = seat;
    page.since = 0;
    $("log").replaceChildren();
    refresh();
  };
}

async function advance() {
  try {
    show(await api("POST", sessionUrl(`/advance?${viewerQuery()}`), { step: page.view.step }));
  } catch (err) {
    say("message", err.message);
  }
}

async function sendMove(move) {
  if (page.busy) return;
  page.busy = true;
  $("chooser").hidden = true;
  try {
    const view = await api("POST", sessionUrl(`/moves?since=${page.since}`),
                           { seat: page.viewer, step: page.view.step, ...move });
    say("message", "");
    show(view);
  } catch (err) {
    say("message", err.message);
  } finally {
    page.busy = false;
  }
}

// --- rules and how to play ----------------------------------------------------------------------
// rules.md drawn as headings, paragraphs and lists, every line set as text (never as markup);
// markdown's emphasis and code marks are dropped.
function rulesNodes(markdown) {
  const plain = (line) => line.replace(/\*\*|`/g, "").replace(/\*([^*]+)\*/g, "$1");
  const nodes = [];
  let list = null;
  let paragraph = null;
  for (const line of markdown.split("\n")) {
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      nodes.push(element(heading[1].length <= 1 ? "h3" : "h4", plain(heading[2])));
      list = paragraph = null;
    } else if (item) {
      if (!list) { list = element("ul"); nodes.push(list); }
      paragraph = element("li", plain(item[1]));
      list.appendChild(paragraph);
    } else if (line.trim() === "") {
      list = paragraph = null;
    } else if (paragraph) {
      paragraph.textContent += " " + plain(line.trim());
    } else {
      paragraph = element("p", plain(line.trim()));
      nodes.push(paragraph);
    }
  }
  return nodes;
}

async function showHelp(gameId) {
  try {
    const help = await api("GET", `/api/games/${encodeURIComponent(gameId)}/help`);
    $("help-title").textContent = `${help.title}: rules and how to play`;
    $("help-how").textContent = help.how_to_play;
    $("help-rules").replaceChildren(...rulesNodes(help.rules));
    $("help").hidden = false;
  } catch (err) {
    say("message", err.message);
  }
}

// --- match records -----------------------------------------------------------------------------
async function openRecord() {
  const file = $("record-file").files[0];
  const text = file ? await file.text() : $("record-text").value;
  if (!text.trim()) { say("record-message", "choose a record file or paste one"); return; }
  say("record-message", "replaying the record...", true);
  try {
    await closeRecord();
    const opened = await api("POST", "/api/records", text, true);
    say("record-message", "");
    page.recordPage = opened.page;
    $("record-frame").src = opened.page;
    $("record-frame").hidden = false;
    $("record-close").hidden = false;
  } catch (err) {
    say("record-message", err.message);
  }
}

// The server keeps an opened record's page until it is closed here (or left idle until it expires).
async function closeRecord() {
  if (page.recordPage) await api("DELETE", `/api${page.recordPage}`).catch(() => null);
  page.recordPage = null;
  $("record-frame").hidden = true;
  $("record-frame").removeAttribute("src");
  $("record-close").hidden = true;
}

// --- wiring ------------------------------------------------------------------------------------
// Leaving a game closes it on the server, finished or not: its record was offered on its end.
async function closeSession() {
  clearTimeout(page.timer);
  if (page.sessionId) await api("DELETE", sessionUrl()).catch(() => null);
  page.sessionId = null;
  history.replaceState(null, "", "#");
}

function showSetup() {
  showSection("setup");
  listGames();
}

async function main() {
  $("nav-new").addEventListener("click", async () => { await closeSession(); showSetup(); });
  $("again").addEventListener("click", async () => { await closeSession(); showSetup(); });
  // A closed (or reloaded) tab says goodbye: its game is let go after a short grace, unless the page
  // comes back (a reload) and opens it again.
  window.addEventListener("pagehide", () => {
    if (page.sessionId) navigator.sendBeacon(`/api/sessions/${page.sessionId}/goodbye`);
  });
  window.addEventListener("pageshow", (event) => {  // back from the browser's cache: the game is used again
    if (event.persisted && page.sessionId) refresh();
  });
  $("nav-record").addEventListener("click", async () => { await closeSession(); showSection("records"); });
  $("game").addEventListener("change", renderOptions);
  $("start").addEventListener("click", startGame);
  $("record-open").addEventListener("click", openRecord);
  $("record-close").addEventListener("click", closeRecord);
  $("chooser-cancel").addEventListener("click", () => { $("chooser").hidden = true; });
  $("help-open").addEventListener("click", () => showHelp(page.view ? page.view.game : $("game").value));
  $("help-close").addEventListener("click", () => { $("help").hidden = true; });
  $("setup-help").addEventListener("click", () => showHelp($("game").value));
  $("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    if ($("move-text").value.trim()) sendMove({ name: $("move-text").value.trim() });
  });
  $("pause").addEventListener("click", () => {
    page.paused = !page.paused;
    $("pause").textContent = page.paused ? "play" : "pause";
    if (page.paused) clearTimeout(page.timer);
    else if (page.view) next(page.view);
  });
  $("step-once").addEventListener("click", () => {
    page.paused = true;
    $("pause").textContent = "play";
    clearTimeout(page.timer);
    advance();
  });
  $("view").addEventListener("change", () => {
    page.viewer = $("view").value === "public" ? null : Number($("view").value);
    page.since = 0;
    $("log").replaceChildren();
    refresh();
  });
  let catalogue;
  try {
    catalogue = await api("GET", "/api/games");
  } catch (err) {
    say("setup-message", err.message);
    return;
  }
  page.games = catalogue.games;
  const limits = catalogue.limits;
  $("limits").textContent = `An agent that takes longer than ${limits.agent_time_limit_s} s for a move stops its ` +
    `game. This server plays at most ${limits.max_sessions} games at once (finished ones do not count); a game ` +
    `left alone for ${Math.round(limits.session_ttl_s / 60)} minutes is dropped` + (limits.records_saved ? "; it keeps the match record of every finished game." : ".");
  $("game").replaceChildren(...page.games.map((g) => element("option", g.title, { value: g.id })));
  renderOptions();
  const resumed = /^#session=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (resumed) openSession(resumed[1]);
  else listGames();
}

main();
