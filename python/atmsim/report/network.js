/* atmsim report: the network view (report/network.py). Each div.atmsim-network holds a
 * <script type="application/json"> with the nodes and their positions (atmsim.netview.layout),
 * the links, the connections' routes and the animation frames; this draws it with Cytoscape.js
 * (embedded once in the page) and wires the slider, the play button and the hovers.
 * Each link is one edge; its half at node A is A's output port A->B, coloured by the port's
 * queue or utilization in the frame shown. The instance is kept as div.atmsimCy (for tests). */
(function () {
  "use strict";
  var SCALE = [[0.0, [208, 215, 222]], [0.5, [242, 182, 0]], [1.0, [209, 36, 47]]];

  function colour(x) {
    if (x === null || x === undefined || !isFinite(x)) return "#eeeeee";
    x = Math.min(Math.max(x, 0), 1);
    for (var i = 0; i + 1 < SCALE.length; i++) {
      var a = SCALE[i], b = SCALE[i + 1];
      if (x <= b[0]) {
        var f = (x - a[0]) / (b[0] - a[0]), s = "#";
        for (var j = 0; j < 3; j++) {
          var v = Math.round(a[1][j] + (b[1][j] - a[1][j]) * f);
          s += (v < 16 ? "0" : "") + v.toString(16);
        }
        return s;
      }
    }
    return "#d1242f";
  }

  function fmt(v, digits) {
    return v === null || v === undefined ? "-" : Number(v).toFixed(digits);
  }

  function init(root) {
    var data = JSON.parse(root.querySelector("script.atmsim-network-data").textContent);
    var box = root.querySelector(".atmsim-network-graph");
    var fr = data.frames;
    var elements = [];
    data.nodes.forEach(function (n) {
      elements.push({group: "nodes", data: {id: "n:" + n.name, label: n.name, kind: n.kind || "node"},
                     position: {x: n.x, y: n.y}, classes: n.kind === "switch" ? "switch" : "end"});
    });
    data.links.forEach(function (e, i) {
      elements.push({group: "edges", data: {id: "l" + i, source: "n:" + e.a, target: "n:" + e.b, label: e.label,
                                             ab: e.a + "->" + e.b, ba: e.b + "->" + e.a}});
    });
    var cy = cytoscape({
      container: box, elements: elements, layout: {name: "preset", fit: true, padding: 30},
      userZoomingEnabled: true, boxSelectionEnabled: false, autoungrabify: false,
      style: [
        {selector: "node", style: {"label": "data(label)", "font-size": 11, "text-valign": "bottom", "text-margin-y": 3,
                                   "width": 16, "height": 16, "background-color": "#8c959f"}},
        {selector: "node.switch", style: {"shape": "round-rectangle", "width": 22, "height": 22, "background-color": "#1f4e79"}},
        {selector: "edge", style: {"width": 6, "curve-style": "bezier", "line-fill": "linear-gradient",
                                   "line-gradient-stop-colors": "#eeeeee #eeeeee", "line-gradient-stop-positions": "0% 100%",
                                   "label": "data(label)", "font-size": 9, "color": "#555", "text-rotation": "autorotate",
                                   "text-margin-y": -9, "min-zoomed-font-size": 7}},
        {selector: ".faded", style: {"opacity": 0.2}},
        {selector: "edge.route", style: {"width": 10, "underlay-color": "#0969da", "underlay-opacity": 0.35, "underlay-padding": 4}},
        {selector: "node.route", style: {"underlay-color": "#0969da", "underlay-opacity": 0.35, "underlay-padding": 5}}
      ]
    });
    root.atmsimCy = cy;
    var slider = root.querySelector("input.atmsim-slider");
    var play = root.querySelector("button.atmsim-play");
    var metric = root.querySelector("select.atmsim-metric");
    var clock = root.querySelector(".atmsim-clock");
    var legend = root.querySelector(".atmsim-legend");
    var tip = root.querySelector(".atmsim-tip");
    var acrRows = {};
    root.querySelectorAll("tr[data-acr]").forEach(function (tr) { acrRows[tr.getAttribute("data-acr")] = tr; });
    var acrMax = data.acr_scale || 1;

    function value(port, k) {
      var m = metric.value;
      var series = m === "queue" ? fr.queue[port] : fr.util[port];
      if (!series) return null;
      var v = series[k];
      if (v === null || v === undefined) return null;
      return m === "queue" ? (fr.queue_max > 0 ? v / fr.queue_max : 0) : v;
    }

    function show(k) {
      var n = fr.t.length;
      if (n === 0) { clock.textContent = "no port series in this run"; return; }
      var t0 = fr.t[k], t1 = k + 1 < n ? fr.t[k + 1] : fr.t_end;
      clock.textContent = "t = " + t0.toFixed(6) + " s (frame " + (k + 1) + " of " + n + ": " +
        t0.toFixed(6) + " to " + t1.toFixed(6) + " s)";
      cy.batch(function () {
        cy.edges().forEach(function (e) {
          var ca = colour(value(e.data("ab"), k)), cb = colour(value(e.data("ba"), k));
          e.style({"line-gradient-stop-colors": ca + " " + ca + " " + cb + " " + cb,
                   "line-gradient-stop-positions": "0% 50% 50% 100%"});
          e.data("frame", k);
        });
      });
      Object.keys(acrRows).forEach(function (c) {
        var v = (fr.acr[c] || [])[k];
        var tr = acrRows[c];
        tr.querySelector(".atmsim-acr-value").textContent = fmt(v, 2);
        tr.querySelector(".atmsim-acr-bar").style.width = (v ? Math.min(100, 100 * v / acrMax) : 0) + "%";
      });
      root.setAttribute("data-frame", String(k));
    }

    function portText(p, k) {
      var q = (fr.queue[p] || [])[k], u = (fr.util[p] || [])[k], d = (fr.drops[p] || [])[k];
      var s = p + ": queue " + fmt(q, 0) + " cells, utilization " + fmt(u, 3);
      if (fr.drops_from_trace) s += ", drops (trace) " + (d || 0);
      return s;
    }

    cy.on("mouseover", "edge", function (ev) {
      var e = ev.target, k = Number(slider.value), lk = data.links[Number(e.id().slice(1))];
      var over = data.connections.filter(function (c) {
        for (var i = 0; i + 1 < c.route.length; i++) {
          var u = c.route[i], v = c.route[i + 1];
          if ((u === lk.a && v === lk.b) || (u === lk.b && v === lk.a)) return true;
        }
        return false;
      }).map(function (c) { return c.name; });
      tip.textContent = lk.a + " - " + lk.b + (lk.label ? " (" + lk.label + ")" : "") + " | " +
        portText(e.data("ab"), k) + " | " + portText(e.data("ba"), k) +
        (over.length ? " | connections: " + over.join(", ") : "");
    });
    cy.on("mouseover", "node", function (ev) {
      var n = ev.target;
      tip.textContent = n.data("label") + " (" + n.data("kind") + ")";
    });

    function highlight(name) {
      var c = data.connections.filter(function (x) { return x.name === name; })[0];
      if (!c) return;
      var ids = {};
      c.route.forEach(function (r) { ids["n:" + r] = true; });
      cy.batch(function () {
        cy.elements().addClass("faded");
        cy.nodes().forEach(function (n) { if (ids[n.id()]) n.removeClass("faded").addClass("route"); });
        for (var i = 0; i + 1 < c.route.length; i++) {
          cy.edges().filter(function (e) {
            var s = e.source().id(), t = e.target().id(), u = "n:" + c.route[i], v = "n:" + c.route[i + 1];
            return (s === u && t === v) || (s === v && t === u);
          }).removeClass("faded").addClass("route");
        }
      });
      tip.textContent = c.name + " (" + c.category + "): " + c.route.join(" > ") + (c.bidirectional ? " (both directions)" : "");
    }
    function unhighlight() { cy.elements().removeClass("faded route"); }
    root.querySelectorAll("[data-connection]").forEach(function (el) {
      el.addEventListener("mouseenter", function () { highlight(el.getAttribute("data-connection")); });
      el.addEventListener("mouseleave", unhighlight);
    });

    function setLegend() {
      legend.textContent = metric.value === "queue"
        ? "colour: queue, 0 to " + fr.queue_max + " cells (the largest sample of the frame)"
        : "colour: utilization, 0 to 1 (the mean of the frame's samples)";
    }
    var timer = null;
    function stop() { if (timer !== null) { clearInterval(timer); timer = null; play.textContent = "Play"; } }
    play.addEventListener("click", function () {
      if (timer !== null) { stop(); return; }
      if (Number(slider.value) >= fr.t.length - 1) slider.value = "0";
      play.textContent = "Pause";
      timer = setInterval(function () {
        var k = Number(slider.value) + 1;
        if (k >= fr.t.length) { stop(); return; }
        slider.value = String(k);
        show(k);
      }, 80);
    });
    slider.addEventListener("input", function () { show(Number(slider.value)); });
    metric.addEventListener("change", function () { setLegend(); show(Number(slider.value)); });
    setLegend();
    show(0);
    root.setAttribute("data-ready", "1");
  }

  function start() {
    document.querySelectorAll("div.atmsim-network").forEach(function (root) { init(root); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
