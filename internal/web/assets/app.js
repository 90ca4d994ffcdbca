// The catalogue's script: search as you type, filters, paging and keyboard
// navigation over the list the server rendered. Plain DOM, no framework,
// no build step. Skill data is only ever set as text (textContent,
// setAttribute), never parsed as HTML.
(function () {
  "use strict";
  var body = document.body;
  var list = document.getElementById("skills");
  var q = document.getElementById("q");
  var filters = ["provider", "plugin", "location", "state", "integrity", "signature", "findings"];
  var updated = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function skillURL(id) { return "/skill/" + encodeURIComponent(id); }

  // badge builds one of the list's badges, as the server's template does.
  function badges(li, s) {
    function add(cls, text, title) {
      var b = el("span", "badge " + cls, text);
      if (title) b.setAttribute("title", title);
      li.appendChild(b);
    }
    if (s.state === "hidden") add("hidden", "hidden", s.reason);
    if (s.state === "disabled") add("disabled", "disabled", s.reason);
    if (s.off) add("off", "off in " + s.off, "switched off in " + s.off);
    if (s.integrity) add("integrity " + s.integrity, s.integrity, "integrity: " + s.integrity);
    if (s.signature === "signed") add("signature signed", "signed", "signed by " + (s.signer || ""));
    else if (s.signature === "invalid") add("signature invalid", "signature invalid", "the signature does not verify");
    if (s.findings) add("findings " + (s.severity || ""), s.findings + (s.findings === 1 ? " finding" : " findings"),
      s.findings + " scan findings, worst: " + s.severity);
  }

  function item(s) {
    var li = el("li", "skill");
    li.setAttribute("data-id", s.id);
    var a = el("a", "name", s.name);
    a.setAttribute("href", skillURL(s.id));
    li.appendChild(a);
    badges(li, s);
    li.appendChild(el("p", "desc", s.desc));
    var meta = el("p", "meta");
    meta.appendChild(el("span", "provider", s.provider));
    if (s.plugin) { meta.appendChild(document.createTextNode(" · ")); meta.appendChild(el("span", "plugin", s.plugin)); }
    meta.appendChild(document.createTextNode(" · "));
    meta.appendChild(el("span", "location", s.location));
    meta.appendChild(document.createTextNode(" · "));
    meta.appendChild(el("span", "id", s.id));
    li.appendChild(meta);
    return li;
  }

  // groupFor returns the members list of the group key, adding a group
  // when the list's last one is another: rows are shown in the order the
  // server gives them (with a search, its ranking), a heading wherever
  // the provider and plugin change. The server renders its page by the
  // same rule (catalogue.go, groups), so a deep link and typing agree; a
  // "Show more" page that continues the last group adds to it.
  function groupFor(key) {
    var last = list.lastElementChild;
    if (last) {
      var sec = last.querySelector("section.group");
      if (sec && sec.getAttribute("data-group") === key) return sec.querySelector("ul.members");
    }
    var gi = el("li", "group-item");
    var section = el("section", "group");
    section.setAttribute("data-group", key);
    section.appendChild(el("h2", null, key));
    var members = el("ul", "members");
    section.appendChild(members);
    gi.appendChild(section);
    list.appendChild(gi);
    return members;
  }

  function params(offset) {
    var p = new URLSearchParams();
    if (q.value.trim()) p.set("q", q.value.trim());
    filters.forEach(function (name) {
      var s = document.getElementById(name);
      if (s && s.value && !(name === "state" && s.value === "served")) p.set(name, s.value);
    });
    if (offset) p.set("offset", String(offset));
    return p;
  }

  function setMore(next) {
    var more = document.getElementById("more");
    var paging = document.querySelector(".paging");
    if (!next) { if (more) more.remove(); return; }
    if (!more) {
      more = el("a", "more", "Show more");
      more.id = "more";
      paging.appendChild(more);
    }
    more.setAttribute("data-offset", String(next));
    more.setAttribute("href", "/?" + params(next).toString());
  }

  var seq = 0;
  // load fetches a page of the view and shows it: replacing the list, or
  // appending to it for "Show more".
  function load(offset) {
    var mine = ++seq;
    var p = params(offset);
    return fetch("/ui/skills.json?" + p.toString(), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (data) {
        if (mine !== seq) return; // a later request won
        if (!offset) {
          while (list.firstChild) list.removeChild(list.firstChild);
          selected = null;
        }
        data.skills.forEach(function (s) { groupFor(s.group).appendChild(item(s)); });
        document.getElementById("count").textContent = String(data.count);
        var label = document.getElementById("count-label");
        if (label) label.textContent = data.count === 1 ? "skill" : "skills";
        document.getElementById("empty").hidden = data.count !== 0;
        setMore(data.next);
        body.setAttribute("data-updated", String(++updated));
      })
      .catch(function (err) {
        if (mine !== seq) return;
        var e = document.querySelector(".error.live") || el("p", "error live");
        e.setAttribute("role", "alert");
        e.textContent = "The list could not be loaded: " + err.message;
        list.parentNode.insertBefore(e, list);
      });
  }

  function syncURL() {
    var p = params(0).toString();
    history.replaceState(null, "", p ? "/?" + p : "/");
  }

  var timer = 0;
  function changed() {
    clearTimeout(timer);
    timer = setTimeout(function () { syncURL(); load(0); }, 120);
  }

  // Keyboard: "/" focuses the search; arrows (and j/k outside fields) move
  // the selection; Enter opens the selected skill.
  var selected = null;
  function select(li) {
    if (selected) { selected.classList.remove("selected"); selected.removeAttribute("aria-current"); }
    selected = li;
    if (li) {
      li.classList.add("selected");
      li.setAttribute("aria-current", "true");
      li.scrollIntoView({ block: "nearest" });
    }
  }
  function move(step) {
    var items = Array.prototype.slice.call(list.querySelectorAll("li.skill"));
    if (!items.length) return;
    var i = selected ? items.indexOf(selected) : -1;
    i = i < 0 ? (step > 0 ? 0 : items.length - 1) : Math.max(0, Math.min(items.length - 1, i + step));
    select(items[i]);
  }
  function inField(t) {
    return t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable);
  }

  function wireCatalogue() {
    var form = document.getElementById("filters");
    form.addEventListener("submit", function (e) { e.preventDefault(); syncURL(); load(0); });
    var apply = form.querySelector(".apply");
    if (apply) apply.hidden = true;
    q.addEventListener("input", changed);
    filters.forEach(function (name) {
      var s = document.getElementById(name);
      if (s) s.addEventListener("change", function () { syncURL(); load(0); });
    });
    document.addEventListener("click", function (e) {
      var more = e.target.closest && e.target.closest("#more");
      if (!more) return;
      e.preventDefault();
      load(parseInt(more.getAttribute("data-offset"), 10) || 0);
    });
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (e.key === "/" && !inField(t)) { e.preventDefault(); q.focus(); q.select(); return; }
      if (e.key === "ArrowDown" && (t === q || !inField(t))) { e.preventDefault(); move(1); return; }
      if (e.key === "ArrowUp" && (t === q || !inField(t))) { e.preventDefault(); move(-1); return; }
      if (!inField(t) && (e.key === "j" || e.key === "k")) { e.preventDefault(); move(e.key === "j" ? 1 : -1); return; }
      if (e.key === "Enter" && selected && (t === q || !inField(t)) && !(t.closest && t.closest("a,button"))) {
        e.preventDefault();
        var a = selected.querySelector("a.name");
        if (a) location.assign(a.getAttribute("href"));
      }
      if (e.key === "Escape" && t === q && q.value) { q.value = ""; changed(); }
    });
  }

  if (list && q) wireCatalogue();
  body.dataset.ready = "1";
})();
