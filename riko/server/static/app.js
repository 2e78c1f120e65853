// riko review page: a client of the same authenticated control API; the server decides everything.
(() => {
  "use strict";

  const API = document.querySelector('meta[name="riko-api"]').content;
  const PAGE_TYPES = ["entity", "concept", "relationship", "episode", "emotion", "synthesis", "source"];
  const REL_COLORS = {
    link: "#8a94a6", supports: "#1f7a4d", contradicts: "#b3261e", refines: "#2f5fd0",
    derived_from: "#7a4fd0", evidenced_by: "#a86400", broken: "#d0d4db",
  };
  const TYPE_COLORS = {
    entity: "#2f5fd0", concept: "#1f7a4d", relationship: "#c2410c", episode: "#7a4fd0",
    emotion: "#be185d", synthesis: "#0e7490", source: "#5f6b7a", missing: "#c7ccd5",
  };
  const $ = (sel) => document.querySelector(sel);
  const state = { tab: "overview", pageId: null, sessionId: null, wiki: null };

  // -- DOM helper: text only, never HTML from data --------------------------------------------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      else if (k === "dataset") Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  const svg = (tag, attrs) => {
    const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
    return el;
  };
  const fill = (el, ...kids) => { el.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined)); return el; };
  const when = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC") : "–");
  const short = (id) => (id && id.length > 14 ? id.slice(0, 8) + "…" + id.slice(-4) : id || "");

  // -- credentials: the token lives in sessionStorage only -----------------------------------
  const creds = {
    get token() { return sessionStorage.getItem("riko.token") || ""; },
    set token(v) { v ? sessionStorage.setItem("riko.token", v) : sessionStorage.removeItem("riko.token"); },
    get profile() { return sessionStorage.getItem("riko.profile") || localStorage.getItem("riko.profile") || ""; },
    set profile(v) { sessionStorage.setItem("riko.profile", v); localStorage.setItem("riko.profile", v); },
  };

  class ApiFailure extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(method, path, body) {
    const headers = { "x-dsh-memory-profile": creds.profile };
    if (creds.token) headers.authorization = "Bearer " + creds.token;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(API + path, {
      method, headers, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (!res.ok) throw new ApiFailure(res.status, (data && data.message) || res.statusText);
    return data;
  }

  function status(text, kind) {
    const el = $("#status");
    el.textContent = text;
    el.className = "status" + (kind ? " " + kind : "");
  }
  function failed(err) {
    const hint = err.status === 401 ? " (check the token)" : err.status === 403 ? " (not allowed for this token)" : "";
    status(`Error ${err.status || ""}: ${err.message}${hint}`, "error");
  }
  async function act(label, fn) {
    try {
      await fn();
      await refresh();
      status(label, "ok");  // shown once the views below reflect the change
    } catch (err) { failed(err); }
  }

  // -- badges ------------------------------------------------------------------------------
  function sensitivityBadge(level) {
    const cls = level === "normal" ? "ok" : level === "provisional_sensitive" ? "warn" : "bad";
    return h("span", { class: "badge " + cls }, level || "unclassified");
  }
  function pageBadges(p) {
    return h("div", { class: "badges" },
      h("span", { class: "badge info" }, p.type),
      h("span", { class: "badge " + (p.status === "confirmed" ? "ok" : "") }, p.status),
      sensitivityBadge(p.sensitivity),
      p.version ? h("span", { class: "badge" }, "v" + p.version) : null,
      p.locked ? h("span", { class: "badge" }, "locked") : null,
      p.consent === false ? h("span", { class: "badge warn" }, "no consent") : null,
      p.usage_policy === "suppressed" ? h("span", { class: "badge warn" }, "suppressed") : null,
      p.contested ? h("span", { class: "badge bad" }, "contested") : null,
      p.redacted ? h("span", { class: "badge bad" }, "redacted") : null);
  }

  // -- overview, pipeline -----------------------------------------------------------------------
  function renderCounts(w) {
    $("#count-sessions").textContent = w.counts.sessions;
    $("#count-candidates").textContent = w.counts.candidates;
    $("#count-pages").textContent = w.counts.pages;
    $("#count-injected").textContent = w.counts.injected;
    $("#badge-candidates").textContent = w.counts.candidates || "";
  }
  function renderResident(r) {
    $("#resident-version").textContent = r.version;
    $("#resident-sources").textContent = r.source_page_count;
    $("#resident-chars").textContent = `${r.text.length} / ${r.max_chars} chars`;
    $("#resident-text").textContent = r.text || "(empty: no confirmed page is eligible yet)";
    $("#raw-retention").textContent = r.raw_retention || "";
  }
  function renderDream(d) {
    $("#dream-state").textContent = d.state;
    $("#dream-last").textContent = when(d.last_run_at);
    $("#dream-error").textContent = d.last_error || "none";
    $("#dream-error").className = d.last_error ? "bad" : "";
    const jobs = d.jobs;
    $("#dream-jobs").textContent = jobs
      ? `${jobs.total} job(s)` + (jobs.total ? " · " + Object.entries(jobs.by_status).map(([k, v]) => `${v} ${k}`).join(", ") : "")
      : "unavailable";
  }

  // -- Wiki tree and page detail -------------------------------------------------------------
  // a protected page is named by what it is and when it was recorded, never by a cut-off id
  const day = (iso) => (iso ? iso.slice(0, 10) : "unknown date");
  function pageLabel(p) { return p.redacted ? `protected ${p.type} · created ${day(p.recorded_at || p.observed_at)}` : p.title; }

  function renderTree(items, heading) {
    const tree = $("#wiki-tree");
    if (!items.length) return fill(tree, h("p", { class: "empty" }, heading ? "No matches." : "No pages yet."));
    const groups = {};
    for (const p of items) (groups[p.type] = groups[p.type] || []).push(p);
    const out = heading ? [h("h4", {}, heading)] : [];
    for (const type of PAGE_TYPES) {
      if (!groups[type]) continue;
      out.push(h("h4", {}, `${type} · ${groups[type].length}`));
      for (const p of groups[type]) {
        out.push(h("button", {
          // a protected page's label gets its own line so it is never cut off
          type: "button", class: "item" + (p.redacted ? " two" : "") + (p.id === state.pageId ? " selected" : ""), dataset: { page: p.id },
          onclick: () => openPage(p.id),
        }, h("span", { class: "title" }, p.redacted  // the date stays on one line when the label wraps
          ? [`protected ${p.type} · created `, h("span", { class: "nowrap" }, day(p.recorded_at || p.observed_at))]
          : pageLabel(p)),
        h("span", { class: "sub" }, p.status === "confirmed" ? (p.redacted ? p.sensitivity : "v" + p.version) : p.status)));
      }
    }
    fill(tree, out);
  }

  async function openPage(id, reveal) {
    state.pageId = id;
    showTab("wiki");
    document.querySelectorAll("#wiki-tree .item").forEach((b) => b.classList.toggle("selected", b.dataset.page === id));
    try {
      const page = await api("GET", `/wiki/pages/${encodeURIComponent(id)}${reveal ? "?reveal=sensitive" : ""}`);
      renderPage(page);
    } catch (err) { failed(err); }
  }

  function renderPage(p) {
    const detail = $("#page-detail");
    const contested = state.wiki && state.wiki.pages.find((x) => x.id === p.id && x.contested);
    const parts = [h("h2", { id: "page-title" }, pageLabel(p)), pageBadges({ ...p, contested: !!contested })];
    const kv = [["id", p.id], ["version", p.version], ["recorded", when(p.recorded_at)], ["observed", when(p.observed_at)]];
    if (p.valid_from || p.valid_to) kv.push(["valid", `${when(p.valid_from)} → ${p.valid_to ? when(p.valid_to) : "now"}`]);
    if (!p.redacted) {
      if (p.description) kv.push(["description", p.description]);
      if (p.confidence !== null && p.confidence !== undefined) kv.push(["confidence", p.confidence]);
      if (p.kind) kv.push(["kind", p.kind]);
      if (p.category) kv.push(["category", p.category]);
      if (p.tags && p.tags.length) kv.push(["tags", p.tags.join(", ")]);
      if (p.supersedes) kv.push(["supersedes", p.supersedes]);
      if (p.superseded_by) kv.push(["superseded by", p.superseded_by]);
      for (const [k, v] of Object.entries(p.extra || {})) kv.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
    } else {
      kv.push(["sources", p.source_count], ["tags", p.tag_count], ["body", `${p.body_line_count} line(s), ${p.body_byte_count} bytes`]);
    }
    parts.push(h("h3", {}, "Frontmatter"), h("dl", { class: "kv" }, kv.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
    if (p.redacted) {
      parts.push(h("div", { class: "redacted" },
        "This page is protected. Its text is withheld; only an owner-admin token may reveal it, and every reveal is audited."),
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => openPage(p.id, true) }, "Reveal (owner admin)")));
      return fill(detail, parts);
    }
    parts.push(h("h3", {}, "Body"), h("pre", { class: "body", id: "page-body" }, p.body || p.description || "(empty)"));
    parts.push(h("h3", {}, "Sources"), p.sources.length
      ? h("ul", { class: "list mono" }, p.sources.map((s) => h("li", {}, s))) : h("p", { class: "empty" }, "none recorded"));
    parts.push(h("h3", {}, "Links"), p.links.length
      ? h("ul", { class: "list" }, p.links.map((l) => h("li", {}, (l.rel ? l.rel + " → " : "→ ") + l.target)))
      : h("p", { class: "empty" }, "no [[links]]"));
    parts.push(pageActions(p));
    fill(detail, parts);
  }

  function pageActions(p) {
    const editor = h("div", { class: "editor" });
    const openEditor = () => {
      const area = h("textarea", { rows: 6 }, p.body || p.description || "");
      fill(editor, area, h("div", { class: "actions" },
        h("button", { type: "button", onclick: () => act("Page corrected.", () => api("PUT", `/wiki/pages/${p.id}`, { content: area.value })).then(() => openPage(p.id)) }, "Save correction"),
        h("button", { type: "button", class: "ghost", onclick: () => fill(editor) }, "Cancel")));
    };
    const level = h("select", {}, ["normal", "provisional_sensitive", "sensitive"].map((s) => h("option", { value: s, selected: s === p.sensitivity }, s)));
    const live = p.status === "confirmed";
    return h("div", {},
      h("div", { class: "actions" },
        live ? h("button", { type: "button", onclick: openEditor }, "Edit") : null,
        level,
        h("button", { type: "button", class: "ghost", onclick: () => act("Sensitivity set.", () => api("PUT", `/wiki/pages/${p.id}`, { sensitivity: level.value })).then(() => openPage(p.id)) }, "Set sensitivity"),
        live && p.usage_policy !== "suppressed" ? h("button", { type: "button", class: "ghost", onclick: () => act("Page suppressed.", () => api("POST", `/wiki/pages/${p.id}/suppress`, {})).then(() => openPage(p.id)) }, "Suppress") : null,
        p.usage_policy === "suppressed" ? h("button", { type: "button", class: "ghost", onclick: () => act("Page restored.", () => api("POST", `/wiki/pages/${p.id}/restore`, {})).then(() => openPage(p.id)) }, "Restore") : null,
        live ? h("button", { type: "button", class: "ghost", onclick: () => act("Page superseded.", () => api("POST", `/wiki/pages/${p.id}/supersede`, {})).then(() => openPage(p.id)) }, "Supersede") : null,
        h("button", { type: "button", class: "danger", onclick: () => {
          if (window.confirm("Forget this page? Derived memory is removed; raw session evidence is kept.")) {
            act("Page forgotten (raw evidence retained).", () => api("DELETE", `/wiki/pages/${p.id}`)).then(() => fill($("#page-detail"), h("p", { class: "empty" }, "Page forgotten.")));
          }
        } }, "Forget")),
      editor);
  }

  // -- graph -----------------------------------------------------------------------------------
  function layout(nodes, edges, width, height) {
    // A small, bounded force layout: deterministic start on a circle, fixed iteration count.
    const n = nodes.length;
    const pos = nodes.map((_, i) => ({ x: width / 2 + Math.cos((2 * Math.PI * i) / Math.max(n, 1)) * width * 0.35,
      y: height / 2 + Math.sin((2 * Math.PI * i) / Math.max(n, 1)) * height * 0.35 }));
    const index = new Map(nodes.map((node, i) => [node.id, i]));
    const links = edges.map((e) => [index.get(e.source), index.get(e.target)]).filter(([a, b]) => a !== undefined && b !== undefined);
    const k = Math.min(Math.sqrt((width * height) / Math.max(n, 1)) * 0.4, 150);
    for (let step = 0; step < 200; step++) {
      const disp = pos.map(() => ({ x: 0, y: 0 }));
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        const dx = pos[i].x - pos[j].x, dy = pos[i].y - pos[j].y, d = Math.max(Math.hypot(dx, dy), 0.01);
        const f = (k * k) / d;
        disp[i].x += (dx / d) * f; disp[i].y += (dy / d) * f; disp[j].x -= (dx / d) * f; disp[j].y -= (dy / d) * f;
      }
      for (const [a, b] of links) {
        const dx = pos[a].x - pos[b].x, dy = pos[a].y - pos[b].y, d = Math.max(Math.hypot(dx, dy), 0.01);
        const f = (d * d) / k;
        disp[a].x -= (dx / d) * f; disp[a].y -= (dy / d) * f; disp[b].x += (dx / d) * f; disp[b].y += (dy / d) * f;
      }
      for (let i = 0; i < n; i++) {  // gravity keeps separate components near the centre
        disp[i].x += (width / 2 - pos[i].x) * 0.008 * k;
        disp[i].y += (height / 2 - pos[i].y) * 0.008 * k;
      }
      const t = 20 * (1 - step / 200) + 1;
      for (let i = 0; i < n; i++) {
        const d = Math.max(Math.hypot(disp[i].x, disp[i].y), 0.01);
        pos[i].x = Math.min(width - 60, Math.max(60, pos[i].x + (disp[i].x / d) * Math.min(d, t)));
        pos[i].y = Math.min(height - 30, Math.max(30, pos[i].y + (disp[i].y / d) * Math.min(d, t)));
      }
    }
    return pos;
  }

  async function loadGraph() {
    const g = await api("GET", "/wiki/graph");
    const root = $("#graph");
    const [width, height] = [960, 560];
    if (!g.nodes.length) {
      fill(root, svg("text", { x: 20, y: 30 }));
      root.firstChild.textContent = "No pages yet.";
    } else {
      const pos = layout(g.nodes, g.edges, width, height);
      const at = new Map(g.nodes.map((node, i) => [node.id, { ...pos[i], r: node.broken ? 6 : 9 }]));
      const defs = svg("defs", {});
      for (const [rel, color] of Object.entries(REL_COLORS)) {  // one arrowhead per relation colour
        const marker = svg("marker", { id: "arrow-" + rel, viewBox: "0 0 10 10", refX: 9, refY: 5,
          markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse", markerUnits: "userSpaceOnUse" });
        marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: color }));
        defs.append(marker);
      }
      const items = [defs];
      const pairs = new Set(g.edges.map((e) => e.source + "\u0000" + e.target));
      for (const e of g.edges) {
        const a = at.get(e.source), b = at.get(e.target);
        if (!a || !b) continue;
        const rel = e.broken ? "broken" : REL_COLORS[e.rel || "link"] ? e.rel || "link" : "link";
        // end the line at the target's rim so the arrowhead stays visible; a link and its reverse
        // are drawn side by side rather than on top of each other
        const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1, cut = (b.r + 2) / len;
        const side = pairs.has(e.target + "\u0000" + e.source) ? 3 : 0, ox = (-dy / len) * side, oy = (dx / len) * side;
        items.push(svg("line", { x1: a.x + ox, y1: a.y + oy, x2: b.x - dx * cut + ox, y2: b.y - dy * cut + oy, stroke: REL_COLORS[rel],
          "stroke-width": 2, "stroke-dasharray": e.broken ? "4 3" : "none", "marker-end": `url(#arrow-${rel})`,
          class: "edge", "data-rel": rel }));
      }
      g.nodes.forEach((node, i) => {
        const c = svg("circle", { cx: pos[i].x, cy: pos[i].y, r: node.broken ? 6 : 9,
          fill: TYPE_COLORS[node.broken ? "missing" : node.type] || "#5f6b7a" });
        const label = svg("text", { x: pos[i].x + 12, y: pos[i].y + 4 });
        label.textContent = node.redacted ? "protected " + (node.type || "") : node.title || node.id;
        const tip = svg("title", {});
        tip.textContent = node.redacted ? node.id : `${node.title} (${node.type || "missing"})`;
        c.append(tip);
        if (!node.broken) c.addEventListener("click", () => openPage(node.id));
        items.push(c, label);
      });
      fill(root, items);
    }
    const legend = [];
    for (const [rel, color] of Object.entries(REL_COLORS)) {
      const s = h("span", {}, rel === "link" ? "plain [[link]]" : rel === "broken" ? "broken link" : rel);
      s.style.setProperty("--swatch", color);
      legend.push(s);
    }
    for (const type of PAGE_TYPES) {
      const s = h("span", { class: "node" }, type);
      s.style.setProperty("--swatch", TYPE_COLORS[type]);
      legend.push(s);
    }
    fill($("#legend"), legend);
  }

  // -- candidates and conflicts ------------------------------------------------------------------
  async function loadCandidates() {
    const [c, k] = await Promise.all([api("GET", "/candidates"), api("GET", "/conflicts?state=contested")]);
    const box = $("#candidates");
    if (!c.candidates.length) fill(box, h("p", { class: "empty" }, "No candidates are waiting for review."));
    else fill(box, c.candidates.map(candidateCard));
    const kbox = $("#conflicts");
    if (!k.conflicts.length) fill(kbox, h("p", { class: "empty" }, "No contested pages."));
    else fill(kbox, k.conflicts.map(conflictCard));
  }

  function candidateCard(c) {
    const conflict = c.status === "pending_conflict";
    return h("article", { class: "card cand", dataset: { candidate: c.id } },
      h("h3", {}, c.redacted ? `Protected ${c.type} candidate` : c.title),
      h("div", { class: "badges" }, h("span", { class: "badge info" }, c.type), sensitivityBadge(c.sensitivity),
        h("span", { class: "badge" + (conflict ? " bad" : "") }, conflict ? "contradicts a page" : c.status),
        c.source ? h("span", { class: "badge" }, c.source) : null,
        c.confidence !== null && c.confidence !== undefined ? h("span", { class: "badge" }, "confidence " + c.confidence) : null),
      c.redacted ? h("p", { class: "redacted" }, `${c.body_line_count} line(s), ${c.body_byte_count} bytes withheld`)
        : h("p", {}, c.description || c.body || ""),
      !c.redacted && c.evidence.length ? h("p", { class: "note mono evidence" }, c.evidence.map(evidenceLink)) : null,
      h("p", { class: "note" }, "proposed " + when(c.created_at)),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "confirm", disabled: conflict,
          onclick: () => act("Candidate confirmed: it is now a canonical page.", () => api("POST", `/candidates/${c.id}/confirm`)) }, "Confirm"),
        h("button", { type: "button", class: "ghost reject",
          onclick: () => act("Candidate rejected.", () => api("POST", `/candidates/${c.id}/reject`)) }, "Reject")));
  }

  // "session:<id>/event:<seq>" opens the evidence viewer at that line
  const REF = /^session:([^/\s]+)\/event:(\d+)$/;
  function evidenceLink(ref) {
    const m = REF.exec(ref);
    if (!m) return h("span", {}, ref + " ");
    return [h("a", { href: "#", class: "evref", dataset: { session: m[1], seq: m[2] }, title: "open in the evidence viewer",
      onclick: (ev) => { ev.preventDefault(); showTab("sessions"); openSession(m[1], false, Number(m[2])); } }, ref), " "];
  }

  function conflictCard(k) {
    const resolve = (resolution) => act(`Conflict resolved (${resolution}).`,
      () => api("POST", `/conflicts/${k.id}/resolve`, { resolution }));
    return h("article", { class: "card cand" },
      h("h3", {}, k.subject || k.id),
      h("p", { class: "note" }, `page ${short(k.page_id)} is contested by candidate ${short(k.candidate_id)}`),
      h("div", { class: "buttons" },
        h("button", { type: "button", onclick: () => resolve("correction") }, "Correct the page"),
        h("button", { type: "button", class: "ghost", onclick: () => resolve("temporal_transition") }, "It changed over time"),
        h("button", { type: "button", class: "ghost", onclick: () => resolve("management") }, "Keep both")));
  }

  // -- sessions and evidence -------------------------------------------------------------------
  async function loadSessions() {
    const s = await api("GET", "/sessions");
    const list = $("#session-list");
    if (!s.sessions.length) return fill(list, h("p", { class: "empty" }, "No sessions ingested yet."));
    fill(list, s.sessions.map((row) => h("button", {
      type: "button", class: "item two" + (row.session_id === state.sessionId ? " selected" : ""),
      dataset: { session: row.session_id }, onclick: () => openSession(row.session_id),
    }, h("span", { class: "title" }, when(row.created_at).slice(0, 16) + " UTC"),
    h("span", { class: "sub" }, `${row.event_count} events · ${row.user_event_count} from the user · ${short(row.session_id)}`))));
  }

  async function openSession(id, reveal, seq) {
    state.sessionId = id;
    document.querySelectorAll("#session-list .item").forEach((b) => b.classList.toggle("selected", b.dataset.session === id));
    try {
      const d = await api("GET", `/sessions/${encodeURIComponent(id)}${reveal ? "?reveal=sensitive" : ""}`);
      const c = d.classification_counts;
      fill($("#session-detail"),
        h("h2", {}, "Session " + id),
        h("dl", { class: "kv" },
          h("dt", {}, "lines"), h("dd", {}, d.line_count),
          h("dt", {}, "bytes"), h("dd", {}, d.byte_count),
          h("dt", {}, "sha-256"), h("dd", { class: "mono" }, d.sha256),
          h("dt", {}, "classified"), h("dd", {}, `${c.normal} normal · ${c.provisional_sensitive} provisional · ${c.sensitive} sensitive · ${c.unclassified} unclassified`)),
        h("div", { class: "actions" }, d.revealed ? h("span", { class: "badge bad" }, "revealed (audited)")
          : h("button", { type: "button", class: "ghost", onclick: () => openSession(id, true) }, "Reveal hidden lines (owner admin)")),
        h("h3", {}, "Evidence"),
        h("div", { class: "lines" }, d.lines.map((l) => h("div", { class: "line" + (l.is_user ? " user" : "") + (l.seq === seq ? " target" : ""),
          dataset: { seq: l.seq } },
          h("span", { class: "seq" }, l.seq),
          h("span", { class: "kind" }, l.role && !l.type.startsWith(l.role + "/") ? `${l.role} · ${l.type}` : l.type),
          l.hidden ? h("span", { class: "hidden" }, `hidden · ${l.sensitivity} · ${l.byte_count} bytes`)
            : h("span", { class: "text" }, l.text || "")))));
      const target = seq === undefined ? null : document.querySelector(`#session-detail .line[data-seq="${seq}"]`);
      if (target) target.scrollIntoView({ block: "center" });
    } catch (err) { failed(err); }
  }

  // -- audits, settings --------------------------------------------------------------------------
  async function loadAudits() {
    const kind = $("#audit-kind").value.trim();
    const a = await api("GET", "/audits?limit=200" + (kind ? "&kind=" + encodeURIComponent(kind) : ""));
    const rows = a.audits.slice().reverse();
    fill($("#audits"), h("thead", {}, h("tr", {}, ["#", "when", "kind", "authority", "target", "detail"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows.map((r) => h("tr", {},
        h("td", {}, r.id), h("td", {}, when(r.recorded_at)), h("td", {}, r.kind), h("td", {}, r.authority),
        h("td", { class: "mono" }, short(r.target)), h("td", { class: "mono", title: JSON.stringify(r.detail) }, r.detail ? JSON.stringify(r.detail) : "")))));
  }

  async function loadSettings() {
    const cfg = await api("GET", "/config");
    $("#set-provider").value = cfg.dream_provider;
    $("#set-url").value = cfg.dream_api_url;
    $("#set-model").value = cfg.dream_model;
    $("#set-max").value = cfg.dream_max_tokens;
    $("#set-ref").value = cfg.dream_credential_ref;
    $("#cred-status").textContent = cfg.credentials.dream.present
      ? `${cfg.credentials.dream.ref} is set in the server's environment.`
      : `${cfg.credentials.dream.ref} is not set in the server's environment.`;
    const facts = [["profile", cfg.profile], ["authentication", cfg.auth_mode], ["scope binding", cfg.scope_binding],
      ["owner admin", cfg.owner_admin ? "yes" : "no"], ["recall", cfg.recall_enabled ? "enabled" : "disabled"],
      ["purge", cfg.purge_enabled ? "enabled" : "disabled"], ["API path", cfg.api_path]];
    fill($("#conn-facts"), facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  }

  // -- tabs and refresh -----------------------------------------------------------------------
  const loaders = { graph: loadGraph, candidates: loadCandidates, sessions: loadSessions, audits: loadAudits, settings: loadSettings };

  function showTab(name) {
    state.tab = name;
    document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
    document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.id === "tab-" + name));
    if (loaders[name] && creds.profile) loaders[name]().catch(failed);
  }

  async function refresh() {
    const [w, r] = await Promise.all([api("GET", "/wiki"), api("GET", "/resident")]);
    state.wiki = w;
    renderCounts(w);
    renderResident(r);
    renderDream(w.dream);
    renderTree(w.pages);
    if (loaders[state.tab]) await loaders[state.tab]();
  }

  async function connect() {
    try {
      const cfg = await api("GET", "/config");
      status(`Connected to profile ${cfg.profile} · ${cfg.auth_mode}` + (cfg.owner_admin ? " · owner admin" : ""), "ok");
      await refresh();
    } catch (err) { failed(err); }
  }

  function init() {
    const typeSelect = $("#new-type");
    fill(typeSelect, PAGE_TYPES.map((t) => h("option", { value: t, selected: t === "concept" }, t)));
    $("#profile").value = creds.profile;
    $("#token").value = creds.token;
    $("#auth").addEventListener("submit", (ev) => {
      ev.preventDefault();
      creds.profile = $("#profile").value.trim();
      creds.token = $("#token").value.trim();
      connect();
    });
    $("#clear-token").addEventListener("click", () => { creds.token = ""; $("#token").value = ""; status("Token cleared from this tab."); });
    $("#tabs").addEventListener("click", (ev) => { const b = ev.target.closest("button"); if (b) showTab(b.dataset.tab); });
    $("#dream-run").addEventListener("click", () => act("Dream queued.", () => api("POST", "/dream", {})));
    $("#search").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const q = $("#search-q").value.trim();
      if (!q) return renderTree(state.wiki ? state.wiki.pages : []);
      try {
        const res = await api("GET", "/wiki/search?hop=1&q=" + encodeURIComponent(q));
        renderTree(res.results, `Results for “${q}”`);
      } catch (err) { failed(err); }
    });
    $("#new-page").addEventListener("submit", (ev) => {
      ev.preventDefault();
      act("Page created.", () => api("POST", "/wiki/pages", { title: $("#new-title").value, type: $("#new-type").value, body: $("#new-body").value })
        .then((p) => { state.pageId = p.id; ev.target.reset(); }));
    });
    $("#audit-filter").addEventListener("submit", (ev) => { ev.preventDefault(); loadAudits().catch(failed); });
    $("#settings").addEventListener("submit", (ev) => {
      ev.preventDefault();
      act("Dream settings saved.", () => api("POST", "/config", {
        dream_provider: $("#set-provider").value, dream_api_url: $("#set-url").value, dream_model: $("#set-model").value,
        dream_max_tokens: Number($("#set-max").value), dream_credential_ref: $("#set-ref").value,
      }));
    });
    if (creds.profile) connect();
  }

  init();
})();
