// The page's keys: the terminal triage's keys, sent to the server with htmx (POST, with
// the CSRF header); the answer replaces #desk. No inline script: the CSP allows only
// the page's own files.
(function () {
  "use strict";
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  // The token came in the address; the page now holds it as a cookie: out of the
  // address bar and the history (as Jupyter does).
  if (window.location.search.indexOf("token=") >= 0) {
    window.history.replaceState(null, "", window.location.pathname);
  }
  var PROMPTS = { a: "Tags (comma- or space-separated)", n: "Note", e: "New title", "/": "Search (query or words; Enter: next match)" };
  var SERVER = "tsrdhmlu jbk";
  var pending = null;
  var busy = false;
  var queued = [];

  function state() { return document.getElementById("state"); }
  function shown(id) { var el = document.getElementById(id); return el && !el.hidden; }

  // While the server fits a newer interest order (data-pending), ask for it once the
  // page has been idle a moment: a key press never waits for a fit.
  var POLL_MS = 1000;
  var pollTimer = null;

  function schedulePoll() {
    if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
    var el = state();
    if (!el || !el.dataset.pending) { return; }
    pollTimer = setTimeout(function () {
      pollTimer = null;
      if (busy || pending || queued.length) { schedulePoll(); return; }
      post("/poll", {});
    }, POLL_MS);
  }

  function post(path, values) {
    var all = Object.assign({ view: state().dataset.view }, values);
    if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
    busy = true;
    return htmx.ajax("POST", path, { target: "#desk", swap: "innerHTML", values: all, headers: { "X-CSRF-Token": csrf } })
      .finally(function () {
        busy = false;
        var next = queued.shift();
        // a key pressed while the page waited: its round trip counts from its press
        if (next) { var at = pressedAt; press(next); pressedAt = at; } else { schedulePoll(); }
      });
  }

  function math() {
    if (window.renderMathInElement) {
      ["title", "abstract"].forEach(function (id) {
        var element = document.getElementById(id);
        if (!element) {
          return;
        }
        window.renderMathInElement(element, {
          delimiters: [
            { left: "$$", right: "$$", display: true },
            { left: "\\[", right: "\\]", display: true },
            { left: "$", right: "$", display: false },
            { left: "\\(", right: "\\)", display: false }
          ],
          throwOnError: false,
          trust: false,
          maxSize: 10,
          maxExpand: 100
        });
      });
    }
  }

  function ask(key) {
    pending = { key: key, paper: state().dataset.paper };
    var form = document.getElementById("prompt");
    document.getElementById("prompt-label").textContent = PROMPTS[key];
    var input = document.getElementById("prompt-input");
    var shown = document.getElementById("title");
    input.value = key === "e" && shown ? shown.getAttribute("data-plain") || "" : "";
    form.hidden = false;
    input.focus();
  }

  function closePrompt() {
    document.getElementById("prompt").hidden = true;
    pending = null;
  }

  function openLink() {
    var link = document.querySelector("#paper a.link");
    if (link) { window.open(link.href, "_blank", "noopener,noreferrer"); }
    else { document.getElementById("message").textContent = "this paper has no link"; }
  }

  function toggle(id) {
    var el = document.getElementById(id);
    if (el) { el.hidden = !el.hidden; }
  }

  // When the last key was pressed (performance.now()), for the round trip the page
  // records after its answer is shown (data-roundtrip, in ms: benchmarks/serve.py).
  var pressedAt = 0;

  function press(key) {
    pressedAt = performance.now();
    if (busy && SERVER.indexOf(key) >= 0) { queued.push(key); return; }
    if (PROMPTS[key]) { ask(key); return; }
    if (key === "o") { openLink(); return; }
    if (key === "?") { toggle("help"); return; }
    if (key === "w") { post("/why", {}); return; }
    if (key === "x") { var a = document.getElementById("abstract"); if (a) { a.classList.toggle("clipped"); } return; }
    if (key === "v") { var cur = document.querySelector("#list li.current") || document.querySelector("#list li"); if (cur) { cur.focus(); } return; }
    if (key === "g") { post("/topics", {}); return; }
    if (key === "q") { document.getElementById("message").textContent = "close the tab to stop; Ctrl-C in the terminal stops the server"; return; }
    // the version of the paper's status shown: a decision made elsewhere meanwhile is
    // refused (409, the paper as it is now) instead of overwritten
    if (SERVER.indexOf(key) >= 0) { post("/act", { key: key, paper: state().dataset.paper, seen: state().dataset.seen }); }
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "Escape") { closePrompt(); document.getElementById("help").hidden = true; return; }
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) { return; }
    var item = target && target.closest && target.closest("#list li");
    if (item && (event.key === "Enter")) { post("/go", { paper: item.dataset.paper }); event.preventDefault(); return; }
    if (item && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      var next = event.key === "ArrowDown" ? item.nextElementSibling : item.previousElementSibling;
      if (next) { next.focus(); }
      event.preventDefault();
      return;
    }
    var key = event.key;
    if (key.length !== 1) { return; }
    event.preventDefault();
    press(key);
  });

  document.addEventListener("submit", function (event) {
    if (event.target.id !== "prompt") { return; }
    event.preventDefault();
    var ask = pending;
    var answer = document.getElementById("prompt-input").value;
    closePrompt();
    if (ask) { post("/act", { key: ask.key, paper: ask.paper, answer: answer }); }
  });

  document.addEventListener("click", function (event) {
    var el = event.target.closest ? event.target.closest("[data-key],[data-paper],[data-topic],[data-skip-topic],#prompt-cancel") : null;
    if (!el) { return; }
    if (el.id === "prompt-cancel") { closePrompt(); return; }
    if (el.dataset.key !== undefined) { el.blur(); press(el.dataset.key); return; }
    if (el.dataset.skipTopic !== undefined) {
      var label = el.dataset.skipTopic;
      if (window.confirm("Skip every new paper of topic " + label + "?")) { post("/topic/skip", { label: label }); }
      return;
    }
    if (el.dataset.topic !== undefined) { post("/topic", { label: el.dataset.topic }); return; }
    if (el.dataset.paper !== undefined && el.tagName === "LI") { post("/go", { paper: el.dataset.paper }); }
  });

  // The similar papers of the paper shown: asked for once it is shown (a GET that
  // changes nothing), so a key's answer never waits for them; once per paper: an
  // answer that shows the same paper again (a poll, a refused key) keeps them.
  // Asked for once the paper has been shown SIMILAR_MS: keys pressed in quick
  // succession do not make the server compare each paper they pass with the library.
  var similarOf = { paper: "", html: "" };
  var SIMILAR_MS = 150;
  var similarTimer = null;

  function similar() {
    if (similarTimer) { clearTimeout(similarTimer); similarTimer = null; }
    var box = document.getElementById("similar");
    if (!box || !box.dataset.paper) { return; }
    if (similarOf.paper === box.dataset.paper) { box.innerHTML = similarOf.html; return; }
    var paper = box.dataset.paper;
    similarTimer = setTimeout(function () {
      similarTimer = null;
      var now = document.getElementById("similar");
      if (!now || now.dataset.paper !== paper) { return; }
      similarOf = { paper: paper, html: "" };
      var query = "?view=" + encodeURIComponent(state().dataset.view) + "&paper=" + encodeURIComponent(paper);
      // its own source: htmx holds one request per source element and keeps only the
      // last one waiting, so one from the page's body would hold a key's POST back
      htmx.ajax("GET", "/similar" + query, { source: now, target: now, swap: "innerHTML" });
    }, SIMILAR_MS);
  }

  function afterSwap(event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "similar") {
      if (target.dataset.paper === similarOf.paper) { similarOf.html = target.innerHTML; }
      // an answer that came after the desk was swapped again (a poll): into the new box
      var box = document.getElementById("similar");
      if (box && box !== target && box.dataset.paper === target.dataset.paper) { box.innerHTML = target.innerHTML; }
      return;
    }
    math();
    similar();
  }

  document.addEventListener("htmx:afterSwap", afterSwap);
  // A decision made elsewhere while the paper was shown: the server refuses (409) with
  // the paper as it is now, shown like any answer (the key pressed again applies).
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.status === 409 && xhr.getResponseHeader("X-Decided-Elsewhere")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  // A count of answers to keys shown, for the tests and the benchmark to wait on (an
  // answer to a poll or the similar papers is not one).
  // (The answer's path, not a flag: htmx settles an answer after its promise resolved.)
  function requestPath(event) {
    var detail = event.detail || {};
    return (detail.pathInfo && detail.pathInfo.requestPath) || (detail.requestConfig && detail.requestConfig.path) || "";
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var path = requestPath(event);
    if (path.indexOf("/poll") === 0 || path.indexOf("/similar") === 0) { return; }
    if (event.detail && event.detail.target && event.detail.target.id !== "desk") { return; }
    document.body.dataset.roundtrip = (performance.now() - pressedAt).toFixed(1);
    document.body.dataset.swaps = String(Number(document.body.dataset.swaps || 0) + 1);
  });
  document.addEventListener("htmx:responseError", function (event) {
    document.getElementById("message").textContent = event.detail.xhr.responseText || "the server refused";
  });
  function start() { math(); similar(); schedulePoll(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
