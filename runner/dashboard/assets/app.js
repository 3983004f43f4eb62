// The clai dashboard's page: it follows the sessions through the server's
// event stream and answers a question through POST /api/answer. Every text
// from a session is put in the page as text; only the screen comes as HTML,
// escaped by the server.
"use strict";

const views = new Map(); // session id → the latest view
const cards = new Map(); // session id → its card's elements
const results = new Map(); // session and question id → what the last answer from here got
const lastResults = new Map(); // session id → the last answer from here: its question's id and text, and what it got

// resultOf is what the last answer from here to a session's question got;
// question ids are a session's own (q1, q2…), so both name it.
const resultKey = (sessionID, questionID) => sessionID + "\n" + questionID;
const resultOf = (sessionID, q) => (q ? results.get(resultKey(sessionID, q.id)) : undefined);

const $ = (tag, cls, text) => {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
};

function ago(iso) {
  const t = Date.parse(iso);
  if (!t || t < 0) return "";
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 60) return s + "s ago";
  if (s < 3600) return Math.floor(s / 60) + "m ago";
  return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m ago";
}

function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) || d.getTime() <= 0 ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

// controlNames are the key names of the control characters a key types.
const controlNames = { "\r": "⏎", "\t": "⇥", "\n": "␤", "\x1b": "⟨esc⟩", "\x7f": "⟨backspace⟩", "\x08": "⟨ctrl-h⟩", "\x00": "⟨ctrl-@⟩" };

// visible shows what was typed or matched with no control character raw:
// Enter as ⏎, Tab as ⇥, Esc, Backspace and Ctrl-letters by their key names,
// the C1 controls, bidi overrides and other invisible characters as \u{…}.
function visible(s) {
  return String(s).replace(/[\x00-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb]/g, (c) => {
    if (controlNames[c]) return controlNames[c];
    const n = c.charCodeAt(0);
    if (n >= 1 && n <= 26) return "⟨ctrl-" + String.fromCharCode(n + 0x60) + "⟩";
    return "\\u{" + n.toString(16).padStart(4, "0") + "}";
  });
}

// outcomeLabels name how a run ended, as its badge reads it: a run that
// ends at a prompt ended because nobody answered it within timeouts.prompt;
// one that ends in manual, because nobody took over.
const outcomeLabels = { timeout: "timed out", prompting: "timed out", manual: "unanswered", gone: "gone" };

function outcomeLabel(outcome) {
  return outcomeLabels[outcome] || outcome || "ended";
}

function token(s) {
  return String(s || "").toLowerCase().replace(/[^a-z0-9-]/g, "");
}

// newCard builds the parts of a session's card that stay.
function newCard(id) {
  const card = $("article", "card");
  card.dataset.session = id;
  const head = $("div", "card-head");
  const line = $("div", "head-line");
  const name = $("span", "name");
  const state = $("span", "badge state");
  const since = $("span", "meta since");
  const spacer = $("span", "spacer");
  const pid = $("span", "meta pid");
  line.append(name, state, since, spacer, pid);
  const meta = $("div", "meta program");
  head.append(line, meta);
  const body = $("div", "card-body");
  const wrap = $("div", "screen-wrap");
  const screen = $("pre", "screen");
  wrap.append(screen);
  const side = $("div", "side");
  const qsec = $("section", "qsec");
  qsec.append($("h2", "", "Question"));
  const question = $("div", "question");
  qsec.append(question);
  const dsec = $("section", "dsec");
  dsec.append($("h2", "", "Recent decisions"));
  const decisions = $("div", "decisions-box");
  dsec.append(decisions);
  side.append(qsec, dsec);
  body.append(wrap, side);
  card.append(head, body);
  document.getElementById("sessions").append(card);
  const c = { card, name, state, meta, since, pid, screen, question, decisions, screenHash: null, questionKey: null, decisionsKey: null };
  cards.set(id, c);
  return c;
}

function render(v) {
  const s = v.session;
  views.set(s.id, v);
  const c = cards.get(s.id) || newCard(s.id);
  const q = s.question;
  c.card.classList.toggle("asking", !!q && !v.ended);
  c.card.classList.toggle("ended", !!v.ended);
  c.name.textContent = s.name || s.id;
  const state = v.ended ? outcomeLabel(v.outcome) : s.state;
  c.state.textContent = v.ended && v.exit_code != null ? state + " · exit " + v.exit_code : state;
  c.state.className = "badge state " + (v.ended ? "o-" + token(v.outcome) : "s-" + token(state));
  c.state.title = v.ended && v.end_reason ? v.end_reason : "";
  const parts = [];
  if (s.playbook) parts.push(s.playbook);
  if (s.program && s.program.length) parts.push("$ " + s.program.map(visible).join(" "));
  if (v.error) parts.push("unreachable: " + v.error);
  c.meta.textContent = parts.join("  ·  ");
  c.meta.title = c.meta.textContent;
  c.pid.textContent = s.pid ? "pid " + s.pid : "";
  c.since.dataset.since = (v.ended ? v.ended_at : s.since) || "";
  c.since.dataset.prefix = v.ended ? "ended " : "for ";
  c.since.textContent = sinceText(c.since);
  if (v.screen && v.screen.hash !== c.screenHash) {
    c.screenHash = v.screen.hash;
    // The server escaped every text of the screen; colours other than the
    // 16 of the palette come as data attributes, set here as styles.
    c.screen.innerHTML = v.screen.html;
    for (const el of c.screen.querySelectorAll("[data-fg],[data-bg]")) {
      if (/^#[0-9a-f]{6}$/.test(el.dataset.fg || "")) el.style.color = el.dataset.fg;
      if (/^#[0-9a-f]{6}$/.test(el.dataset.bg || "")) el.style.backgroundColor = el.dataset.bg;
    }
  }
  renderQuestion(c, v);
  renderDecisions(c, v);
  document.getElementById("empty").hidden = views.size > 0;
  arrange();
  summarize();
}

// group is where a session's card goes: those with a question open first,
// then those that run, then those that ended.
function group(v) {
  if (v.ended) return 2;
  return v.session.question ? 0 : 1;
}

// recency is the time a session's card is ordered by within its group,
// the most recent first: when its question was asked, it started, or it
// ended.
function recency(v) {
  const t = Date.parse(v.ended ? v.ended_at : (v.session.question && v.session.question.asked_at) || v.session.started);
  return isNaN(t) ? 0 : t;
}

// arrange puts the cards in their order, moving only those out of place;
// what had the focus keeps it.
function arrange() {
  const order = [...views.values()].sort((a, b) => group(a) - group(b) || recency(b) - recency(a) || (a.session.id < b.session.id ? -1 : 1));
  const main = document.getElementById("sessions");
  const focused = document.activeElement;
  let at = document.getElementById("empty").nextElementSibling;
  for (const v of order) {
    const card = cards.get(v.session.id).card;
    if (card === at) {
      at = at.nextElementSibling;
      continue;
    }
    main.insertBefore(card, at);
  }
  if (focused && focused !== document.activeElement && document.contains(focused)) focused.focus();
}

function renderQuestion(c, v) {
  const q = v.ended ? null : v.session.question;
  const last = v.last_closed;
  const id = v.session.id;
  const key = JSON.stringify([q, last, v.ended, v.end_reason, resultOf(id, q), resultOf(id, last), lastResults.get(id), !!(v.screen && v.screen.hash)]);
  if (key === c.questionKey) return;
  // A question being answered is not redrawn under the person's hands: what
  // was typed and ticked stays.
  const typing = c.question.querySelector("form.free input");
  const typed = typing && q && typing.dataset.question === q.id ? typing.value : "";
  const focused = typing && document.activeElement === typing;
  const ticked = new Set();
  for (const tick of c.question.querySelectorAll("form.multi input[type=checkbox]:checked")) {
    if (q && tick.dataset.question === q.id) ticked.add(tick.value);
  }
  c.questionKey = key;
  const box = c.question;
  box.replaceChildren();
  box.className = "question" + (q ? " open" : "");
  // A refusal of an answer from here to a question no longer shown stays
  // on the card.
  const earlier = lastResults.get(id);
  const refusedBefore = earlier && !earlier.result.ok && earlier.question !== (q || last || {}).id ? earlier : null;
  if (!q) {
    box.append($("div", "quiet", v.ended ? "The run has ended" + (v.end_reason ? ": " + v.end_reason : "") + "." : "No open question: the run goes on by itself."));
    if (last) box.append(closedLine(last));
    if (resultOf(id, last)) box.append(resultLine(resultOf(id, last)));
    if (refusedBefore) box.append(earlierResultLine(refusedBefore));
    return;
  }
  box.dataset.question = q.id;
  const head = $("div", "qhead");
  head.append($("span", "reason", q.reason));
  if (q.header) head.append($("span", "qheader", q.header));
  box.append(head);
  box.append($("div", "qtext", q.text || "(no text)"));
  if (q.detail) box.append($("div", "qdetail", q.detail));
  const ready = !!(v.screen && v.screen.hash);
  const send = (what) => answer(v.session.id, q.id, what, box);
  if (q.suggestions && q.suggestions.length) box.append(suggestionButtons(q, ready, send));
  if (q.options && q.options.length) {
    box.append(q.multi_select ? choicesForm(q, ready, ticked, send) : optionButtons(q, ready, send));
  }
  const free = freeForm(q, ready, typed, send);
  box.append(free);
  box.append(keyButtons(ready, send));
  if (resultOf(id, q)) box.append(resultLine(resultOf(id, q)));
  else if (refusedBefore) box.append(earlierResultLine(refusedBefore));
  if (focused) free.querySelector("input").focus();
}

// optionLabel is an option's label and, when it has one, its description.
function optionLabel(o) {
  const parts = [$("span", "olabel", o.label)];
  if (o.description) parts.push($("span", "odesc", o.description));
  return parts;
}

// optionButtons is a button per option: a click chooses it.
function optionButtons(q, ready, send) {
  const opts = $("div", "options");
  for (const o of q.options) {
    const b = $("button", "option" + (o.description ? " described" : ""));
    b.append(...optionLabel(o));
    b.type = "button";
    b.disabled = !ready;
    b.dataset.label = o.label;
    b.addEventListener("click", () => send({ choose: o.label }));
    opts.append(b);
  }
  return opts;
}

// choicesForm is a check box per option of a question that takes several,
// and a button that answers with those ticked, in the options' order.
function choicesForm(q, ready, ticked, send) {
  const form = $("form", "multi");
  const boxes = [];
  const submit = $("button", "submit-choices", "Submit");
  const update = () => { submit.disabled = !ready || !boxes.some((b) => b.checked); };
  for (const o of q.options) {
    const row = $("label", "choice");
    const box = $("input");
    box.type = "checkbox";
    box.value = o.label;
    box.checked = ticked.has(o.label);
    box.disabled = !ready;
    box.dataset.question = q.id;
    box.dataset.label = o.label;
    box.addEventListener("change", update);
    boxes.push(box);
    const text = $("span", "choice-text");
    text.append(...optionLabel(o));
    row.append(box, text);
    form.append(row);
  }
  submit.type = "submit";
  const bar = $("div", "choices-bar");
  bar.append(submit, $("span", "quiet", "Tick one or more, then Submit."));
  form.append(bar);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const choices = boxes.filter((b) => b.checked).map((b) => b.value);
    if (choices.length) send({ choices });
  });
  update();
  return form;
}

// freeForm is the field for a line of text: for a question that takes a text
// other than its options ("Other"), it says so.
function freeForm(q, ready, typed, send) {
  const form = $("form", "free");
  if (q.other) form.append($("span", "other-label", "Other:"));
  const input = $("input");
  input.type = "text";
  input.maxLength = 4096;
  input.placeholder = q.other ? "An answer of your own, then Enter" : "Type an answer, then Enter";
  input.autocomplete = "off";
  input.dataset.question = q.id;
  input.value = typed;
  const button = $("button", "", "Send");
  button.type = "submit";
  button.disabled = !ready;
  form.append(input, button);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send({ text: input.value });
  });
  return form;
}

// keyButtons are buttons for a few keys.
function keyButtons(ready, send) {
  const keys = $("div", "keys");
  keys.append($("span", "", "Keys:"));
  for (const [label, name] of [["Enter", "enter"], ["Esc", "esc"], ["↑", "up"], ["↓", "down"], ["Ctrl-C", "ctrl-c"]]) {
    const b = $("button", "key", label);
    b.type = "button";
    b.disabled = !ready;
    b.addEventListener("click", () => send({ keys: [name] }));
    keys.append(b);
  }
  return keys;
}

// suggestionButtons is a button per suggestion, the likeliest first: an
// answer people gave to the same question before, with its share, or a
// project's task or shell command, with its source.
function suggestionButtons(q, ready, send) {
  const row = $("div", "suggestions");
  row.append($("span", "", "Suggested:"));
  for (const s of q.suggestions) {
    const b = $("button", "suggestion", visible(s.text));
    const given = s.source === "answers";
    b.append($("span", "share", given ? Math.round(100 * s.confidence) + "%" : s.source));
    b.type = "button";
    b.disabled = !ready;
    b.title = given ? "answered " + s.count + " times before, " + Math.round(100 * s.confidence) + "% of the answers" : "from the project's " + s.source;
    b.dataset.text = s.text;
    b.addEventListener("click", () => send(s.option ? { choose: s.text } : { text: s.text }));
    row.append(b);
  }
  return row;
}

function closedLine(q) {
  const line = $("div", "closed-line");
  const c = q.closed || {};
  line.append("Last question ");
  line.append($("strong", "", "“" + (q.text || q.id) + "”"));
  if (c.how === "answered") {
    let who = " answered";
    if (c.by) who += " by " + c.by;
    if (c.channel) who += " through " + c.channel;
    line.append(who + (c.sent ? ": sent " + visible(c.sent) : "") + ".");
  } else if (c.how === "moved-on") {
    line.append(" closed: the program moved on by itself.");
  } else {
    line.append(" closed: " + (c.how || "closed") + ".");
  }
  line.dataset.how = c.how || "";
  return line;
}

function resultLine(r) {
  const el = $("div", "result " + (r.ok ? "ok" : "refused"), r.message);
  return el;
}

// earlierResultLine is what the last answer from here got, when its
// question is no longer the one shown: a refusal stays in sight after the
// program moved on.
function earlierResultLine(e) {
  const el = resultLine(e.result);
  el.classList.add("earlier");
  el.prepend("Your answer to “" + (e.text || e.question) + "”: ");
  return el;
}

async function answer(sessionID, questionID, what, box) {
  const v = views.get(sessionID);
  const body = Object.assign({ session: sessionID, question: questionID, screen_hash: v && v.screen ? v.screen.hash : "" }, what);
  for (const b of box.querySelectorAll("button, input[type=checkbox]")) b.disabled = true;
  let r;
  try {
    const resp = await fetch("/api/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const reply = await resp.json().catch(() => ({}));
    if (resp.ok) {
      r = { ok: true, message: "Sent: " + (reply.sent ? visible(reply.sent) : "(nothing to show)") };
    } else if (resp.status === 409) {
      r = { ok: false, message: "Refused (" + (reply.code || "refused") + "): " + (reply.reason || "") };
    } else {
      r = { ok: false, message: "Not sent: " + (reply.error || resp.status + " " + resp.statusText) };
    }
  } catch (e) {
    r = { ok: false, message: "Not sent: the dashboard cannot be reached (" + e.message + ")" };
  }
  results.set(resultKey(sessionID, questionID), r);
  const asked = v && v.session.question && v.session.question.id === questionID ? v.session.question.text : "";
  lastResults.set(sessionID, { question: questionID, text: asked, result: r });
  const latest = views.get(sessionID);
  if (latest) {
    const c = cards.get(sessionID);
    c.questionKey = null;
    render(latest);
  }
}

function renderDecisions(c, v) {
  const ds = v.decisions || [];
  const key = JSON.stringify(ds);
  if (key === c.decisionsKey) return;
  c.decisionsKey = key;
  c.decisions.replaceChildren();
  if (!ds.length) {
    c.decisions.append($("div", "quiet", "None yet."));
    return;
  }
  const table = $("table", "decisions");
  const head = $("tr");
  for (const h of ["When", "Rule or person", "Matched", "Sent"]) head.append($("th", "", h));
  table.append(head);
  for (const d of ds) {
    const tr = $("tr", d.kind);
    const who = d.kind === "answer" ? "answer by " + (d.by || "a person") + (d.channel ? " · " + d.channel : "") : d.rule || d.kind;
    const cells = [clock(d.at), who, visible(d.matched || ""), d.sent ? visible(d.sent) : (d.reason || "")];
    cells.forEach((text, i) => {
      const td = $("td", ["when", "mono who", "mono", "mono"][i], text);
      td.title = text;
      tr.append(td);
    });
    table.append(tr);
  }
  c.decisions.append(table);
}

function summarize() {
  let running = 0, ended = 0, asking = 0;
  for (const v of views.values()) {
    if (v.ended) ended++;
    else running++;
    if (!v.ended && v.session.question) asking++;
  }
  const parts = [running + (running === 1 ? " session running" : " sessions running")];
  if (ended) parts.push(ended + " ended");
  if (asking) parts.push(asking + (asking === 1 ? " question waits for you" : " questions wait for you"));
  document.getElementById("summary").textContent = parts.join(" · ");
  document.title = (asking ? "(" + asking + ") " : "") + "clai dashboard";
}

function remove(id) {
  const c = cards.get(id);
  if (c) c.card.remove();
  cards.delete(id);
  views.delete(id);
  lastResults.delete(id);
  document.getElementById("empty").hidden = views.size > 0;
  summarize();
}

function connect() {
  const conn = document.getElementById("conn");
  const es = new EventSource("/api/events");
  es.addEventListener("open", () => {
    conn.dataset.state = "live";
    conn.textContent = "live";
    // The stream starts with every session as it stands.
    for (const id of [...cards.keys()]) remove(id);
  });
  es.addEventListener("error", () => {
    conn.dataset.state = "lost";
    conn.textContent = "reconnecting…";
  });
  es.addEventListener("session", (e) => render(JSON.parse(e.data)));
  es.addEventListener("gone", (e) => remove(JSON.parse(e.data).id));
}

function sinceText(el) {
  if (!el.dataset.since) return "";
  const a = ago(el.dataset.since);
  return el.dataset.prefix === "for " ? "for " + a.replace(/ ago$/, "") : el.dataset.prefix + a;
}

setInterval(() => {
  for (const c of cards.values()) c.since.textContent = sinceText(c.since);
}, 5000);

connect();
