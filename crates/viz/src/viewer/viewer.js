// fabricsim view: plays per-link utilisation of one or two runs on one clock. Plain
// JavaScript on canvases; the data is the JSON in <script id="data">.
"use strict";
(function () {
  const status = document.getElementById("status");
  window.addEventListener("error", function (e) {
    status.textContent = "error: " + e.message;
    status.dataset.state = "error";
  });
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const runs = DATA.runs;
  const $ = (id) => document.getElementById(id);

  // The colour scale (the same stops as the plots'), as 256 entries.
  const LUT = [];
  for (let k = 0; k < 256; k++) {
    const v = k / 255;
    let s = DATA.scale;
    let i = 1;
    while (i < s.length - 1 && v > s[i][0]) i++;
    const a = s[i - 1], b = s[i], f = (v - a[0]) / (b[0] - a[0]);
    const c = [1, 2, 3].map((j) => Math.round(a[j] + (b[j] - a[j]) * f));
    LUT.push("rgb(" + c.join(",") + ")");
  }

  // The clock: simulated time in ns, shared by the runs; each shows its interval at that time.
  const step = Math.min(...runs.map((r) => r.interval_ns));
  const frames = (r) => (r.util.length ? r.util[0].length : 0);
  const end = Math.max(...runs.map((r) => r.interval_ns * frames(r)));
  const slider = $("time");
  slider.max = Math.max(0, Math.ceil(end / step) - 1);
  let tick = 0;
  let playing = false;
  const frameOf = (r) => Math.min(frames(r) - 1, Math.floor((tick * step) / r.interval_ns + 1e-9));

  const torus = runs[0].topology === "torus";
  const axes = runs[0].axes;
  let plane = { a: DATA.plane[0], b: DATA.plane[1], c: -1, agg: "max" };
  if (torus) {
    const opts = (sel, none) => {
      if (none) sel.add(new Option("none", "-1"));
      axes.forEach((n, i) => {
        const b = runs[0].block;
        const what = b && b.sizes[i] > 1 ? b.shape[i] + " in " + runs[0].shape[i] + " blocks" : runs[0].shape[i];
        sel.add(new Option(n + " (" + what + ")", String(i)));
      });
    };
    opts($("ax-a"), false);
    opts($("ax-b"), false);
    opts($("ax-c"), true);
    $("ax-a").value = plane.a;
    $("ax-b").value = plane.b;
    // Slices along the longest remaining axis, when there is one.
    let best = -1;
    axes.forEach((_, i) => {
      if (i !== plane.a && i !== plane.b && (best < 0 || runs[0].shape[i] > runs[0].shape[best])) best = i;
    });
    plane.c = best;
    $("ax-c").value = String(best);
  } else {
    $("torus-controls").style.display = "none";
  }

  // Per run: its section, canvas, table, and the groups of links each drawn bar stands for.
  const views = runs.map((r, k) => {
    const sec = document.createElement("section");
    const h = document.createElement("h2");
    h.textContent = r.name + (r.merged > 1 ? "  (" + r.merged + " intervals merged per frame)" : "");
    const blocks = document.createElement("div");
    blocks.className = "note blocks";
    blocks.textContent = blockNote(r);
    const cv = document.createElement("canvas");
    const note = document.createElement("div");
    note.className = "note";
    const tb = document.createElement("table");
    r.summary.forEach(([key, val]) => {
      const tr = tb.insertRow();
      tr.insertCell().textContent = key;
      tr.insertCell().textContent = val;
    });
    sec.append(h, blocks, cv, note, tb);
    $("runs").append(sec);
    cv.addEventListener("mousemove", (e) => hover(k, e));
    cv.addEventListener("mouseleave", () => ($("tip").style.display = "none"));
    return { run: r, canvas: cv, note: note, bars: [] };
  });

  // What a blocked run's drawn links stand for (empty when each is one link).
  function blockNote(r) {
    const b = r.block;
    if (!b) return "";
    const n = (x) => x.toLocaleString("en");
    const tail = ", each link the mean of up to " + n(b.most) + " links; " + n(b.links) + " links drawn as " + n(r.links.length);
    if (r.topology === "torus") return "each cell is a block of " + b.sizes.join("x") + " routers (along " + axes.join(", ") + ")" + tail;
    return "each bar is a block of up to " + b.sizes[0] + " neighbouring switches of its rail and level" + tail;
  }

  // Positions `lo` to `hi` as text.
  const span = (lo, hi) => (lo === hi ? String(lo) : lo + "-" + hi);

  // The coordinates block `k` of axis `d` spans, as text (the coordinate itself when unblocked).
  function axisRange(r, d, k) {
    const b = r.block;
    if (!b || r.topology !== "torus") return String(k);
    return span(k * b.sizes[d], Math.min((k + 1) * b.sizes[d], b.shape[d]) - 1);
  }

  // Tori: bars of the plane's links, grouped by (slice, across, down, kind); fat-trees: one bar
  // per link, in rows by rail, level and direction.
  function layout() {
    const W = Math.max(300, Math.floor((window.innerWidth - 24 - 16 * (views.length - 1)) / views.length) - 2);
    // The height follows the width alone, so that a page lays out the same in any window height.
    let H = Math.max(240, Math.min(Math.round(W * 0.6), 1000));
    if (!torus) H = Math.min(H, new Set(runs[0].links.map((l) => l.label)).size * 40 + 12);
    views.forEach((v) => {
      v.canvas.width = W;
      v.canvas.height = H;
      v.bars = torus ? torusBars(v.run, W, H) : treeBars(v.run, W, H);
    });
  }

  function torusBars(r, W, H) {
    const { a, b, c } = plane;
    const nx = r.shape[a], ny = r.shape[b], nt = c >= 0 ? r.shape[c] : 1;
    const cols = Math.max(1, Math.min(nt, Math.round(Math.sqrt((nt * W * ny) / (H * nx)))));
    const rows = Math.ceil(nt / cols);
    const tw = W / cols, th = H / rows;
    const cell = Math.max(2, Math.min((tw - 24) / nx, (th - 22) / ny));
    const groups = new Map();
    r.links.forEach((l, i) => {
      if (!l.coords) return;
      const stem = l.label.slice(0, -1);
      const ax = axes.indexOf(stem);
      // Links off the plane (along the slices' axis or the others) colour their router's rim.
      const kind = ax === a ? 1 : ax === b ? 0 : 2;
      const key = [c >= 0 ? l.coords[c] : 0, l.coords[a], l.coords[b], kind, l.label.endsWith("+") ? 1 : 0].join(",");
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(i);
    });
    const bars = [];
    const s = cell * 0.34, t = Math.max(1, cell * 0.14), g = cell * 0.04;
    groups.forEach((links, key) => {
      const [tile, i, j, kind, plus] = key.split(",").map(Number);
      const across = kind === 1;
      const ox = (tile % cols) * tw + 18, oy = Math.floor(tile / cols) * th + 18;
      const ci = ox + cell * (i + 0.5), cj = oy + cell * (j + 0.5);
      if (kind === 2) {
        if (plus && groups.has([tile, i, j, 2, 0].join(","))) return;
        const both = plus ? links : links.concat(groups.get([tile, i, j, 2, 1].join(",")) || []);
        const h = cell * 0.17;
        bars.push({ rect: [ci - h, cj - h, ci + h, cj + h], links: both, rim: true });
        return;
      }
      const xe = ox + cell * nx, ye = oy + cell * ny;
      let rect;
      if (across && plus) rect = [ci + s / 2, cj - g - t, Math.min(ci + cell - s / 2, xe), cj - g];
      else if (across) rect = [Math.max(ci - cell + s / 2, ox), cj + g, ci - s / 2, cj + g + t];
      else if (plus) rect = [ci + g, cj + s / 2, ci + g + t, Math.min(cj + cell - s / 2, ye)];
      else rect = [ci - g - t, Math.max(cj - cell + s / 2, oy), ci - g, cj - s / 2];
      bars.push({ rect: rect, links: links });
    });
    const nodes = [];
    for (let k = 0; k < nt; k++)
      for (let i = 0; i < nx; i++)
        for (let j = 0; j < ny; j++) {
          const ox = (k % cols) * tw + 18, oy = Math.floor(k / cols) * th + 18;
          nodes.push([ox + cell * (i + 0.5), oy + cell * (j + 0.5), cell * 0.17]);
        }
    const labels = [];
    for (let k = 0; k < nt && c >= 0; k++) labels.push([(k % cols) * tw + 4, Math.floor(k / cols) * th + 12, axes[c] + "=" + axisRange(r, c, k)]);
    bars.nodes = nodes;
    bars.labels = labels;
    return bars;
  }

  function treeBars(r, W, H) {
    const rows = new Map();
    r.links.forEach((l, i) => {
      if (!rows.has(l.label)) rows.set(l.label, []);
      rows.get(l.label).push(i);
    });
    const names = [...rows.keys()].sort((x, y) => {
      const p = (s) => (s.match(/\d+/g) || []).map(Number).concat([s.endsWith("up") ? 1 : 0]);
      const [u, v] = [p(x), p(y)];
      for (let k = 0; k < Math.max(u.length, v.length); k++) if ((u[k] || 0) !== (v[k] || 0)) return (u[k] || 0) - (v[k] || 0);
      return 0;
    });
    const left = 110;
    const rh = Math.min(40, (H - 10) / names.length);
    const bars = [];
    const labels = [];
    names.forEach((n, row) => {
      const ls = rows.get(n);
      const w = (W - left - 8) / ls.length;
      ls.forEach((i, k) => {
        const x = left + k * w;
        bars.push({ rect: [x, 6 + row * rh, x + Math.max(1, w - (w > 4 ? 1 : 0)), 6 + row * rh + rh * 0.8], links: [i] });
      });
      labels.push([4, 6 + row * rh + rh * 0.55, n + " (" + ls.length + ")"]);
    });
    bars.nodes = [];
    bars.labels = labels;
    return bars;
  }

  function value(r, links, f) {
    let sum = 0, max = 0;
    for (const i of links) {
      const u = r.util[i][f];
      sum += u;
      if (u > max) max = u;
    }
    const v = plane.agg === "mean" && torus ? sum / links.length : max;
    return Math.min(255, Math.round(v / fullScale()));
  }

  function draw() {
    views.forEach((v) => {
      const ctx = v.canvas.getContext("2d");
      const f = frameOf(v.run);
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, v.canvas.width, v.canvas.height);
      for (const bar of v.bars) {
        const [x0, y0, x1, y1] = bar.rect;
        ctx.fillStyle = LUT[value(v.run, bar.links, f)];
        ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
      }
      ctx.fillStyle = "#3c3c46";
      const core = otherAxes().length || plane.c >= 0 ? 0.4 : 1;
      for (const [x, y, h] of v.bars.nodes) ctx.fillRect(x - h * core, y - h * core, 2 * h * core, 2 * h * core);
      ctx.fillStyle = "#555";
      ctx.font = "11px sans-serif";
      for (const [x, y, text] of v.bars.labels) ctx.fillText(text, x, y);
      const r = v.run;
      v.note.textContent = torus
        ? "links along " + axes[plane.a] + " (across) and " + axes[plane.b] + " (down)" +
          (otherAxes().length ? "; " + plane.agg + " over " + otherAxes().join(", ") : "") +
          (core < 1 ? "; a " + (r.block ? "block" : "router") + "'s rim: its links along " + axes.filter((_, i) => i !== plane.a && i !== plane.b).join(", ") : "")
        : "links by rail, level and direction";
      v.canvas.dataset.frame = f;
      v.canvas.dataset.interval = r.interval_ns;
    });
    slider.value = tick;
    $("clock").textContent = "t = " + ((tick * step) / 1000).toFixed(3) + " us";
  }

  function fullScale() {
    return Number($("full").value);
  }

  function otherAxes() {
    return axes.filter((_, i) => i !== plane.a && i !== plane.b && i !== plane.c);
  }

  function hover(k, e) {
    const v = views[k];
    const box = v.canvas.getBoundingClientRect();
    const x = e.clientX - box.left, y = e.clientY - box.top;
    const bar = v.bars.find((b) => x >= b.rect[0] - 1 && x <= b.rect[2] + 1 && y >= b.rect[1] - 1 && y <= b.rect[3] + 1);
    const tip = $("tip");
    if (!bar) {
      tip.style.display = "none";
      return;
    }
    const r = v.run, f = frameOf(r);
    const now = "now: utilisation " + ((value(r, bar.links, f) * fullScale()) / 255).toFixed(3) + (value(r, bar.links, f) === 255 ? " or more" : "");
    const lines = r.block ? blockTip(r, bar.links, now) : linkTip(r, bar.links, now);
    tip.innerHTML = "";
    lines.forEach((s) => {
      const d = document.createElement("div");
      d.textContent = s;
      tip.append(d);
    });
    tip.style.left = e.clientX + 14 + "px";
    tip.style.top = e.clientY + 10 + "px";
    tip.style.display = "block";
  }

  // A bar of single links: where, now, and the window's counters summed over its links.
  function linkTip(r, links, now) {
    const sum = [0, 0, 0, 0, 0, 0];
    links.forEach((i) => r.links[i].window.forEach((w, j) => (sum[j] += w)));
    const l = r.links[links[0]];
    const where = l.coords ? "(" + l.coords.join(",") + ")" : "router " + l.router;
    return [
      (links.length > 1 ? links.length + " links, e.g. " : "") + where + " " + l.label + " (port " + l.port + ")",
      now,
      "window" + (links.length > 1 ? " (sum)" : "") + ": " + sum[0] + " B, " + sum[1] + " packets",
      "busy " + sum[2].toFixed(1) + " ns, idle " + sum[3].toFixed(1) + " ns, credit stall " + sum[4].toFixed(1) + " ns",
    ];
  }

  // A bar of blocks: which coordinates (or switches) the first spans, how many links the bar
  // stands for, and the mean and the highest of their window counters.
  function blockTip(r, links, now) {
    let n = 0;
    const mean = [0, 0, 0, 0, 0, 0], max = [0, 0, 0, 0, 0, 0];
    links.forEach((i) => {
      const b = r.links[i].block;
      n += b.links;
      r.links[i].window.forEach((w, j) => (mean[j] += w * b.links));
      b.window_max.forEach((w, j) => (max[j] = Math.max(max[j], w)));
    });
    mean.forEach((_, j) => (mean[j] /= n));
    const l = r.links[links[0]], b = l.block;
    const where = r.topology === "torus"
      ? "block " + axes.map((a, d) => a + " " + span(b.ranges[d][0], b.ranges[d][1])).join(", ")
      : "switches " + span(b.ranges[0][0], b.ranges[0][1]) + " of the row (routers " + span(b.routers[0], b.routers[1]) + ")";
    const f1 = (x) => x.toFixed(1), f0 = (x) => x.toFixed(0);
    return [
      (links.length > 1 ? links.length + " blocks, e.g. " : "") + where + " " + l.label + ": " + n + " links",
      now + " (" + (links.length > 1 ? plane.agg + " of block means" : "their mean") + ")",
      "window, mean / max per link: " + f0(mean[0]) + " / " + f0(max[0]) + " B, " + f1(mean[1]) + " / " + f0(max[1]) + " packets",
      "busy " + f1(mean[2]) + " / " + f1(max[2]) + " ns, idle " + f1(mean[3]) + " / " + f1(max[3]) + " ns, credit stall " + f1(mean[4]) + " / " + f1(max[4]) + " ns",
    ];
  }

  let last = 0, acc = 0;
  function loop(ts) {
    if (!playing) return;
    if (last) acc += ((ts - last) / 1000) * Number($("speed").value);
    last = ts;
    if (acc >= 1) {
      tick = (tick + Math.floor(acc)) % (Number(slider.max) + 1);
      acc -= Math.floor(acc);
      draw();
    }
    requestAnimationFrame(loop);
  }
  function setPlaying(p) {
    playing = p;
    $("play").textContent = p ? "pause" : "play";
    last = 0;
    acc = 0;
    if (p) requestAnimationFrame(loop);
  }
  $("play").addEventListener("click", () => setPlaying(!playing));
  slider.addEventListener("input", () => {
    tick = Number(slider.value);
    draw();
  });
  const replane = () => {
    plane = { a: Number($("ax-a").value), b: Number($("ax-b").value), c: Number($("ax-c").value), agg: $("agg").value };
    if (plane.c === plane.a || plane.c === plane.b) plane.c = -1;
    layout();
    draw();
  };
  $("full").addEventListener("change", draw);
  ["ax-a", "ax-b", "ax-c", "agg"].forEach((id) => $(id).addEventListener("change", replane));
  window.addEventListener("resize", () => {
    layout();
    draw();
  });

  // `#tick=K` (or `#t=NS`) opens paused at that time: for links to a moment, and for tests.
  const hash = new URLSearchParams(location.hash.slice(1));
  layout();
  if (hash.has("tick")) tick = Math.min(Number(slider.max), Math.max(0, Number(hash.get("tick")) | 0));
  else if (hash.has("t")) tick = Math.min(Number(slider.max), Math.floor(Number(hash.get("t")) / step));
  draw();
  if (!hash.has("tick") && !hash.has("t")) setPlaying(true);
  const rects = views.map((v) => {
    const b = v.canvas.getBoundingClientRect();
    return [b.left, b.top, b.width, b.height].map(Math.round).join(",");
  });
  status.dataset.state = status.dataset.state || "ready";
  status.dataset.canvases = rects.join(";");
  if (status.dataset.state === "ready") status.textContent = "ready: " + runs.length + " run(s), " + (Number(slider.max) + 1) + " steps";
})();
