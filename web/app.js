// Steward dashboard: polls the JSON API (docs/api.md) and draws plain SVG and canvas.
// No framework and no network beyond the serving Steward, so it works offline.
"use strict";

const POLL_MS = 1000;
const $ = (sel) => document.querySelector(sel);
const fmtInt = (v) => Number(v).toLocaleString("en-US");
const fmtPct = (v) => (100 * v).toFixed(1) + "%";
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

// Simulated time as day and hour: "d2 06:30" (hours since the scenario's start).
function fmtSim(hours, withMinutes = true) {
  const totalMin = Math.round(hours * 60);
  const d = Math.floor(totalMin / 1440), h = Math.floor((totalMin % 1440) / 60), m = totalMin % 60;
  return `d${d} ${String(h).padStart(2, "0")}` + (withMinutes ? `:${String(m).padStart(2, "0")}` : "h");
}
// A duration in simulated seconds as "3d 4h", "5h 12m" or "40m".
function fmtDuration(seconds) {
  const m = Math.floor(seconds / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
  if (d > 0) return `${d}d ${h % 24}h`;
  if (h > 0) return `${h}h ${m % 60}m`;
  return `${m}m`;
}

async function api(path, options) {
  const res = await fetch(path, Object.assign({cache: "no-store"}, options || {}));
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) {
    const msg = body && body.error ? body.error.message : res.status + " " + res.statusText;
    throw new Error(msg);
  }
  return body;
}

// ---- Overview ------------------------------------------------------------------------------

function renderOverview(o) {
  for (const el of document.querySelectorAll("#counters [data-key]")) {
    const v = o[el.dataset.key];
    el.dataset.value = String(v);
    el.textContent = el.dataset.format === "pct" ? fmtPct(v) : fmtInt(v);
  }
  $("#counters").dataset.version = String(o.version);
  const clock = fmtSim(Math.floor(o.sim_time / 60) / 60);
  $("#clock").innerHTML = `${esc(o.scenario)} &middot; <span id="sim-time" data-value="${o.sim_time}">${clock}</span>` +
    ` &middot; ${fmtInt(o.gpus_total)} GPUs &middot; speed ${o.speed}&times;` +
    (o.finished ? ' <span class="badge" id="finished">horizon reached</span>' : "");
  const reasons = Object.entries(o.pending_by_reason || {});
  $("#reasons").innerHTML = reasons.length
    ? reasons.map(([r, n]) => `<span class="chip">${esc(r)}: ${fmtInt(n)}</span>`).join("")
    : '<span class="chip">none</span>';
}

// ---- Time series -----------------------------------------------------------------------------

// Tick spacing (hours) for about 8 ticks: minutes, hours, days.
const TICK_STEPS = [1 / 60, 5 / 60, 10 / 60, 0.25, 0.5, 1, 2, 3, 6, 12, 24, 48, 96, 168, 336];
const MARKER_COLORS = {fault: "#d83b3b", cordon: "#f0a020", uncordon: "#2e9e6b", quota: "#7a5af8"};

// `now` (hours): the twin's time, so markers of a twin standing at its horizon still show.
function renderChart(points, markers, now) {
  const svg = $("#chart");
  const W = Math.max(300, svg.clientWidth || 900), H = 240, L = 40, R = 10, T = 14, B = 24;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const parts = [];
  for (let i = 0; i <= 4; i++) {
    const y = T + (H - T - B) * (1 - i / 4);
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#e4e8ef"/>`);
    parts.push(`<text x="${L - 6}" y="${y + 4}" text-anchor="end" font-size="11" fill="#667085">${i * 25}%</text>`);
  }
  let shown = 0;
  if (points.length > 0) {
    const x0 = points[0].hours, x1 = Math.max(points[points.length - 1].hours, now || 0, x0 + 1e-9);
    const X = (h) => L + (W - L - R) * (h - x0) / (x1 - x0);
    const Y = (v) => T + (H - T - B) * (1 - Math.max(0, Math.min(1, v)));
    // Time axis: ticks at round simulated times, labelled day and hour.
    const step = TICK_STEPS.find((s) => (x1 - x0) / s <= 8) || TICK_STEPS[TICK_STEPS.length - 1];
    for (let h = Math.ceil(x0 / step - 1e-9) * step; h <= x1 + 1e-9; h += step) {
      const x = X(h);
      const day = Math.abs(h / 24 - Math.round(h / 24)) < 1e-9;
      parts.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${T}" y2="${H - B}" stroke="${day ? "#c3cad6" : "#eef1f5"}"/>`);
      parts.push(`<text class="tick" x="${x.toFixed(1)}" y="${H - 6}" text-anchor="middle" font-size="11" fill="#667085">${fmtSim(h, step < 1)}</text>`);
    }
    // Markers under the lines: one vertical line per change, its subjects in the tooltip.
    for (const m of markers || []) {
      if (m.hours < x0 || m.hours > x1 + 1e-9) continue;
      const x = X(m.hours).toFixed(1), c = MARKER_COLORS[m.kind] || "#667085";
      const more = m.count > m.subjects.length && m.kind !== "fault" ? ` and ${m.count - m.subjects.length} more` : "";
      const what = `${m.kind} at ${fmtSim(m.hours)}: ${m.subjects.join(", ")}${more}` +
        (m.kind === "fault" ? ` (${m.count} GPU${m.count === 1 ? "" : "s"})` : "");
      parts.push(`<g class="marker" data-kind="${esc(m.kind)}" data-hours="${m.hours}"><title>${esc(what)}</title>` +
        `<line x1="${x}" x2="${x}" y1="${T}" y2="${H - B}" stroke="${c}" stroke-width="1.5" stroke-dasharray="3,2" opacity="0.8"/>` +
        `<path d="M${x} ${T} l-4 -7 h8 z" fill="${c}"/></g>`);
      shown++;
    }
    const line = (key, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="` +
      points.map((p) => X(p.hours).toFixed(1) + "," + Y(p[key]).toFixed(1)).join(" ") + '"/>';
    parts.push(line("allocation", "#2f6fd6"), line("busy", "#8e6cd8"), line("sm_active", "#19a974"));
  }
  svg.innerHTML = parts.join("");
  svg.dataset.markers = String(shown);
}

// ---- Heatmap ---------------------------------------------------------------------------------

const COLORS = {i: "#c9d3e0", f: "#d83b3b", c: "#f0a020", u: "#2f6fd6"};
// Cell sizes (px per GPU) of the zoom levels; level 0 draws one tile per rack with its totals.
const CELL_SIZES = [0, 2, 3, 4, 6, 8, 12, 16, 24];
const MAX_AUTO_HEIGHT = 420;     // The fit level keeps the whole cluster within this height.
const MAX_DRAWN_GPUS = 40000;    // Beyond this, fit draws racks, not GPUs.
const RACK_LABEL = 11;           // Height of a rack's label row.
const MAX_CANVAS = 30000;        // Browsers refuse bigger canvases; zoom stops short of it.
let layout = null;    // Per-GPU levels: one cell per node {x, y, w, h, node, rack}, for hover and click.
let rackLayout = null;  // Every level: one box per rack {x, y, w, h, rack}.
// zoom: the chosen level (null = fit); focus: the rack (and node) found or clicked; scrollTo: a
// rack to scroll to once it is drawn per GPU.
let heat = {zoom: null, racks: [], focus: null, level: 0, scrollTo: null};

function inUseColor(share) {
  // From light blue (allocated, idle SMs) to deep blue (fully SM-active).
  const t = Math.max(0, Math.min(1, share));
  const a = [150, 185, 240], b = [20, 70, 170];
  return `rgb(${a.map((v, k) => Math.round(v + (b[k] - v) * t)).join(",")})`;
}

function gpusTotal(racks) {
  return racks.reduce((a, r) => a + r.gpus_total, 0);
}

// The level "fit" draws: the biggest cells that keep every rack within MAX_AUTO_HEIGHT, or
// per-rack tiles when even 2 px per GPU does not fit (or there are too many GPUs to draw).
function fitLevel(racks, W) {
  if (gpusTotal(racks) > MAX_DRAWN_GPUS) return 0;
  const shape = rackShape(racks);
  for (let l = CELL_SIZES.length - 1; l >= 1; l--) {
    const g = geometry(racks.length, shape, CELL_SIZES[l], W);
    if (g.H <= MAX_AUTO_HEIGHT) return l;
  }
  return 0;
}

function rackShape(racks) {
  let nodes = 1, gpus = 1;
  for (const r of racks) {
    nodes = Math.max(nodes, r.nodes_total);
    if (r.nodes) for (const n of r.nodes) gpus = Math.max(gpus, n.gpus.length);
    else gpus = Math.max(gpus, Math.ceil(r.gpus_total / Math.max(1, r.nodes_total)));
  }
  return {nodes, gpus};
}

function geometry(count, shape, c, W) {
  const gap = c >= 6 ? 8 : 5;
  const bw = c === 0 ? 44 : shape.gpus * c, bh = c === 0 ? 16 : shape.nodes * c;
  const perRow = Math.max(1, Math.floor((W + gap) / (bw + gap)));
  const rows = Math.ceil(count / perRow);
  return {gap, bw, bh, perRow, rows, H: Math.max(20, rows * (bh + RACK_LABEL + gap))};
}

// The drawing width: the scrolling frame's, less its padding.
const heatWidth = () => Math.max(200, ($("#heatmap-scroll").clientWidth || 908) - 8);

function drawHeatmap() {
  const racks = heat.racks;
  const canvas = $("#heatmap");
  const W = heatWidth();
  const shape = rackShape(racks);
  let level = heat.zoom === null ? fitLevel(racks, W) : heat.zoom;
  while (level > 1 && geometry(racks.length, shape, CELL_SIZES[level], W).H > MAX_CANVAS) level--;
  // Racks fetched without nodes (per-rack tiles) until the next poll brings them.
  if (racks.some((r) => !r.nodes)) level = 0;
  heat.level = level;
  const c = CELL_SIZES[level];
  const g = geometry(racks.length, shape, c, W);
  const dpr = window.devicePixelRatio || 1;
  canvas.style.height = g.H + "px";
  canvas.style.width = W + "px";
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(g.H * dpr);
  canvas.dataset.mode = c === 0 ? "racks" : "gpus";
  canvas.dataset.level = String(level);
  $("#zoom-level").textContent = (heat.zoom === null ? "fit: " : "") + (c === 0 ? "per rack" : `${c} px/GPU`);
  $("#heatmap-mode").textContent = c === 0
    ? `${racks.length} racks, one tile each (in use / idle / faulty / cordoned shares); click a rack to zoom in`
    : "racks × nodes × GPUs; click a node for its GPUs";
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, g.H);
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  const inner = c >= 4 ? 1 : 0;  // Gaps between GPUs when cells are big enough.
  const cells = [], boxes = [];
  racks.forEach((r, ri) => {
    const rx = (ri % g.perRow) * (g.bw + g.gap), ry = Math.floor(ri / g.perRow) * (g.bh + RACK_LABEL + g.gap);
    const by = ry + RACK_LABEL;
    const focused = heat.focus && heat.focus.rack === r.rack;
    ctx.fillStyle = focused ? "#1d2330" : "#667085";
    ctx.fillText(c === 0 || g.bw >= 22 ? `r${r.rack}` : "", rx, ry, g.bw + g.gap);
    boxes.push({x: rx, y: by, w: g.bw, h: g.bh, rack: r.rack, data: r});
    if (c === 0) {
      // One tile: the rack's GPU states as stacked shares, left to right.
      let x = rx;
      for (const [key, color] of [["gpus_in_use", COLORS.u], ["gpus_idle", COLORS.i], ["gpus_faulty", COLORS.f], ["gpus_cordoned", COLORS.c]]) {
        const w = g.bw * r[key] / Math.max(1, r.gpus_total);
        ctx.fillStyle = color;
        ctx.fillRect(x, by, w, g.bh);
        x += w;
      }
    } else {
      r.nodes.forEach((n, ni) => {
        const used = [...n.gpus].filter((s) => s === "u").length;
        const share = used > 0 ? n.sm_active / used : 0;
        for (let k = 0; k < n.gpus.length; k++) {
          const s = n.gpus[k];
          ctx.fillStyle = s === "u" ? inUseColor(share) : (COLORS[s] || "#000");
          ctx.fillRect(rx + k * c, by + ni * c, c - inner, c - inner);
        }
        cells.push({x: rx, y: by + ni * c, w: n.gpus.length * c, h: c, node: n, rack: r.rack});
        if (heat.focus && heat.focus.node === n.name) {
          ctx.strokeStyle = "#111";
          ctx.lineWidth = 2;
          ctx.strokeRect(rx - 1, by + ni * c - 1, n.gpus.length * c + 2, c + 2);
        }
      });
    }
    if (focused && !heat.focus.node) {
      ctx.strokeStyle = "#111";
      ctx.lineWidth = 2;
      ctx.strokeRect(rx - 1.5, by - 1.5, g.bw + 3, g.bh + 3);
    }
  });
  layout = c === 0 ? null : cells;
  rackLayout = boxes;
  if (heat.scrollTo !== null && c > 0) {
    scrollToRack(heat.scrollTo);
    heat.scrollTo = null;
  }
}

function renderHeatmap(racks) {
  heat.racks = racks;
  drawHeatmap();
}

// The heatmap's level as the next poll should ask for it: nodes are only fetched when drawn.
function heatmapWantsNodes() {
  if (heat.zoom !== null) return heat.zoom > 0;
  if (!heat.racks.length) return true;
  return fitLevel(heat.racks, heatWidth()) > 0;
}

function pointAt(ev) {
  const rect = $("#heatmap").getBoundingClientRect();
  return {x: ev.clientX - rect.left, y: ev.clientY - rect.top};
}
const inside = (p, k) => p.x >= k.x && p.x < k.x + k.w && p.y >= k.y && p.y < k.y + k.h;

function nodeAt(ev) {
  if (!layout) return null;
  const p = pointAt(ev);
  return layout.find((k) => inside(p, k)) || null;
}

function rackAt(ev) {
  if (!rackLayout) return null;
  const p = pointAt(ev);
  return rackLayout.find((k) => inside(p, {x: k.x, y: k.y - RACK_LABEL, w: k.w, h: k.h + RACK_LABEL})) || null;
}

function scrollToRack(rack) {
  const box = rackLayout && rackLayout.find((b) => b.rack === rack);
  if (box) $("#heatmap-scroll").scrollTop = Math.max(0, box.y - 40);
}

function setZoom(level) {
  heat.zoom = level === null ? null : Math.max(0, Math.min(CELL_SIZES.length - 1, level));
  drawHeatmap();
  refresh();
}

// "h100-0042", "rack-12", "r12" or "12": a node (opens its panel) or a rack (highlighted).
async function search(text) {
  const q = text.trim();
  if (!q) return;
  const m = q.match(/^(?:rack-|r)?(\d+)$/);
  if (m) {
    const rack = Number(m[1]);
    if (!heat.racks.some((r) => r.rack === rack)) return showSearch(`no rack ${rack}`, false);
    heat.focus = {rack};
    if (heat.level === 0) heat.zoom = CELL_SIZES.length - 1;
    heat.scrollTo = rack;
    showSearch(`rack ${rack}`, true);
  } else {
    let node;
    try {
      node = await api(`/api/nodes/${encodeURIComponent(q)}`);
    } catch (e) {
      return showSearch(`no node named ${q}`, false);
    }
    heat.focus = {rack: node.rack, node: node.name};
    if (heat.level === 0) heat.zoom = CELL_SIZES.length - 1;
    heat.scrollTo = node.rack;
    showSearch(`${node.name} in rack ${node.rack}`, true);
    openNode(node.name);
  }
  drawHeatmap();
  await refresh();
}

function showSearch(text, ok) {
  const el = $("#search-result");
  el.textContent = text;
  el.className = ok ? "note" : "note err";
}

// ---- Node panel --------------------------------------------------------------------------------

let openNodeName = null;

function openNode(name) {
  openNodeName = name;
  $("#node-panel").hidden = false;
  $("#node-name").value = name;
  loadNode();
}

async function loadNode() {
  if (!openNodeName) return;
  try {
    renderNode(await api(`/api/nodes/${encodeURIComponent(openNodeName)}`));
  } catch (e) {
    $("#node-note").textContent = e.message;
  }
}

const num = (v, digits = 0) => v === null || v === undefined ? "&ndash;" : Number(v).toFixed(digits);

function renderNode(n) {
  const panel = $("#node-panel");
  panel.dataset.node = n.name;
  $("#node-form").dataset.rack = String(n.rack);
  $("#node-title").textContent = n.name;
  $("#node-sub").textContent = `rack ${n.rack} · pool ${n.pool} · ${n.gpu_model} · ` +
    (n.cordoned ? "cordoned · " : "") + `remediation ${n.remediation} · ${n.workloads.length} workload` +
    (n.workloads.length === 1 ? "" : "s");
  setHtml($("#node-gpus tbody"), n.gpu_details.map((g) => {
    const pods = g.pods;
    const mem = g.memory_used_mib === null ? "&ndash;" :
      `${(g.memory_used_mib / 1024).toFixed(1)} / ${(g.memory_total_mib / 1024).toFixed(0)}`;
    const ecc = g.ecc_sbe_volatile === null ? "&ndash;" :
      `${g.ecc_sbe_volatile} / ${g.ecc_dbe_volatile} (${g.ecc_sbe_aggregate}, ${g.ecc_dbe_aggregate})`;
    return `<tr data-gpu="${g.index}" data-state="${esc(g.state)}" class="st-${esc(g.state)}">` +
      `<td>${g.index}</td><td>${esc(g.state.replace("_", " "))}</td>` +
      `<td class="temp">${num(g.temperature_c)}</td><td class="power">${num(g.power_w)}</td>` +
      `<td class="mem">${mem}</td><td>${g.gpu_util_percent === null ? "&ndash;" : g.gpu_util_percent.toFixed(0) + "%"}</td>` +
      `<td>${g.sm_active === null ? "&ndash;" : fmtPct(g.sm_active)}</td>` +
      `<td class="xid">${g.xid ? g.xid : g.xid === null ? "&ndash;" : "none"}</td><td class="ecc">${ecc}</td>` +
      `<td class="pod">${pods.map((p) => esc(p.name)).join("<br>") || "&ndash;"}</td>` +
      `<td>${pods.map((p) => `${esc(p.workload)} <span class="sub">${esc(p.team)}</span>`).join("<br>")}</td>` +
      `<td class="since">${pods.map((p) => fmtSim(p.since_hours) + (p.running ? "" : " (starting)")).join("<br>")}</td></tr>`;
  }).join(""));
  $("#node-note").textContent = n.dcgm_sim_hours === null ? "GPU readings are off (serve --dcgm-interval 0)"
    : `GPU readings as dcgm-exporter reported them at ${fmtSim(n.dcgm_sim_hours)}`;
}

// ---- Workload list -----------------------------------------------------------------------------

const PAGE = 50;
let wl = {pages: [null], filled: false};  // Continue tokens of the pages visited (null = first).

function workloadQuery() {
  const f = new FormData($("#workload-filters"));
  const q = new URLSearchParams();
  for (const [k, v] of f.entries()) if (String(v).trim() !== "") q.set(k, String(v).trim());
  q.set("limit", String(PAGE));
  const token = wl.pages[wl.pages.length - 1];
  if (token !== null) q.set("continue", token);
  return q;
}

let wlSeq = 0;  // Only the latest request's answer is drawn (filters change while one is out).
async function loadWorkloads() {
  const seq = ++wlSeq;
  let page;
  try {
    page = await api("/api/workloads?" + workloadQuery().toString());
    if (seq !== wlSeq) return;
    $("#wl-error").textContent = "";
  } catch (e) {
    if (seq === wlSeq) $("#wl-error").textContent = e.message;
    return;
  }
  renderWorkloads(page);
}

// Replaces an element's HTML only when it changed, so rows under the pointer survive polls.
const drawnHtml = new WeakMap();
function setHtml(el, html) {
  if (drawnHtml.get(el) === html) return;
  el.innerHTML = html;
  drawnHtml.set(el, html);
}

function renderWorkloads(page) {
  const rows = page.workloads;
  setHtml($("#workloads tbody"), rows.length ? rows.map((w) => {
    const nodes = w.nodes.map((n) => `<a href="#" class="node-link" data-node="${esc(n)}">${esc(n)}</a>`).join(" ") +
      (w.nodes_total > w.nodes.length ? ` +${w.nodes_total - w.nodes.length}` : "");
    return `<tr data-workload="${esc(w.name)}" data-team="${esc(w.team)}" data-state="${esc(w.state)}">` +
      `<td>${esc(w.name)}</td><td>${esc(w.team)}</td><td>${esc(w.kind)}</td><td class="state">${esc(w.state)}</td>` +
      `<td class="reason" title="${esc(w.reason_detail || "")}">${w.reason ? esc(w.reason) : ""}` +
      (w.reason_detail ? `<div class="detail">${esc(w.reason_detail)}</div>` : "") + `</td>` +
      `<td>${fmtInt(w.gpus_allocated)} / ${fmtInt(w.gpus_requested)}</td><td class="nodes">${nodes || "&ndash;"}</td>` +
      `<td>${fmtSim(w.submitted_hours)}</td><td>${w.state === "pending" ? fmtDuration(w.pending_seconds) : ""}</td></tr>`;
  }).join("") : '<tr class="none"><td colspan="9">No workloads match</td></tr>');
  const first = (wl.pages.length - 1) * PAGE;
  $("#workloads").dataset.total = String(page.total);
  $("#wl-range").textContent = page.total === 0 ? "none" :
    `${fmtInt(first + 1)}–${fmtInt(first + rows.length)} of ${fmtInt(page.total)}`;
  $("#wl-prev").disabled = wl.pages.length <= 1;
  $("#wl-next").disabled = page.continue === null;
  $("#wl-next").dataset.token = page.continue === null ? "" : page.continue;
}

function fillFilters(queues, overview) {
  if (wl.filled || !queues.length) return;
  $("#wl-team").innerHTML = '<option value="">any</option>' + queues.map((q) => `<option>${esc(q.team)}</option>`).join("");
  $("#wl-reason").innerHTML = '<option value="">any</option>' +
    Object.keys(overview.pending_by_reason || {}).map((r) => `<option>${esc(r)}</option>`).join("");
  const pools = new Set();
  for (const r of heat.racks) for (const p of r.pools || []) pools.add(p);
  $("#wl-pool").innerHTML = '<option value="">any</option>' + [...pools].sort().map((p) => `<option>${esc(p)}</option>`).join("");
  wl.filled = pools.size > 0;
}

// ---- Queues, cost, incidents -----------------------------------------------------------------

let teamsFilled = false;
function renderQueues(queues) {
  $("#queues tbody").innerHTML = queues.map((q) => {
    const reasons = Object.entries(q.pending_by_reason).map(([r, n]) => `${esc(r)}: ${n}`).join(", ");
    return `<tr data-team="${esc(q.team)}"><td>${esc(q.team)}</td><td class="quota">${fmtInt(q.quota_gpus)}</td>` +
      `<td>${fmtInt(q.used_gpus)}</td><td>${fmtInt(q.borrowed_gpus)}</td><td>${fmtInt(q.running)}</td>` +
      `<td>${fmtInt(q.pending)}</td><td>${reasons || "&ndash;"}</td></tr>`;
  }).join("");
  if (!teamsFilled && queues.length) {
    const opts = queues.map((q) => `<option>${esc(q.team)}</option>`).join("");
    $("#submit-team").innerHTML = opts;
    $("#quota-team").innerHTML = opts;
    $("#quota-form [name=gpus]").value = queues[0].quota_gpus;
    teamsFilled = true;
  }
}

function renderCost(cost) {
  const teams = cost.teams;
  const svg = $("#cost");
  // Drawn at the element's own pixel size, so text keeps its size on any screen.
  const W = Math.max(320, svg.clientWidth || 440), rowH = 26, L = 110, R = 190;
  const max = Math.max(1e-9, ...teams.map((t) => t.allocated_gpu_hours));
  const H = Math.max(40, teams.length * rowH + 6);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.style.height = H + "px";
  svg.innerHTML = teams.map((t, i) => {
    const y = 4 + i * rowH, w = (W - L - R) * t.allocated_gpu_hours / max;
    const ws = (W - L - R) * t.sm_active_gpu_hours / max;
    const money = cost.currency ? ` · ${Math.round(t.cost).toLocaleString("en-US")} ${esc(cost.currency)}` : "";
    return `<text x="${L - 6}" y="${y + 15}" text-anchor="end" font-size="12">${esc(t.team)}</text>` +
      `<rect x="${L}" y="${y + 3}" width="${w.toFixed(1)}" height="16" fill="#9db9ea"/>` +
      `<rect x="${L}" y="${y + 3}" width="${ws.toFixed(1)}" height="16" fill="#19a974"/>` +
      `<text x="${L + w + 4}" y="${y + 15}" font-size="11" fill="#344054">${fmtInt(Math.round(t.allocated_gpu_hours))} GPU-h${money}</text>`;
  }).join("");
  const total = cost.currency ? ` · ${Math.round(cost.total_cost).toLocaleString("en-US")} ${esc(cost.currency)}` : "";
  $("#cost-total").innerHTML = `total ${fmtInt(Math.round(cost.total_allocated_gpu_hours))} allocated GPU-hours${total}` +
    ' <span class="sw sm"></span>SM-active share of them';
}

// Open incidents of the remediation loop: one per node fault, or one per rack / leaf when a
// shared component took several nodes (docs/remediation.md, incident grouping).
function renderIncidents(inc) {
  const list = inc.incidents;
  if (!inc.remediation) {
    $("#incidents").innerHTML = '<li class="none">Remediation is off for this scenario</li>';
    return;
  }
  $("#incidents").innerHTML = list.length
    ? list.map((i) => `<li data-incident="${i.id}" data-scope="${esc(i.scope)}">` +
        `<b>${esc(i.scope)} ${esc(i.subject)}</b> &middot; ${esc(i.category)} &middot; ` +
        `${i.nodes.length} node${i.nodes.length === 1 ? "" : "s"}, ${i.faulty_gpus} faulty GPUs &middot; ` +
        `since ${i.first_fault_hours.toFixed(1)} h &middot; ` +
        (i.ticket ? `ticket #${i.ticket}` : "no ticket yet") +
        (i.suspected_cause ? ` &middot; suspect ${esc(i.suspected_cause)}` : "") + "</li>").join("")
    : '<li class="none">No open incidents</li>';
}

// How the incidents add up to the overview's faulty and quarantined counts, and the nodes that
// are out of service or faulty without an open incident.
function renderIncidentSummary(inc) {
  const s = inc.summary;
  if (!s) {
    $("#incident-summary").textContent = "";
    $("#outside-incidents").innerHTML = "";
    return;
  }
  const el = $("#incident-summary");
  for (const k of Object.keys(s)) el.dataset[k.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = String(s[k]);
  el.innerHTML = `${fmtInt(s.incidents_open)} open incident${s.incidents_open === 1 ? "" : "s"} on ` +
    `${fmtInt(s.nodes_in_incidents)} nodes hold <b>${fmtInt(s.gpus_faulty_in_incidents)}</b> of the ` +
    `<b>${fmtInt(s.gpus_faulty)}</b> faulty GPUs and ${fmtInt(s.nodes_quarantined_in_incidents)} of the ` +
    `${fmtInt(s.nodes_quarantined)} quarantined nodes` +
    (inc.outside_incidents.length ? `; outside any incident: ${fmtInt(s.gpus_faulty_outside_incidents)} faulty GPUs on these nodes:` : "");
  $("#outside-incidents").innerHTML = inc.outside_incidents.map((n) =>
    `<li data-node="${esc(n.node)}"><a href="#" class="node-link" data-node="${esc(n.node)}">${esc(n.node)}</a> ` +
    `(rack ${n.rack}) &middot; ${esc(n.remediation)}${n.cordoned ? ", cordoned" : ""} &middot; ${n.faulty_gpus} faulty GPUs</li>`).join("");
}

function renderRemediation(o) {
  const states = Object.entries(o.nodes_by_remediation_state || {});
  $("#remediation").innerHTML = !o.remediation ? "" :
    "nodes out of service: " + (states.length
      ? states.map(([s, n]) => `<span class="chip" data-state="${esc(s)}">${esc(s)}: ${fmtInt(n)}</span>`).join("")
      : '<span class="chip">none</span>') + ` &middot; tickets filed ${fmtInt(o.tickets)}`;
}

// Tenant isolation findings: static for a run (audited when the twin starts), so fetched once.
// The panel stays hidden when the scenario has no tenancy section.
function renderTenancy(t) {
  const panel = $("#tenancy-panel");
  panel.hidden = !t.enabled;
  if (!t.enabled) return;
  const s = t.summary;
  $("#tenancy-summary").innerHTML =
    `<span class="chip sev-critical">critical: ${s.critical}</span>` +
    `<span class="chip sev-warning">warning: ${s.warning}</span>` +
    Object.entries(s.tenants).map(([name, ns]) =>
      `<span class="chip" data-tenant="${esc(name)}">${esc(name)}: ${ns.map(esc).join(", ")}</span>`).join("");
  $("#tenancy tbody").innerHTML = t.findings.length
    ? t.findings.map((f) => `<tr data-check="${esc(f.id)}" class="sev-${esc(f.severity)}">` +
        `<td>${esc(f.severity)}</td><td>${esc(f.layer)}</td><td>${esc(f.id)}</td>` +
        `<td>${esc(f.tenant || "\u2013")}</td><td>${esc(f.objects[0] || "")}</td>` +
        `<td class="finding">${esc(f.message)}<div class="fix">${esc(f.fix)}</div></td></tr>`).join("")
    : '<tr><td colspan="6">No findings</td></tr>';
}

async function loadTenancy() {
  try {
    renderTenancy(await api("/api/tenancy"));
  } catch (e) {
    $("#tenancy-panel").hidden = false;
    $("#tenancy-summary").textContent = "tenancy: " + e.message;
  }
}

// ---- Rollouts --------------------------------------------------------------------------------

// The rollouts the engine runs in the twin (/api/rollouts, the shape of `steward rollout status
// --json`): per rollout its state and counts, each batch with its nodes and their states, every
// gate's last value against its conditions with the verdict, and the latest batch, gate and
// rollout decisions with their reasons. The panel stays hidden until a rollout has begun.
const ROLLOUT_DECISIONS = 12;
function renderRollouts(body) {
  const list = body.rollouts || [];
  $("#rollouts-panel").hidden = list.length === 0;
  if (!list.length) return;
  setHtml($("#rollouts"), list.map((r) => {
    const nodeState = new Map(r.nodes.map((n) => [n.name, n.state || "untouched"]));
    const rows = r.batches.map((b) => {
      const nodes = b.nodes.map((n) =>
        `<span class="node" data-node="${esc(n)}">${esc(n)} <i>${esc(nodeState.get(n) || "")}</i></span>`).join(" ");
      const gates = b.gates.length ? b.gates : [null];
      return gates.map((g, i) => `<tr data-batch="${esc(b.name)}"${g ? ` data-gate="${esc(g.name)}"` : ""}>` +
        (i === 0 ? `<td rowspan="${gates.length}">${esc(b.name)}</td>` +
                   `<td rowspan="${gates.length}" class="batch-state">${esc(b.state)}</td>` +
                   `<td rowspan="${gates.length}" class="nodes">${nodes}</td>` : "") +
        (g ? `<td>${esc(g.name)}</td><td>${esc(g.metric)}</td>` +
             `<td class="value">${g.value === null ? "\u2013" : String(Number(Number(g.value).toPrecision(4)))}</td>` +
             `<td>${esc(g.success_condition || "\u2013")}</td><td>${esc(g.failure_condition || "\u2013")}</td>` +
             `<td class="verdict v-${esc(g.verdict)}">${esc(g.verdict)}</td><td>${g.tally.measurements}</td>`
           : '<td colspan="7">no gates</td>') + "</tr>").join("");
    }).join("");
    const decisions = r.log.filter((d) => d.kind !== "node").slice(-ROLLOUT_DECISIONS).reverse();
    return `<div class="rollout" data-plan="${esc(r.plan)}" data-state="${esc(r.state)}">` +
      `<h3>${esc(r.plan)}: ${esc(r.component)} ${esc(r.previous_version)} \u2192 ${esc(r.version)} ` +
      `<span class="rollout-state st-${esc(r.state)}">${esc(r.state)}</span></h3>` +
      `<div class="chips"><span class="chip" data-key="nodes_upgraded">upgraded: ${r.nodes_upgraded}</span>` +
      `<span class="chip" data-key="nodes_rolled_back">rolled back: ${r.nodes_rolled_back}</span>` +
      `<span class="chip" data-key="max_unavailable_seen">max unavailable seen: ${r.max_unavailable_seen} of ${r.max_unavailable}</span>` +
      `<span class="chip">${esc(r.reason)}</span></div>` +
      (r.state === "paused" ? '<div class="answer">paused for a human: ' +
        `<button type="button" data-answer="resume" data-plan="${esc(r.plan)}">Resume</button> ` +
        `<button type="button" data-answer="abort" data-plan="${esc(r.plan)}">Abort (roll back)</button></div>` : "") +
      '<table class="batches"><thead><tr><th>batch</th><th>state</th><th>nodes</th><th>gate</th><th>metric</th>' +
      "<th>value</th><th>success</th><th>failure</th><th>verdict</th><th>measured</th></tr></thead>" +
      `<tbody>${rows}</tbody></table>` +
      '<table class="decisions"><thead><tr><th>#</th><th>time</th><th>kind</th><th>object</th><th>from \u2192 to</th><th>reason</th></tr></thead><tbody>' +
      decisions.map((d) => `<tr data-seq="${d.seq}"><td>${d.seq}</td><td>${fmtSim(d.at_us / 3.6e9)}</td>` +
        `<td>${esc(d.kind)}</td><td>${esc(d.object)}</td><td>${esc(d.from || "\u2013")} \u2192 ${esc(d.to || "\u2013")}</td>` +
        `<td>${esc(d.reason)}</td></tr>`).join("") +
      "</tbody></table></div>";
  }).join(""));
}

// ---- Polling ---------------------------------------------------------------------------------

let inFlight = false;
async function refresh() {
  if (inFlight) return;
  inFlight = true;
  try {
    const racksPath = heatmapWantsNodes() ? "/api/racks" : "/api/racks?nodes=false";
    const [o, q, r, ts, inc, cost, ro] = await Promise.all([
      api("/api/overview"), api("/api/queues"), api(racksPath),
      api("/api/timeseries?max_points=600"), api("/api/incidents"), api("/api/cost"),
      api("/api/rollouts")]);
    renderOverview(o);
    renderQueues(q.queues);
    renderHeatmap(r.racks);
    renderChart(ts.points, ts.markers, o.sim_time / 3600);
    renderIncidents(inc);
    renderIncidentSummary(inc);
    renderRemediation(o);
    renderCost(cost);
    renderRollouts(ro);
    fillFilters(q.queues, o);
    await Promise.all([loadWorkloads(), loadNode()]);
    document.body.dataset.ready = "1";
  } catch (e) {
    $("#clock").textContent = "disconnected: " + e.message;
  } finally {
    inFlight = false;
  }
}

// ---- Controls --------------------------------------------------------------------------------

function showResult(text, ok) {
  const el = $("#control-result");
  el.textContent = text;
  el.className = ok ? "note" : "note err";
}

async function post(path, body, describe) {
  try {
    const res = await api(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                 body: JSON.stringify(body || {})});
    showResult(describe(res), true);
  } catch (e) {
    showResult(e.message, false);
  }
  await refresh();
}

function wire() {
  $("#submit-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    post("/api/workloads", {team: f.get("team"), kind: f.get("kind"), pods: Number(f.get("pods")),
      gpus_per_pod: Number(f.get("gpus_per_pod")), duration_hours: Number(f.get("duration_hours"))},
      (r) => `submitted ${r.name} for ${r.team}`);
  });
  $("#quota-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const team = f.get("team");
    post(`/api/queues/${encodeURIComponent(team)}/quota`, {gpus: Number(f.get("gpus"))},
      (r) => `quota of ${r.team} is now ${r.quota_gpus} GPUs`);
  });
  for (const b of document.querySelectorAll("#node-form button")) {
    b.addEventListener("click", () => {
      const node = $("#node-name").value.trim();
      const xid = Number($("#fault-xid").value);
      const action = b.dataset.action;
      if (action === "rack-fault") {
        const rack = $("#node-form").dataset.rack;
        if (rack === undefined) return showResult("pick a node first (click the heatmap)", false);
        return post(`/api/racks/${rack}/fault`, {xid},
          (r) => `XID ${r.xid} on every GPU of rack ${r.rack}: ${r.nodes.join(", ")}`);
      }
      if (!node) return showResult("pick a node first (click the heatmap)", false);
      if (action === "fault") {
        return post(`/api/nodes/${encodeURIComponent(node)}/fault`, {xid, gpu: 0},
          (r) => `XID ${r.xid} (${r.mnemonic}, ${r.action}) on ${r.node} GPU ${r.gpu}`);
      }
      post(`/api/nodes/${encodeURIComponent(node)}/${action}`, {},
        (r) => `${r.node} ${r.cordoned ? "cordoned" : "uncordoned"}`);
    });
  }
  // A paused rollout's Resume and Abort (renderRollouts redraws the buttons every refresh).
  $("#rollouts").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-answer]");
    if (!b) return;
    post(`/api/rollouts/${encodeURIComponent(b.dataset.plan)}/answer`,
      {answer: b.dataset.answer, why: "from the dashboard"},
      (r) => `rollout ${r.rollout}: ${r.answer === "resume" ? "resumed" : "aborted"}`);
  });
  const canvas = $("#heatmap");
  canvas.addEventListener("mousemove", (ev) => {
    const k = nodeAt(ev);
    if (k) {
      $("#hover").textContent = `${k.node.name} (rack ${k.rack}): ${k.node.gpus}` +
        (k.node.cordoned ? " cordoned" : "") +
        (k.node.remediation && k.node.remediation !== "healthy" ? ` [${k.node.remediation}]` : "") +
        `, ${k.node.workloads} workloads`;
      return;
    }
    const b = rackAt(ev);
    $("#hover").textContent = b ? `rack ${b.rack}: ${b.data.nodes_total} nodes, ${b.data.gpus_in_use} in use, ` +
      `${b.data.gpus_idle} idle, ${b.data.gpus_faulty} faulty, ${b.data.gpus_cordoned} cordoned` : "";
  });
  canvas.addEventListener("click", (ev) => {
    const k = nodeAt(ev);
    if (k) {
      $("#node-name").value = k.node.name;
      $("#node-form").dataset.rack = String(k.rack);
      heat.focus = {rack: k.rack, node: k.node.name};
      openNode(k.node.name);
      drawHeatmap();
      return;
    }
    const b = rackAt(ev);
    if (b && heat.level === 0) {
      // Per-rack tiles: zoom in on the rack.
      heat.focus = {rack: b.rack};
      heat.scrollTo = b.rack;
      setZoom(CELL_SIZES.length - 1);
    }
  });
  $("#heatmap-search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    search($("#heatmap-search").value);
  });
  $("#zoom-in").addEventListener("click", () => setZoom(heat.level + 1));
  $("#zoom-out").addEventListener("click", () => setZoom(heat.level - 1));
  $("#zoom-auto").addEventListener("click", () => setZoom(null));
  $("#node-close").addEventListener("click", () => {
    openNodeName = null;
    $("#node-panel").hidden = true;
  });
  // Node links in the workload list and the incident panel open the node panel.
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest && ev.target.closest("a.node-link");
    if (!a) return;
    ev.preventDefault();
    const name = a.dataset.node;
    const rack = (heat.racks.find((r) => r.nodes && r.nodes.some((n) => n.name === name)) || {}).rack;
    heat.focus = rack === undefined ? null : {rack, node: name};
    openNode(name);
    $("#node-panel").scrollIntoView({block: "nearest"});
  });
  // Filters: any change starts again from the first page.
  const filters = $("#workload-filters");
  const restart = () => {
    wl.pages = [null];
    loadWorkloads();
  };
  filters.addEventListener("change", restart);
  filters.addEventListener("submit", (ev) => {
    ev.preventDefault();
    restart();
  });
  $("#wl-clear").addEventListener("click", () => {
    filters.reset();
    restart();
  });
  $("#wl-next").addEventListener("click", () => {
    const token = $("#wl-next").dataset.token;
    if (!token) return;
    wl.pages.push(token);
    loadWorkloads();
  });
  $("#wl-prev").addEventListener("click", () => {
    if (wl.pages.length <= 1) return;
    wl.pages.pop();
    loadWorkloads();
  });
}

wire();
loadTenancy();
refresh();
setInterval(refresh, POLL_MS);
