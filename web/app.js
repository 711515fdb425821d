// Steward dashboard: polls the JSON API (docs/api.md) and draws plain SVG and canvas.
// No framework and no network beyond the serving Steward, so it works offline.
"use strict";

const POLL_MS = 1000;
const $ = (sel) => document.querySelector(sel);
const fmtInt = (v) => Number(v).toLocaleString("en-US");
const fmtPct = (v) => (100 * v).toFixed(1) + "%";
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

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
  const h = o.sim_time / 3600;
  const day = Math.floor(h / 24), hh = Math.floor(h % 24), mm = Math.floor((h * 60) % 60);
  const clock = `day ${day} ${String(hh).padStart(2, "0")}:${String(mm).padStart(2, "0")}`;
  $("#clock").innerHTML = `${esc(o.scenario)} &middot; <span id="sim-time" data-value="${o.sim_time}">${clock}</span>` +
    ` &middot; ${fmtInt(o.gpus_total)} GPUs &middot; speed ${o.speed}&times;` +
    (o.finished ? ' <span class="badge" id="finished">horizon reached</span>' : "");
  const reasons = Object.entries(o.pending_by_reason || {});
  $("#reasons").innerHTML = reasons.length
    ? reasons.map(([r, n]) => `<span class="chip">${esc(r)}: ${fmtInt(n)}</span>`).join("")
    : '<span class="chip">none</span>';
}

// ---- Time series -----------------------------------------------------------------------------

function renderChart(points) {
  const svg = $("#chart");
  const W = Math.max(300, svg.clientWidth || 900), H = 220, L = 40, R = 10, T = 10, B = 24;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const parts = [];
  for (let i = 0; i <= 4; i++) {
    const y = T + (H - T - B) * (1 - i / 4);
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#e4e8ef"/>`);
    parts.push(`<text x="${L - 6}" y="${y + 4}" text-anchor="end" font-size="11" fill="#667085">${i * 25}%</text>`);
  }
  if (points.length > 0) {
    const x0 = points[0].hours, x1 = Math.max(points[points.length - 1].hours, x0 + 1e-9);
    const X = (h) => L + (W - L - R) * (h - x0) / (x1 - x0);
    const Y = (v) => T + (H - T - B) * (1 - Math.max(0, Math.min(1, v)));
    const line = (key, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="` +
      points.map((p) => X(p.hours).toFixed(1) + "," + Y(p[key]).toFixed(1)).join(" ") + '"/>';
    parts.push(line("allocation", "#2f6fd6"), line("busy", "#8e6cd8"), line("sm_active", "#19a974"));
    for (let i = 0; i <= 4; i++) {
      const h = x0 + (x1 - x0) * i / 4;
      const anchor = i === 0 ? "start" : i === 4 ? "end" : "middle";
      parts.push(`<text x="${X(h)}" y="${H - 6}" text-anchor="${anchor}" font-size="11" fill="#667085">${h.toFixed(1)} h</text>`);
    }
  }
  svg.innerHTML = parts.join("");
}

// ---- Heatmap ---------------------------------------------------------------------------------

const COLORS = {i: "#c9d3e0", f: "#d83b3b", c: "#f0a020"};
let layout = null;  // For hover and click: cell geometry and node names.

function inUseColor(share) {
  // From light blue (allocated, idle SMs) to deep blue (fully SM-active).
  const t = Math.max(0, Math.min(1, share));
  const a = [150, 185, 240], b = [20, 70, 170];
  return `rgb(${a.map((v, k) => Math.round(v + (b[k] - v) * t)).join(",")})`;
}

function renderHeatmap(racks) {
  const canvas = $("#heatmap");
  const W = canvas.clientWidth || 900;
  let maxNodes = 1, maxGpus = 1;
  for (const r of racks) {
    maxNodes = Math.max(maxNodes, r.nodes.length);
    for (const n of r.nodes) maxGpus = Math.max(maxGpus, n.gpus.length);
  }
  // The largest cell that fits every rack in about 300 px of height (10,240 GPUs: 3 px).
  let c = 2, perRow = 1, rows = 1, gap = 3;
  for (let size = 16; size >= 2; size--) {
    gap = size >= 6 ? 4 : 3;
    perRow = Math.max(1, Math.floor((W + gap) / (maxGpus * size + gap)));
    rows = Math.ceil(racks.length / perRow);
    c = size;
    if (rows * (maxNodes * size + gap) <= 300) break;
  }
  const H = Math.max(20, rows * (maxNodes * c + gap));
  const dpr = window.devicePixelRatio || 1;
  canvas.style.height = H + "px";
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const inner = c >= 4 ? 1 : 0;  // Gaps between GPUs when cells are big enough.
  const cells = [];
  racks.forEach((r, ri) => {
    const rx = (ri % perRow) * (maxGpus * c + gap), ry = Math.floor(ri / perRow) * (maxNodes * c + gap);
    r.nodes.forEach((n, ni) => {
      const used = [...n.gpus].filter((g) => g === "u").length;
      const share = used > 0 ? n.sm_active / used : 0;
      for (let g = 0; g < n.gpus.length; g++) {
        const s = n.gpus[g];
        ctx.fillStyle = s === "u" ? inUseColor(share) : (COLORS[s] || "#000");
        ctx.fillRect(rx + g * c, ry + ni * c, c - inner, c - inner);
      }
      cells.push({x: rx, y: ry + ni * c, w: n.gpus.length * c, h: c, node: n, rack: r.rack});
    });
  });
  layout = cells;
}

function nodeAt(ev) {
  if (!layout) return null;
  const rect = $("#heatmap").getBoundingClientRect();
  const x = ev.clientX - rect.left, y = ev.clientY - rect.top;
  return layout.find((k) => x >= k.x && x < k.x + k.w && y >= k.y && y < k.y + k.h) || null;
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

// ---- Polling ---------------------------------------------------------------------------------

let inFlight = false;
async function refresh() {
  if (inFlight) return;
  inFlight = true;
  try {
    const [o, q, r, ts, inc, cost] = await Promise.all([
      api("/api/overview"), api("/api/queues"), api("/api/racks"),
      api("/api/timeseries?max_points=600"), api("/api/incidents"), api("/api/cost")]);
    renderOverview(o);
    renderQueues(q.queues);
    renderHeatmap(r.racks);
    renderChart(ts.points);
    renderIncidents(inc);
    renderRemediation(o);
    renderCost(cost);
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
  const canvas = $("#heatmap");
  canvas.addEventListener("mousemove", (ev) => {
    const k = nodeAt(ev);
    $("#hover").textContent = k ? `${k.node.name} (rack ${k.rack}): ${k.node.gpus}` +
      (k.node.cordoned ? " cordoned" : "") +
      (k.node.remediation && k.node.remediation !== "healthy" ? ` [${k.node.remediation}]` : "") +
      `, ${k.node.workloads} workloads` : "";
  });
  canvas.addEventListener("click", (ev) => {
    const k = nodeAt(ev);
    if (k) {
      $("#node-name").value = k.node.name;
      $("#node-form").dataset.rack = String(k.rack);
    }
  });
}

wire();
loadTenancy();
refresh();
setInterval(refresh, POLL_MS);
