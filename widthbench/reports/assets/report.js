/* widthbench report: one self-contained page over the JSON payload in #report-data.
   Built by widthbench/reports/html.py; see docs/report.md. No network, no libraries. */
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("report-data").textContent);
  const STR = D.strings || [];
  const app = document.getElementById("app");
  const SVGNS = "http://www.w3.org/2000/svg";
  const COLNAMES = {"pddl/off": "Standard Normal", "pddl/on": "Standard Thinking",
                    "nl/off": "Natural Language Normal", "nl/on": "Natural Language Thinking"};
  const FILTERS = [["all", "all"], ["correct", "correct"], ["wrong", "wrong (parse errors included)"],
                   ["parse-error", "parse error"], ["truncated", "truncated"], ["request-error", "request error"],
                   ["skipped", "skipped"]];
  const PAGE = 100;

  // ---- small DOM helpers ------------------------------------------------------------------
  function h(tag, attrs) {
    const el = document.createElement(tag);
    if (attrs) for (const k in attrs) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (let i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function add(el, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach(k => add(el, k)); return; }
    el.appendChild(typeof kid === "string" || typeof kid === "number" ? document.createTextNode(String(kid)) : kid);
  }
  function s(tag, attrs) {
    const el = document.createElementNS(SVGNS, tag);
    for (const k in attrs || {}) if (k === "text") el.textContent = attrs[k]; else el.setAttribute(k, attrs[k]);
    for (let i = 2; i < arguments.length; i++) if (arguments[i]) el.appendChild(arguments[i]);
    return el;
  }
  const pct = x => (x === null || x === undefined) ? "n/a" : (100 * x).toFixed(0) + "%";
  const fmt = x => (x === null || x === undefined) ? "—" : (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(1)) : String(x));
  function kilo(x) {
    if (x === null || x === undefined) return "–";
    if (x >= 1e6) return (x / 1e6).toFixed(1) + "M";
    if (x >= 1e4) return (x / 1e3).toFixed(0) + "k";
    if (x >= 1e3) return (x / 1e3).toFixed(1) + "k";
    return x.toFixed(0);
  }
  const simTag = run => run && run.simulated ? [" ", h("span", {class: "sim-badge"}, "SIMULATED")] : null;
  function caption(text, simulated) {
    return h("caption", null, text, simulated ? [" — ", h("span", {class: "sim-badge"}, "SIMULATED")] : null);
  }
  function show(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Array.isArray(v)) return v.every(x => typeof x === "string") ? v.join("\n") : JSON.stringify(v);
    if (typeof v === "object") return Object.keys(v).map(k => k + ": " + (Array.isArray(v[k]) ? v[k].join(" ") : JSON.stringify(v[k]))).join("\n");
    return String(v);
  }

  // ---- score runs: grids, cells and their items --------------------------------------------
  const scoreRuns = D.runs.map((r, i) => Object.assign(r, {index: i})).filter(r => r.kind === "score");
  const solveRuns = D.runs.filter(r => r.kind === "solve");
  // rows and records come with their keys, thinking as "on"/"off" and each record's verdicts
  // (widthbench/reports/html.py): the page groups and shows, it computes no result
  const colKey = r => r.style + "/" + r.thinking;
  const colName = k => COLNAMES[k] || k.replace("/", " thinking ");
  // one record per item-mode, or per sample of one (score --samples N)
  const recKey = r => r.key;
  const cellKey = r => r.cell;
  function colOrder(a, b) {
    const [sa, ta] = a.split("/"), [sb, tb] = b.split("/");
    const rank = x => x === "pddl" ? 0 : x === "nl" ? 1 : 2;
    return rank(sa) - rank(sb) || sa.localeCompare(sb) || (ta === "off" ? 0 : 1) - (tb === "off" ? 0 : 1);
  }

  scoreRuns.forEach(run => {
    run.byCell = new Map();
    run.byKey = new Map();
    run.records.forEach(rec => {
      const k = cellKey(rec);
      if (!run.byCell.has(k)) run.byCell.set(k, []);
      run.byCell.get(k).push(rec);
      run.byKey.set(recKey(rec), rec);
    });
    run.groups = grid(run);
  });

  function grid(run) {
    // group (model, domain) -> {labels: [{label, order, cells: {col: {reader: row}}}], cols}
    const groups = new Map();
    run.rows.forEach((row, i) => {
      row._i = i;
      const gk = row.model + " on " + row.domain;
      if (!groups.has(gk)) groups.set(gk, {name: gk, model: row.model, domain: row.domain,
        simulated: !!row.simulated || run.simulated, labels: new Map(), cols: new Set()});
      const g = groups.get(gk);
      const ck = colKey(row);
      g.cols.add(ck);
      if (!g.labels.has(row.label)) g.labels.set(row.label, {label: row.label, order: row.order, cells: {}});
      const L = g.labels.get(row.label);
      L.cells[ck] = L.cells[ck] || {};
      L.cells[ck][row.reader || ""] = row;
    });
    return [...groups.values()].map(g => ({
      ...g, cols: [...g.cols].sort(colOrder),
      labels: [...g.labels.values()].sort((a, b) => a.order - b.order || a.label.localeCompare(b.label))}));
  }

  function mainRow(run, byReader) {
    if (!byReader) return null;
    const hr = run.headline_reader;
    return (hr && byReader[hr]) || byReader[""] || Object.values(byReader)[0];
  }
  // The strict reader's row of the cell, as summary.json has it (the page computes no row).
  function strictRow(run, byReader) {
    const hr = run.headline_reader;
    if (!byReader || !hr || hr === "strict") return null;
    return byReader.strict || null;
  }
  const hasStrict = run => run.headline_reader && run.headline_reader !== "strict" &&
    run.rows.some(r => r.reader === "strict");
  const itemsOfRow = (run, row) => run.byCell.get(cellKey(row)) || [];

  function reading(rec, reader) {
    // Each reader's reading as score recorded it; a record of one reader is its own reading.
    const rd = reader && rec.readings && rec.readings[reader];
    if (rd) return {reader: reader, parsed: rd.parsed, correct: rd.correct, metrics: rd.metrics || {},
                    parse_error: rd.parse_error, rule: rd.rule, span: rd.span};
    return {parsed: rec.parsed, correct: rec.correct, metrics: rec.metrics || {}, parse_error: rec.parse_error,
            reader: rec.reader || reader || null};
  }
  // what the reader made of the record by the row's metric, as widthbench judged it (results/rows.py `verdict`)
  function verdict(rec, row, reader) {
    const all = rec.verdicts || {};
    const mine = all[reader] || all[rec.reader] || Object.values(all)[0] || {};
    return (row && mine[row.metric]) || mine[""] || "wrong";
  }
  function matches(rec, filter, v, reader) {
    const rd = reading(rec, reader);
    switch (filter) {
      case "all": return true;
      case "correct": return v === "correct";
      case "wrong": return v === "wrong";
      case "parse-error": return !rec.request_error && !!rd.parse_error;
      case "truncated": return !!rec.truncated;
      case "request-error": return !!rec.request_error;
      case "skipped": return !!rec.skipped;
    }
    return true;
  }
  function msgText(m) { return Array.isArray(m) ? STR[m[1]] : (m && m.content) || ""; }
  function promptsOf(rec) {
    const p = rec.prompt;
    if (!Array.isArray(p) || !p.length) return [];
    return Array.isArray(p[0]) && Array.isArray(p[0][0]) ? p : [p];
  }
  const listOf = x => Array.isArray(x) ? x : (x === null || x === undefined ? [] : [x]);
  function haystack(rec) {
    if (rec._hay === undefined) {
      const parts = [rec.item_id, rec.instance_id, rec.mode, rec.subtask, JSON.stringify(rec.parsed),
        JSON.stringify(rec.truth), rec.parse_error || "", rec.request_error || ""];
      listOf(rec.raw_answer).forEach(a => parts.push(a || ""));
      listOf(rec.reasoning).forEach(a => parts.push(a || ""));
      promptsOf(rec).forEach(msgs => msgs.forEach(m => { if (m[0] !== "system") parts.push(msgText(m)); }));
      rec._hay = parts.join("\n").toLowerCase();
    }
    return rec._hay;
  }

  // ---- one cell's grid HTML --------------------------------------------------------------
  function ciBar(row) {
    if (!row.n) return null;
    const bar = h("div", {class: "cibar", title: `accuracy ${pct(row.accuracy)}, Wilson 95% CI ${pct(row.ci_low)}–${pct(row.ci_high)}`});
    bar.appendChild(h("div", {class: "fill", style: `width:${100 * row.accuracy}%`}));
    bar.appendChild(h("div", {class: "ci", style: `left:${100 * row.ci_low}%;width:${Math.max(0.5, 100 * (row.ci_high - row.ci_low))}%`}));
    return bar;
  }
  function cellContent(run, byReader) {
    const row = mainRow(run, byReader);
    const out = [h("div", {class: "kn", "data-k": row.correct, "data-n": row.n}, `${row.correct}/${row.n}`),
      h("div", {class: "acc"}, row.n ? `${pct(row.accuracy)} [${pct(row.ci_low)}–${pct(row.ci_high)}]` : "n/a"),
      ciBar(row)];
    const st = strictRow(run, byReader);
    if (st) out.push(h("div", {class: "second", "data-strict-k": st.correct, "data-strict-n": st.n,
      title: "the strict reader's row of summary.json"},
      `strict ${st.correct}/${st.n}` + (st.n ? ` (${pct(st.accuracy)})` : "")));
    const flags = [];
    if (row.parse_errors) flags.push(`${row.parse_errors} parse err.`);
    if (row.truncated) flags.push(`${row.truncated} truncated`);
    if (row.request_errors) flags.push(`${row.request_errors} req. err.`);
    if (row.only_flexible) flags.push(`${row.only_flexible} read only by the flexible reader`);
    if (row.skipped) flags.push(`${typeof row.skipped === "object" ? JSON.stringify(row.skipped) : row.skipped} skipped`);
    if (flags.length) out.push(h("div", {class: "flag"}, flags.join(", ")));
    if (row.thinking_produced === false) out.push(h("div", {class: "flag thinking-none"}, "thinking requested, none produced"));
    return out;
  }

  function gridTable(run, g, onCell) {
    const readers = run.headline_reader ? ` Cells: the ${run.headline_reader} reader (headline)` +
      (hasStrict(run) ? ", and the strict one below it." : ".") : "";
    const t = h("table", {class: "grid", "data-run": run.index, "data-group": g.name},
      caption(`Table 1 layout — run ${run.name}: ${g.name} — correct/n, accuracy with Wilson 95% CI (bar).${readers}`, g.simulated),
      h("tr", null, h("th", null, "Sub-task"), g.cols.map(c => h("th", null, colName(c)))));
    g.labels.forEach(L => {
      const tr = h("tr", null, h("th", {class: "label"}, L.label));
      g.cols.forEach(c => {
        const byReader = L.cells[c];
        if (!byReader) { tr.appendChild(h("td", {class: "empty"}, "—")); return; }
        const row = mainRow(run, byReader);
        const td = h("td", {class: "cell", "data-run": run.index, "data-row": row._i, "data-label": L.label, "data-col": c,
                            title: "click: the items behind this cell"}, cellContent(run, byReader));
        td.addEventListener("click", () => onCell(td, run, row));
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    return t;
  }

  // ---- item cards --------------------------------------------------------------------------
  function highlightSpan(text, span) {
    if (!span || !Array.isArray(span) || typeof text !== "string") return [text];
    const [a, b] = span;
    if (!(a >= 0 && b >= a && b <= text.length)) return [text];
    return [text.slice(0, a), h("mark", {title: "what the reader read"}, text.slice(a, b)), text.slice(b)];
  }
  function failingStep(rec, rd) {
    const places = [rd.metrics, rec.info, rd.parsed, rec.truth, rec.metrics];
    const keys = ["failed_step", "first_failing_step", "failing_step", "first_failed_step"];
    for (const p of places) if (p && typeof p === "object" && !Array.isArray(p)) {
      for (const k of keys) if (p[k] !== undefined && p[k] !== null) return {step: p[k], where: p};
    }
    return null;
  }
  function setDiff(truth, said) {
    const T = new Set(truth), P = new Set(said);
    const out = [];
    [...T].forEach(x => out.push(P.has(x) ? h("div", {class: "same"}, "  " + x) : h("div", {class: "missing", title: "missing: in the truth, not in the answer"}, "− " + x)));
    [...P].filter(x => !T.has(x)).forEach(x => out.push(h("div", {class: "extra", title: "extra: in the answer, not in the truth"}, "+ " + x)));
    return h("pre", {class: "diff"}, out);
  }
  const isStrList = x => Array.isArray(x) && x.every(y => typeof y === "string");
  function diffView(rec, rd, row) {
    const out = [];
    if (rec.request_error) return [h("div", {class: "error-text"}, "request failed: " + rec.request_error)];
    if (rec.skipped) return [h("div", {class: "error-text"}, "not asked: " + (typeof rec.skipped === "string" ? rec.skipped : JSON.stringify(rec.skipped)))];
    if (rd.parse_error) out.push(h("div", {class: "error-text parse-error"}, "parse error: " + rd.parse_error));
    const said = rd.parsed, truth = rec.truth;
    const ff = failingStep(rec, rd);
    if (ff) {
      const w = ff.where;
      out.push(h("div", {class: "error-text"}, `first failing step: ${ff.step}` + (w.failed_action ? ` ${w.failed_action}` : "") +
        (w.unmet_preconditions && w.unmet_preconditions.length ? ` — unmet preconditions ${w.unmet_preconditions.join(" ")}` : "") +
        (w.unmet_goals && w.unmet_goals.length ? ` — unmet goals ${w.unmet_goals.join(" ")}` : "") +
        (w.reason ? ` — ${w.reason}` : "")));
    }
    if (said === null || said === undefined) return out;
    if (isStrList(said) && ff && typeof ff.step === "number") {
      out.push(h("pre", {class: "plan"}, said.map((a, i) => h("div", {class: i + 1 === ff.step ? "missing" : i + 1 < ff.step ? "same" : "muted"},
        `${i + 1}. ${a}` + (i + 1 === ff.step ? "   ← first failing step" : "")))));
    } else if (isStrList(said) && isStrList(truth)) {
      out.push(h("div", {class: "legend"}, h("span", {class: "missing"}, "− missing"), " ", h("span", {class: "extra"}, "+ extra")), setDiff(truth, said));
    } else if (typeof said === "string" && truth && typeof truth === "object" && !Array.isArray(truth)) {
      const lines = Object.keys(truth).map(k => {
        const set = listOf(truth[k]);
        const inside = set.includes(said);
        return h("div", {class: inside ? "same" : "missing"}, `${inside ? "✓" : "✗"} ${k}: ${inside ? "the answer is one of" : "the answer is not one of"} ${set.join(" ")}`);
      });
      out.push(h("pre", {class: "diff"}, h("div", null, "answer: " + said), lines));
    } else if (said && typeof said === "object" && !Array.isArray(said) && truth && typeof truth === "object" && !Array.isArray(truth)) {
      Object.keys(truth).forEach(k => {
        const got = said[k];
        if (got === undefined) { out.push(h("div", {class: "missing"}, `${k}: no state in the answer`)); return; }
        if (isStrList(got) && isStrList(truth[k])) {
          const ok = got.length === truth[k].length && truth[k].every(x => got.includes(x));
          out.push(h("div", null, h("b", null, k), ok ? h("span", {class: "verdict correct"}, "  ✓ exact") : h("span", {class: "verdict wrong"}, "  ✗")));
          if (!ok) out.push(setDiff(truth[k], got));
        } else out.push(h("div", null, `${k}: said ${show(got)}, truth ${show(truth[k])}`));
      });
      Object.keys(said).filter(k => !(k in truth)).forEach(k => out.push(h("div", {class: "extra"}, `${k}: not asked`)));
    } else if (typeof said !== "object" && typeof truth !== "object") {
      const same = said === truth;
      out.push(h("div", {class: same ? "same" : "missing"}, `said ${show(said)}, truth ${show(truth)}` + (same ? " ✓" : " ✗")));
    } else {
      out.push(h("div", {class: "pair"}, h("pre", null, "read:\n" + show(said)), h("pre", null, "truth:\n" + show(truth))));
    }
    return out;
  }
  function kv(obj, hotKeys) {
    if (!obj || typeof obj !== "object") return null;
    const keys = Object.keys(obj).filter(k => obj[k] !== undefined);
    if (!keys.length) return null;
    return h("div", {class: "kv"}, keys.map(k => [h("div", {class: "k"}, k),
      h("div", {class: hotKeys && hotKeys.test(k) ? "hot" : null}, typeof obj[k] === "object" ? JSON.stringify(obj[k]) : show(obj[k]))]));
  }
  function readersTable(rec, run) {
    const names = rec.readings ? Object.keys(rec.readings) : [null];
    const t = h("table", {class: "readers"}, h("tr", null, ["reader", "rule", "read", "verdict", "parse error"].map(x => h("th", null, x))));
    let first = null;
    names.forEach(name => {
      const rd = reading(rec, name);
      const same = first && JSON.stringify(rd.parsed) === JSON.stringify(first.rd.parsed) && rd.correct === first.rd.correct &&
        (rd.parse_error || null) === (first.rd.parse_error || null);
      if (same) {
        t.appendChild(h("tr", null, h("td", null, name), h("td", null, ruleText(rd.rule)),
          h("td", {colspan: 3, class: "muted"}, `read the same as ${first.name}`)));
        return;
      }
      if (!first) first = {rd, name: name || "the reader"};
      const label = (name || rec.reader || "the reader") + ((name && rec.reader === name) || (!name) ? " (headline)" : "");
      t.appendChild(h("tr", null, h("td", null, label), h("td", null, ruleText(rd.rule)),
        h("td", null, h("pre", null, show(rd.parsed))),
        h("td", null, rec.request_error ? "—" : (rd.correct ? "correct" : "wrong")),
        h("td", {class: "error-text"}, rd.parse_error || "")));
    });
    return t;
  }
  // The reasoning trace checked on the engine (subtasks.traces): every claim marked right, wrong,
  // retracted or unchecked at its span; the first error highlighted and explained.
  function traceView(text, tr, tag) {
    const claims = (tr.claims || []).filter(c => Array.isArray(c.span)).slice().sort((a, b) => a.span[0] - b.span[0]);
    const first = tr.first_error;
    const pre = h("pre", {class: "trace"});
    let at = 0;
    claims.forEach(c => {
      const [a, b] = c.span;
      if (a < at || b > text.length) return;  // overlapping claims: the first one marks the text
      pre.appendChild(document.createTextNode(text.slice(at, a)));
      const isFirst = first && first.span && first.span[0] === a && first.span[1] === b;
      pre.appendChild(h("mark", {class: `claim ${c.verdict}` + (isFirst ? " first-error" : ""),
        title: `${c.kind}: ${show(c.claimed)} — ${c.verdict}`}, text.slice(a, b)));
      at = b;
    });
    pre.appendChild(document.createTextNode(text.slice(at)));
    const head = `Reasoning checked${tag}: ${tr.checked} of ${(tr.claims || []).length} claims checked, ` +
      `coverage ${Math.round(100 * (tr.coverage || 0))}% of ${tr.sentences} sentences, ` +
      (first ? `first error: ${first.kind}` : "no error found");
    const detail = first ? h("div", {class: "first-error-note"}, `First error (${first.kind}): “${first.quote}” claimed ${show(first.claimed)}; ` +
      `true: ${show(first.truth)}; after ${(first.actions || []).length} action(s)` +
      (tr.final_answer_correct === null || tr.final_answer_correct === undefined ? "" :
        tr.final_answer_correct ? " — the final answer was right anyway" : " — carried into a wrong final answer")) : null;
    return h("details", {class: "sub trace-check", open: !!first}, h("summary", null, head), detail, pre);
  }
  function tracesTable(run) {
    const T = run.traces;
    if (!T || !T.cells || !Object.keys(T.cells).length) return null;
    const cols = ["traces", "coverage", "state_tracking_accuracy", "share_with_error", "recovered", "carried"];
    const t = h("table", {class: "traces-summary"}, caption(`Reasoning traces checked on the engine — ${run.name}`, run.simulated),
      h("tr", null, h("th", null, "cell"), cols.map(c => h("th", null, c.replace(/_/g, " ")))));
    Object.entries(T.cells).forEach(([cell, s]) => t.appendChild(h("tr", null, h("th", null, cell),
      cols.map(c => h("td", {class: "num"}, fmt(s[c]))))));
    return t;
  }
  function itemBody(rec, run, row, reader) {
    const body = h("div", {class: "body"});
    const rd = reading(rec, reader);
    const prompts = promptsOf(rec);
    const answers = listOf(rec.raw_answer), reasonings = listOf(rec.reasoning);
    const n = Math.max(prompts.length, answers.length, 1);
    for (let i = 0; i < n; i++) {
      const msgs = prompts[i] || [];
      const tag = n > 1 ? ` (request ${i + 1} of ${n})` : "";
      const sys = msgs.filter(m => m[0] === "system"), rest = msgs.filter(m => m[0] !== "system");
      body.appendChild(h("details", {class: "sub prompt"}, h("summary", null, `Prompt${tag}: system + user`),
        sys.map(m => h("details", {class: "sub"}, h("summary", null, "system message (domain context)"), h("pre", null, msgText(m)))),
        rest.map(m => [h("div", {class: "muted"}, m[0]), h("pre", null, msgText(m))])));
      const rz = reasonings[i];
      body.appendChild(rz ? h("details", {class: "sub reasoning"}, h("summary", null, `Reasoning${tag} (${rz.length} characters)`), h("pre", null, rz))
        : h("div", {class: "muted"}, `no reasoning returned${tag}` + (rec.thinking === "on" ? " (thinking was requested)" : "")));
      const tr = listOf(rec.trace)[i];
      if (tr && tr.source === "answer") body.appendChild(traceView(answers[i] || "", tr, tag + " (the reasoning written before the answer)"));
      else if (rz && tr) body.appendChild(traceView(rz, tr, tag));
      const span = n === 1 && rec.readings && rec.readings.flexible ? rec.readings.flexible.span : null;
      body.appendChild(h("div", null, h("b", null, `Raw answer${tag}`),
        rec.finish_reason && listOf(rec.finish_reason)[i] ? h("span", {class: "muted"}, ` finish: ${listOf(rec.finish_reason)[i]}`) : null));
      body.appendChild(h("pre", {class: "raw"}, highlightSpan(answers[i] === undefined ? "" : (answers[i] || ""), span)));
    }
    body.appendChild(h("h3", null, "What was read"));
    body.appendChild(readersTable(rec, run));
    body.appendChild(h("h3", null, "Truth"));
    body.appendChild(h("pre", {class: "truth"}, show(rec.truth)));
    body.appendChild(h("h3", null, "Diff" + (row ? ` (${row.metric})` : "")));
    add(body, diffView(rec, rd, row));
    body.appendChild(h("h3", null, "Item"));
    add(body, kv(Object.assign({}, rec.item || {}, {instance: rec.instance_id, mode: rec.mode, model: rec.model})));
    add(body, kv(rec.info, /fail|unmet/));
    body.appendChild(h("div", {class: "muted"}, "metrics"));
    add(body, kv(rd.metrics, /fail|unmet|wrong|missing/));
    body.appendChild(h("div", {class: "muted"}, "tokens"));
    add(body, kv(rec.tokens));
    return body;
  }
  function itemCard(rec, run, row, reader, extra) {
    const v = verdict(rec, row, reader);
    const rd = reading(rec, reader);
    const cls = v === "correct" ? "correct" : v === "wrong" ? "wrong" : "error";
    const d = h("details", {class: "item v-" + cls, "data-key": recKey(rec), "data-verdict": v, "data-run": run.index},
      h("summary", null, h("span", {class: "verdict " + cls}, v === "request-error" ? "REQUEST ERROR" : v.toUpperCase()),
        rec.skipped ? h("span", {class: "tag warn"}, "skipped: " + (typeof rec.skipped === "string" ? rec.skipped : JSON.stringify(rec.skipped))) : null,
        rec.thinking_produced === false ? h("span", {class: "tag warn"}, "thinking requested, none produced") : null,
        h("span", null, rec.item_id), h("span", {class: "tag"}, rec.mode + (rec.extension ? " +ext" : "")),
        h("span", {class: "tag"}, rec.instance_id || ""),
        rd.parse_error ? h("span", {class: "tag warn"}, "parse error") : null,
        rec.truncated ? h("span", {class: "tag warn"}, "truncated") : null,
        extra || null,
        run.simulated ? h("span", {class: "sim-badge"}, "SIMULATED") : null));
    let built = false;
    d.addEventListener("toggle", () => { if (d.open && !built) { built = true; d.appendChild(itemBody(rec, run, row, reader)); } });
    return d;
  }

  // An item list with filters and search. entries: [{rec, run, row, reader, extra}]
  function itemsPanel(title, entries, simulated) {
    const panel = h("section", {id: "items-panel", class: "items-panel"});
    let filter = "all", query = "", limit = PAGE;
    const count = h("span", {id: "items-count"});
    const list = h("div", {id: "items-list"});
    entries.forEach(e => { e.v = verdict(e.rec, e.row, e.reader); });
    const counts = {};
    FILTERS.forEach(([f]) => { counts[f] = entries.filter(e => matches(e.rec, f, e.v, e.reader)).length; });
    const radios = FILTERS.map(([f, label]) => h("label", null,
      h("input", {type: "radio", name: "filter", value: f, checked: f === "all", onchange: () => { filter = f; limit = PAGE; render(); }}),
      ` ${label} (${counts[f]})`));
    let timer = null;
    const search = h("input", {id: "search", type: "search", placeholder: "search answers, prompts, ids…",
      oninput: ev => { clearTimeout(timer); timer = setTimeout(() => { query = ev.target.value.trim().toLowerCase(); limit = PAGE; render(); }, 120); }});
    panel.appendChild(h("h2", null, title, simulated ? [" ", h("span", {class: "sim-badge"}, "SIMULATED")] : null));
    panel.appendChild(h("div", {class: "toolbar"}, radios, search, count));
    panel.appendChild(list);
    function render() {
      const shown = entries.filter(e => matches(e.rec, filter, e.v, e.reader) && (!query || haystack(e.rec).includes(query)));
      count.textContent = `${shown.length} of ${entries.length} item-modes`;
      count.setAttribute("data-shown", shown.length);
      list.textContent = "";
      const frag = document.createDocumentFragment();
      shown.slice(0, limit).forEach(e => frag.appendChild(itemCard(e.rec, e.run, e.row, e.reader, e.extra)));
      list.appendChild(frag);
      if (shown.length > limit) list.appendChild(h("button", {class: "more", onclick: () => { limit += PAGE * 5; render(); }},
        `show more (${shown.length - limit} not shown)`));
    }
    render();
    return panel;
  }

  // ---- views -------------------------------------------------------------------------------
  function runHeader(run) {
    const c = run.config || {};
    return h("div", {class: "muted"}, `run ${run.name} (${run.dir}) — model ${run.model}`, simTag(run),
      c.count ? ` — ${c.count} items per sub-task, seed ${c.seed}, domain ${c.instances || c.domain}` : "",
      run.headline_reader ? ` — headline reader: ${run.headline_reader}` : "");
  }
  function ruleText(rule) {
    // one rule, or one per reply (successor-separate asks a request per action)
    const rules = [].concat(rule || []).filter(Boolean);
    return rules.length ? [...new Set(rules)].join(", ") : "—";
  }

  function simBanner() {
    return D.simulated ? h("div", {class: "banner"}, h("span", {class: "sim-badge"}, "SIMULATED"),
      " These results come from a simulated model (sim:…), computed by the planning engine from the prompt text — not from an LLM.") : null;
  }

  // The unread answers of a cell, by the reason the reader gave up (count and one example each).
  function unreadPanel(run, row) {
    const u = (run.unread || []).find(x => cellKey(x) === cellKey(row));
    if (!u || !u.unread) return null;
    const t = h("table", {class: "unread"}, h("tr", null, ["reason the reader gave up", "answers", "example"].map(x => h("th", null, x))));
    u.reasons.forEach(e => t.appendChild(h("tr", null, h("td", {class: "error-text"}, e.reason), h("td", null, String(e.count)),
      h("td", null, h("div", null, `item ${e.example.item_id}: ${e.example.parse_error}`), h("pre", {class: "answer"}, e.example.answer)))));
    return h("section", {id: "unread-panel", class: "unread-panel"},
      h("h3", null, `Unread answers: ${u.unread}, by the reason the reader gave up`), t);
  }

  function viewGrid() {
    const root = h("div", {id: "view-grid"});
    const slot = h("div", {id: "items-slot"});
    add(root, simBanner());
    function onCell(td, run, row) {
      document.querySelectorAll("td.cell.selected").forEach(x => x.classList.remove("selected"));
      td.classList.add("selected");
      const reader = run.headline_reader || null;
      const entries = itemsOfRow(run, row).map(rec => ({rec, run, row, reader}));
      slot.textContent = "";
      add(slot, unreadPanel(run, row));
      slot.appendChild(itemsPanel(`${row.label} — ${colName(colKey(row))} — ${row.model} on ${row.domain}: ${row.correct}/${row.n}`,
        entries, run.simulated));
      slot.scrollIntoView({block: "start"});
    }
    scoreRuns.forEach(run => {
      root.appendChild(h("h2", null, `Sub-task scores — ${run.name}`, simTag(run)));
      root.appendChild(runHeader(run));
      run.groups.forEach(g => root.appendChild(h("div", {class: "grid-wrap"}, gridTable(run, g, onCell))));
      Object.entries(run.not_built || {}).forEach(([sub, why]) =>
        root.appendChild(h("p", {class: "flag not-built"}, `Not built: ${sub}: ${why}`)));
      add(root, tracesTable(run));
    });
    root.appendChild(h("p", {class: "muted"}, "Click a cell for its items. Parse errors count as wrong; failed requests are excluded from n. " +
      "Per-action rows count actions (n = actions), their items are the cell's item-modes."));
    root.appendChild(slot);
    return root;
  }

  function viewTokens() {
    const root = h("div", {id: "view-tokens"});
    add(root, simBanner());
    scoreRuns.forEach(run => {
      root.appendChild(h("h2", null, `Tokens — ${run.name}`, simTag(run)));
      run.groups.forEach(g => {
        const t = h("table", {class: "tokens"}, caption(`Mean tokens per item: prompt / completion / thinking — ${g.name}`, g.simulated),
          h("tr", null, h("th", null, "Sub-task"), g.cols.map(c => h("th", null, colName(c)))));
        g.labels.forEach(L => t.appendChild(h("tr", null, h("th", null, L.label), g.cols.map(c => {
          const r = mainRow(run, L.cells[c]);
          return h("td", {class: "num"}, r ? `${fmt(r.mean_prompt_tokens)} / ${fmt(r.mean_completion_tokens)} / ${fmt(r.mean_thinking_tokens)}` : "—");
        }))));
        root.appendChild(t);
      });
      ledgerTable(root, run);
    });
    solveRuns.forEach(run => {
      root.appendChild(h("h2", null, `Tokens — ${run.name} (${run.label})`, simTag(run)));
      ledgerTable(root, run);
    });
    return root;
  }
  function ledgerTable(root, run) {
    const L = run.ledger;
    if (!L || !L.by_purpose) { root.appendChild(h("div", {class: "muted"}, "no tokens.json in this run")); return; }
    const cols = ["calls", "cached", "errors", "truncated", "prompt", "completion", "thinking"];
    const t = h("table", {class: "ledger"}, caption(`Token ledger (tokens.json) — ${run.name}`, run.simulated),
      h("tr", null, h("th", null, "purpose"), cols.map(c => h("th", null, c))));
    const line = (name, x) => h("tr", null, h("th", null, name), cols.map(c => h("td", {class: "num"}, fmt(x[c]))));
    Object.keys(L.by_purpose).forEach(p => t.appendChild(line(p, L.by_purpose[p])));
    if (L.by_mode) Object.keys(L.by_mode).forEach(p => t.appendChild(line("mode " + p, L.by_mode[p])));
    if (L.total) t.appendChild(line("total", L.total));
    root.appendChild(t);
  }

  function scoreChart(run, g) {
    const cols = g.cols, labels = g.labels;
    const colours = ["#4c72b0", "#55a868", "#dd8452", "#c44e52", "#8172b3", "#937860"];
    const left = 330, width = 460, bh = 7, gap = 8, rowH = cols.length * bh + gap;
    const H = 40 + labels.length * rowH + 40, W = left + width + 40;
    const svg = s("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img"});
    svg.appendChild(s("text", {x: 4, y: 16, "font-weight": "600", text: `Accuracy with Wilson 95% CI — ${g.name}` + (g.simulated ? " — SIMULATED" : "")}));
    [0, 0.25, 0.5, 0.75, 1].forEach(x => {
      const X = left + x * width;
      svg.appendChild(s("line", {x1: X, x2: X, y1: 28, y2: H - 34, stroke: "#ddd"}));
      svg.appendChild(s("text", {x: X - 8, y: H - 22, text: pct(x)}));
    });
    labels.forEach((L, i) => {
      const y0 = 32 + i * rowH;
      svg.appendChild(s("text", {x: left - 6, y: y0 + cols.length * bh / 2 + 4, "text-anchor": "end", text: L.label}));
      cols.forEach((c, j) => {
        const r = mainRow(run, L.cells[c]);
        if (!r || !r.n) return;
        const y = y0 + j * bh;
        const bar = s("rect", {x: left, y: y, width: Math.max(0.5, r.accuracy * width), height: bh - 1, fill: colours[j % colours.length]});
        bar.appendChild(s("title", {text: `${L.label}, ${colName(c)}: ${r.correct}/${r.n} = ${pct(r.accuracy)} [${pct(r.ci_low)}–${pct(r.ci_high)}]`}));
        svg.appendChild(bar);
        svg.appendChild(s("line", {x1: left + r.ci_low * width, x2: left + r.ci_high * width, y1: y + bh / 2, y2: y + bh / 2, stroke: "#222"}));
      });
    });
    cols.forEach((c, j) => {
      const x = 4 + j * 190;
      svg.appendChild(s("rect", {x: x, y: H - 12, width: 10, height: 8, fill: colours[j % colours.length]}));
      svg.appendChild(s("text", {x: x + 14, y: H - 4, text: colName(c)}));
    });
    return svg;
  }

  function viewCharts() {
    const root = h("div", {id: "view-charts"});
    add(root, simBanner());
    scoreRuns.forEach(run => run.groups.forEach(g => { root.appendChild(h("h2", null, `Chart — ${run.name}`, simTag(run))); root.appendChild(scoreChart(run, g)); }));
    if (solveRuns.length) { root.appendChild(h("h2", null, "Figure 2: success vs tokens")); root.appendChild(fig2()); root.appendChild(h("h2", null, "Figure 3: generated states per instance")); root.appendChild(fig3()); }
    return root;
  }

  // ---- several score runs side by side ------------------------------------------------------
  function viewCompare() {
    const root = h("div", {id: "view-compare"});
    add(root, simBanner());
    let a = 0, b = 1;
    const slot = h("div");
    const pick = (val, on) => h("select", {onchange: ev => { on(+ev.target.value); draw(); }},
      scoreRuns.map((r, i) => h("option", {value: i, selected: i === val}, `${r.name} (${r.model})`)));
    root.appendChild(h("div", {class: "toolbar"}, "base ", pick(a, v => { a = v; }), " against ", pick(b, v => { b = v; })));
    root.appendChild(slot);
    function draw() {
      slot.textContent = "";
      const A = scoreRuns[a], B = scoreRuns[b];
      const items = h("div");
      const rowsOf = run => { const m = new Map(); run.groups.forEach(g => g.labels.forEach(L => Object.keys(L.cells).forEach(c => {
        m.set(g.domain + "|" + L.label + "|" + c, {row: mainRow(run, L.cells[c]), label: L.label, col: c, domain: g.domain, order: L.order});
      }))); return m; };
      const ra = rowsOf(A), rb = rowsOf(B);
      const keys = [...new Set([...ra.keys(), ...rb.keys()])];
      const labels = [...new Map(keys.map(k => { const x = ra.get(k) || rb.get(k); return [x.domain + "|" + x.label, x]; })).values()]
        .sort((x, y) => x.domain.localeCompare(y.domain) || x.order - y.order);
      const cols = [...new Set(keys.map(k => (ra.get(k) || rb.get(k)).col))].sort(colOrder);
      const sim = A.simulated || B.simulated;
      const S = (D.significance || {})[`${Math.min(A.index, B.index)}|${Math.max(A.index, B.index)}`];
      const t = h("table", {class: "compare"}, caption(`${A.name} → ${B.name}: k/n in each, difference in accuracy points; click a cell for the items whose verdict changed`, sim),
        h("tr", null, h("th", null, "Sub-task"), cols.map(c => h("th", null, colName(c)))));
      let changedTotal = 0;
      labels.forEach(x => {
        const tr = h("tr", null, h("th", null, x.label + (new Set(labels.map(l => l.domain)).size > 1 ? ` (${x.domain})` : "")));
        cols.forEach(c => {
          const k = x.domain + "|" + x.label + "|" + c;
          const pa = ra.get(k), pb = rb.get(k);
          if (!pa || !pb) { tr.appendChild(h("td", null, pa ? `${pa.row.correct}/${pa.row.n} → —` : pb ? `— → ${pb.row.correct}/${pb.row.n}` : "—")); return; }
          const d = (pa.row.n && pb.row.n) ? 100 * (pb.row.accuracy - pa.row.accuracy) : null;
          const changed = changedItems(A, B, pa.row, pb.row);
          const nChanged = changed.length / 2;  // each changed item-mode shows its answer in both runs
          changedTotal += nChanged;
          const s = sigCell(S, pa.row);
          const td = h("td", {class: "cell", "data-delta": d === null ? "" : d.toFixed(1), "data-changed": nChanged,
                              "data-significant": s && s.significant ? "yes" : "no", title: sigTitle(s, a > b)},
            h("div", null, `${pa.row.correct}/${pa.row.n} → ${pb.row.correct}/${pb.row.n}`),
            h("div", {class: d > 0 ? "delta-pos" : d < 0 ? "delta-neg" : "muted"}, d === null ? "n/a" : `${d > 0 ? "+" : ""}${d.toFixed(0)} pp`,
              s && s.significant ? h("span", {class: "sig"}, " *") : null),
            h("div", {class: "acc"}, `${nChanged} changed verdict`));
          td.addEventListener("click", () => {
            document.querySelectorAll("#view-compare td.cell.selected").forEach(y => y.classList.remove("selected"));
            td.classList.add("selected");
            items.textContent = "";
            items.appendChild(itemsPanel(`${x.label} — ${colName(c)}: items whose verdict changed (${A.name} → ${B.name})`, changed, sim));
          });
          tr.appendChild(td);
        });
        t.appendChild(tr);
      });
      slot.appendChild(h("p", null, `${changedTotal} item-modes changed verdict in total (per cell and metric).`));
      slot.appendChild(h("p", {class: "sig-note"}, sigNote(S)));
      slot.appendChild(h("div", {class: "grid-wrap"}, t));
      slot.appendChild(items);
    }
    draw();
    return root;
  }
  // significance of a pair of runs, computed by widthbench (reports/compare_tables.py `significance`)
  function sigCell(S, row) {
    if (!S || !S.cells) return null;
    return S.cells[row.compare_key] || null;
  }
  function sigTitle(s, reversed) {
    if (!s) return "";
    const pt = x => `${x > 0 ? "+" : ""}${(100 * x).toFixed(1)}`;
    const ci = reversed ? [-s.ci[1], -s.ci[0]] : s.ci;
    return `${s.test}: p = ${s.p.toPrecision(3)}, p (Holm) = ${s.p_adjusted.toPrecision(3)} on ${s.n} common items; ` +
      `95% CI of the difference [${pt(ci[0])}, ${pt(ci[1])}] pp` +
      (s.test === "mcnemar-exact" ? `; detectable at 80% power: ${s.detectable === null ? "none at this discordance" : "±" + (100 * s.detectable).toFixed(1) + " pp"}` +
        (s.needed === null ? "" : `; items that detect ±${(100 * s.target).toFixed(1)} pp with 80% power: ${s.needed} (score --count)`) : "");
  }
  function sigNote(S) {
    if (!S) return "";
    if (S.error) return `No significance test: ${S.error}`;
    const det = Object.values(S.cells).filter(c => c.test === "mcnemar-exact" && c.detectable !== null).map(c => 100 * c.detectable);
    const range = det.length ? ` The smallest difference these items detect with 80% power (exact McNemar, level 0.05, at each cell's observed discordance): ±${Math.min(...det).toFixed(1)} to ±${Math.max(...det).toFixed(1)} pp; hover a cell for its own.` : "";
    return `* marks a cell whose difference is significant: p < 0.05 after Holm's correction over the ${S.tests} tests of this pair ` +
      `(exact McNemar for one right/wrong answer per item, else a paired sign-flip test; ${S.common} items in common; ` +
      `intervals from a paired bootstrap of ${S.resamples} resamples, seed ${S.seed}; widthbench compare writes the full table, docs/compare.md).` + range;
  }
  function changedItems(A, B, rowA, rowB) {
    const out = [];
    itemsOfRow(A, rowA).forEach(ra => {
      const rb = B.byKey.get(recKey(ra));
      if (!rb || cellKey(rb) !== cellKey(rowB)) return;
      const va = verdict(ra, rowA, A.headline_reader), vb = verdict(rb, rowB, B.headline_reader);
      if (va !== vb) {
        out.push({rec: ra, run: A, row: rowA, reader: A.headline_reader, extra: h("span", {class: "tag"}, `${A.name}: ${va}`)});
        out.push({rec: rb, run: B, row: rowB, reader: B.headline_reader, extra: h("span", {class: "tag"}, `${B.name}: ${vb}`)});
      }
    });
    return out;
  }

  function viewItems() {
    const root = h("div", {id: "view-items"});
    add(root, simBanner());
    const entries = [];
    scoreRuns.forEach(run => run.records.forEach(rec => entries.push({rec, run, row: null, reader: run.headline_reader})));
    root.appendChild(itemsPanel(`All items (${scoreRuns.map(r => r.name).join(", ")})`, entries, scoreRuns.some(r => r.simulated)));
    return root;
  }

  // ---- solve runs ----------------------------------------------------------------------------
  function viewSearch() {
    const root = h("div", {id: "view-search"});
    add(root, simBanner());
    const T = D.solve_tables;
    const sim = solveRuns.some(r => r.simulated);
    const slot = h("div", {id: "instances-slot"});
    const t = h("table", {class: "search-table"}, caption("Table 3/4 layout — Perf. = solved/n (every plan validated by the engine), ATU = average tokens per instance", sim),
      h("tr", null, T.header.map(x => h("th", null, x))));
    T.rows.forEach((row, i) => {
      const tr = h("tr", null);
      row.forEach((x, j) => {
        const col = j < T.lead ? -1 : Math.floor((j - T.lead) / 2);
        const ri = col >= 0 ? T.cell_runs[i][col] : null;
        const td = h(j < T.lead ? "th" : "td", {class: ri !== null && ri !== undefined ? "clickable num" : (j < T.lead ? null : "num")}, String(x));
        if (ri !== null && ri !== undefined) td.addEventListener("click", () => { slot.textContent = ""; slot.appendChild(instances(solveRuns[ri])); slot.scrollIntoView(); });
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    root.appendChild(h("div", {class: "grid-wrap"}, t));
    const rt = h("table", {class: "runs-table"}, caption("Runs — click a run for its instances and search trees", sim),
      h("tr", null, T.runs_header.map(x => h("th", null, x))));
    T.runs_rows.forEach((row, i) => {
      const tr = h("tr", {class: "clickable"}, row.map(x => h("td", {class: "clickable"}, x === null ? "—" : String(x))));
      tr.addEventListener("click", () => { slot.textContent = ""; slot.appendChild(instances(solveRuns[i])); slot.scrollIntoView(); });
      rt.appendChild(tr);
    });
    root.appendChild(h("div", {class: "grid-wrap"}, rt));
    solveRuns.forEach(run => add(root, tracesTable({traces: run.summary.traces, name: run.name, simulated: run.simulated})));
    root.appendChild(h("div", {class: "side"}, h("div", null, h("h3", null, "Figure 2: success vs average tokens"), fig2()),
      h("div", null, h("h3", null, "Figure 3: generated states per instance"), fig3())));
    root.appendChild(slot);
    if (solveRuns.length === 1) slot.appendChild(instances(solveRuns[0]));
    return root;
  }

  function instances(run) {
    const box = h("section", {class: "instances", "data-run": run.index});
    box.appendChild(h("h2", null, `Instances — ${run.name}` + (run.label && run.label !== run.name ? `: ${run.label}` : ""), simTag(run)));
    let filter = "all", query = "";
    const list = h("div");
    const count = h("span", {id: "instances-count"});
    const radios = [["all", "all"], ["solved", "solved"], ["unsolved", "not solved"]].map(([f, l]) =>
      h("label", null, h("input", {type: "radio", name: "ifilter-" + run.index, value: f, checked: f === "all",
        onchange: () => { filter = f; draw(); }}), ` ${l} (${run.items.filter(it => f === "all" || (f === "solved") === !!it.solved).length})`));
    const search = h("input", {type: "search", placeholder: "search ids, plans, states…",
      oninput: ev => { query = ev.target.value.trim().toLowerCase(); draw(); }});
    box.appendChild(h("div", {class: "toolbar"}, radios, search, count));
    box.appendChild(list);
    function draw() {
      list.textContent = "";
      const shown = run.items.filter(it => (filter === "all" || (filter === "solved") === !!it.solved) &&
        (!query || JSON.stringify([it.id, it.plan, it.reason, it.tree]).toLowerCase().includes(query)));
      count.textContent = `${shown.length} of ${run.items.length} instances`;
      shown.forEach(it => list.appendChild(instanceCard(run, it)));
    }
    draw();
    return box;
  }

  function instanceCard(run, it) {
    const ok = !!it.solved;
    const d = h("details", {class: "item " + (ok ? "v-correct" : "v-wrong"), "data-instance": it.id},
      h("summary", null, h("span", {class: "verdict " + (ok ? "correct" : "wrong")}, ok ? "SOLVED" : "NOT SOLVED"),
        h("span", null, it.id), h("span", {class: "tag"}, `plan ${it.plan_length === null || it.plan_length === undefined ? "—" : it.plan_length} / optimal ${fmt(it.optimal_length)}`),
        h("span", {class: "tag"}, `${it.states_generated} states, ${it.states_pruned} pruned, ${it.dead_nodes} dead`),
        h("span", {class: "tag"}, `${kilo(it.tokens)} tokens, ${it.llm_calls} calls`),
        run.simulated ? h("span", {class: "sim-badge"}, "SIMULATED") : null));
    let built = false;
    d.addEventListener("toggle", () => {
      if (!d.open || built) return;
      built = true;
      const body = h("div", {class: "body"});
      body.appendChild(h("h3", null, "Plan and validation"));
      body.appendChild(h("pre", null, it.plan === null || it.plan === undefined ? "no plan" : show(it.plan)));
      body.appendChild(kv({"plan valid": it.plan_valid, "goal claimed": it.goal_claimed, reason: it.reason,
        "optimal length": it.optimal_length, "wall time (s)": it.wall_time, "novelty width": it.novelty_width,
        unreadable: it.unreadable && Object.keys(it.unreadable).length ? it.unreadable : undefined,
        answer: it.answer, gold: it.gold, "tokens outside nodes": it.tokens_outside_nodes}, it.plan_valid ? null : /reason/));
      body.appendChild(h("div", {class: "muted"}, "tokens by purpose"));
      add(body, kv(Object.fromEntries(Object.entries(it.tokens_by_purpose || {}).map(([k, v]) => [k, `${v.calls} calls, ${v.tokens} tokens`]))));
      const thought = listOf(it.reasoning), checks = listOf(it.trace);
      if (thought.length) {
        body.appendChild(h("h3", null, `Thinking checked on the engine (${thought.length} call(s) with thinking)`));
        thought.forEach((r, i) => {
          const tag = ` (call ${r.call + 1}, ${r.purpose})`;
          body.appendChild(checks[i] ? traceView(r.text, checks[i], tag)
            : h("details", {class: "sub reasoning"}, h("summary", null, `Reasoning${tag}: not checked (a question about several states)`), h("pre", null, r.text)));
        });
      }
      const episode = listOf(it.episode), rounds = listOf(it.rounds);
      if (episode.length) body.appendChild(episodeView(it, episode));
      if (rounds.length) body.appendChild(roundsView(it, rounds));
      if (!episode.length && !rounds.length) {
        body.appendChild(h("h3", null, "Search tree"));
        body.appendChild(tree(it));
      }
      d.appendChild(body);
    });
    return d;
  }

  // ---- closed-loop transcripts (solve --method agent / feedback): rendered from the records ----
  function episodeView(it, episode) {
    const t = h("table", {class: "transcript"},
      h("tr", null, h("th", null, "turn"), h("th", null, "action"), h("th", null, "the engine's answer"), h("th", null, "state after")));
    episode.forEach(e => t.appendChild(h("tr", {class: e.taken ? "" : "v-wrong"},
      h("td", null, String(e.turn)), h("td", null, e.action === null || e.action === undefined ? "(unread)" : e.action),
      h("td", null, e.answer || ""), h("td", null, h("pre", null, e.state || "")))));
    const pert = it.perturbation ? ` — the world changed after step ${it.perturbation.after_step}: ${it.perturbation.action}` : "";
    return h("div", null, h("h3", null, `Episode: ${it.turns} turn(s), ${it.steps} action(s) taken, ${it.invalid_actions} invalid${pert}`), t);
  }

  function roundsView(it, rounds) {
    const t = h("table", {class: "transcript"},
      h("tr", null, h("th", null, "round"), h("th", null, "plan"), h("th", null, "verdict"), h("th", null, "feedback"), h("th", null, "tokens")));
    rounds.forEach(r => t.appendChild(h("tr", {class: r.verdict === "valid" ? "" : "v-wrong"},
      h("td", null, String(r.round)), h("td", null, h("pre", null, r.plan ? r.plan.join("\n") : "(no plan read)")),
      h("td", null, r.verdict), h("td", null, r.feedback || ""), h("td", null, String(r.tokens)))));
    const when = it.solved_round ? `solved in round ${it.solved_round}` : `not solved in ${it.max_rounds} round(s)`;
    return h("div", null, h("h3", null, `Feedback rounds: ${when}`), t);
  }

  function tree(it) {
    const nodes = it.tree;
    if (!Array.isArray(nodes) || !nodes.length) return h("div", {class: "muted"}, "no search tree (this method keeps none: " + (it.method || "?") + ")");
    const kids = new Map();
    nodes.forEach(n => { if (n.parent !== null && n.parent !== undefined) { if (!kids.has(n.parent)) kids.set(n.parent, []); kids.get(n.parent).push(n); } });
    const onPlan = new Set();
    const goal = nodes.find(n => n.status === "goal");
    if (goal) { let x = goal; const byId = new Map(nodes.map(n => [n.id, n])); while (x) { onPlan.add(x.id); x = byId.get(x.parent); } }
    const hasTokens = nodes.some(n => n.tokens !== undefined);
    const META = new Set(["id", "parent", "depth", "action", "state", "status", "note", "tokens", "tokens_by_purpose", "calls"]);
    function li(n) {
      const extra = Object.keys(n).filter(k => !META.has(k)).map(k => `${k}=${typeof n[k] === "number" ? (Number.isInteger(n[k]) ? n[k] : n[k].toFixed(2)) : JSON.stringify(n[k])}`);
      const line = h("span", {class: "node-line" + (onPlan.has(n.id) ? " on-plan" : ""), "data-node": n.id, "data-status": n.status},
        h("span", {class: "muted"}, "#" + n.id), h("span", null, n.action || (n.parent === null ? "(initial state)" : "(no action)")),
        h("span", {class: "st st-" + n.status}, n.status),
        hasTokens ? h("span", {class: "tag", title: n.tokens_by_purpose ? JSON.stringify(n.tokens_by_purpose) : "tokens spent on this node"}, `${kilo(n.tokens || 0)} tok`) : null,
        n.note ? h("span", {class: "error-text"}, n.note) : null,
        extra.length ? h("span", {class: "muted"}, extra.join(" ")) : null);
      const el = h("li", null, line);
      if (n.state) {
        const box = h("span", {class: "node-state", hidden: true}, n.state);
        line.appendChild(h("button", {type: "button", class: "state-toggle", title: n.state,
          onclick: () => { box.hidden = !box.hidden; }}, "state"));
        el.appendChild(box);
      }
      const ch = kids.get(n.id);
      if (ch) el.appendChild(h("ul", null, ch.map(li)));
      return el;
    }
    return h("div", {class: "tree"},
      h("div", {class: "legend"}, "green: the path to the goal; ", h("span", {class: "st st-dead"}, "dead"), " unreadable answer or inapplicable action; ",
        h("span", {class: "st st-pruned-novelty"}, "pruned"), " by novelty / duplicate / MCTS judge",
        hasTokens ? "; tok: tokens of the model calls made for the node (proposals when expanded, mapping, novelty, goal check, scores)" : "; tokens per node were not recorded by this run"),
      h("ul", null, nodes.filter(n => n.parent === null || n.parent === undefined).map(li)));
  }

  // Figures 2 and 3 (issue 32): the axes of search_success_tokens.png and search_states.png
  // (widthbench/reports/search.py); labels in a legend under Figure 2 instead of beside its points.
  function fig2() {
    const W = 560, H = 320, L = 50, B = 46, R = 24;
    const svg = s("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "chart fig2"});
    const pts = solveRuns.map((r, i) => ({x: Math.max(1, r.summary.mean_tokens || 1), y: 100 * (r.summary.success_rate || 0), r, i}));
    const lx = pts.map(p => Math.log10(p.x));
    const lo = Math.floor(Math.min(...lx, 2)), hi = Math.ceil(Math.max(...lx, lo + 1));
    const X = v => L + (Math.log10(v) - lo) / (hi - lo) * (W - L - R), Y = v => H - B - (v + 5) / 110 * (H - B - 20);
    for (let e = lo; e <= hi; e++) { svg.appendChild(s("line", {x1: X(10 ** e), x2: X(10 ** e), y1: 20, y2: H - B, stroke: "#eee"})); svg.appendChild(s("text", {x: X(10 ** e), y: H - B + 14, "text-anchor": "middle", text: kilo(10 ** e)})); }
    [0, 20, 40, 60, 80, 100].forEach(v => { svg.appendChild(s("line", {x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#eee"})); svg.appendChild(s("text", {x: L - 6, y: Y(v) + 4, "text-anchor": "end", text: v + "%"})); });
    svg.appendChild(s("text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", text: "average tokens per instance (log scale)" + (D.simulated ? " — SIMULATED" : "")}));
    svg.appendChild(s("text", {x: 12, y: (H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${(H - B) / 2})`, text: "solved instances (%)"}));
    const shapes = {off: "circle", llm: "rect", oracle: "path"};
    const legend = h("table", {class: "fig-legend"}), placed = [];
    pts.forEach(p => {
      const c = p.r.summary.config || {}, nov = c.method === "naive" ? "off" : c.novelty;
      const colour = `hsl(${(p.i * 67) % 360},60%,42%)`, fill = c.thinking ? "none" : colour;
      const cx = X(p.x), cy = Y(p.y);
      let m;
      if (shapes[nov] === "rect") m = s("rect", {x: cx - 5, y: cy - 5, width: 10, height: 10, fill, stroke: colour});
      else if (shapes[nov] === "path") m = s("path", {d: `M${cx},${cy - 6}L${cx + 6},${cy + 5}L${cx - 6},${cy + 5}Z`, fill, stroke: colour});
      else m = s("circle", {cx, cy, r: 5, fill, stroke: colour});
      const name = (D.solve_tables.short || [])[p.i] || p.r.label;
      const numbers = `${p.r.summary.solved}/${p.r.summary.n}, ${kilo(p.r.summary.mean_tokens)} tokens`;
      m.appendChild(s("title", {text: `${p.i + 1}. ${name}: ${numbers}`}));
      svg.appendChild(m);
      // a point's number above those of the points drawn before it close by (no two numbers overlap)
      const tx = Math.min(cx + 7, W - R - 12), tw = 6 * String(p.i + 1).length + 3;
      let ty = cy - 6;
      while (placed.some(o => tx < o[0] + o[2] && o[0] < tx + tw && ty - 13 < o[1] && o[1] - 13 < ty)) ty -= 13;
      placed.push([tx, ty, tw]);
      svg.appendChild(s("text", {x: tx, y: ty, fill: colour, "font-size": "9", text: String(p.i + 1)}));
      legend.appendChild(h("tr", null, h("td", {style: `color:${colour}`}, String(p.i + 1)), h("td", null, name), h("td", {class: "num"}, numbers)));
    });
    return h("div", null, svg, h("div", {class: "legend"},
      "circle: no pruning, square: LLM novelty, triangle: oracle novelty; hollow: thinking. Numbers: the configurations below."), legend);
  }
  // Figure 3's ticks, as search.states_ticks: 0, 1, 3, 10, 30, ... up to the first >= top
  function statesTicks(top) {
    const ticks = [0, 1];
    for (let step = 0; ticks[ticks.length - 1] < top; step++) ticks.push((step % 2 ? 10 : 3) * 10 ** Math.floor(step / 2));
    return ticks;
  }
  function fig3() {
    const runs = solveRuns.filter(r => (r.summary.config || {}).method !== "naive");
    const names = runs.map(r => (D.solve_tables.short || [])[solveRuns.indexOf(r)] || r.name);
    const longest = Math.max(10, ...names.map(n => n.length));
    const L = 50, B = Math.min(220, 20 + longest * 4.6), step = 46, H = 260 + B;
    const W = Math.max(420, L + 30 + step * runs.length + longest * 3);
    const svg = s("svg", {width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: "chart fig3"});
    const all = runs.flatMap(r => r.states_per_instance.length ? r.states_per_instance : [0]);
    const ticks = statesTicks(Math.max(1, ...all)), f = v => Math.log10(1 + Math.max(0, v));
    const Y = v => H - B - f(v) / f(ticks[ticks.length - 1]) * (H - B - 24);
    ticks.forEach(v => { svg.appendChild(s("line", {x1: L, x2: W - 10, y1: Y(v), y2: Y(v), stroke: "#eee"})); svg.appendChild(s("text", {x: L - 6, y: Y(v) + 4, "text-anchor": "end", class: "tick", text: String(v)})); });
    svg.appendChild(s("text", {x: 12, y: (H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${(H - B) / 2})`, text: "generated states per instance (log scale)"}));
    runs.forEach((r, i) => {
      const v = (r.states_per_instance.length ? r.states_per_instance : [0]).slice().sort((a, b) => a - b);
      // quartiles interpolated linearly between ranks, as matplotlib's boxplot (numpy percentile)
      const q = f => { const pos = f * (v.length - 1), lo = Math.floor(pos), hi = Math.min(v.length - 1, lo + 1); return v[lo] + (v[hi] - v[lo]) * (pos - lo); };
      const cx = L + 30 + i * step;
      svg.appendChild(s("line", {x1: cx, x2: cx, y1: Y(v[0]), y2: Y(v[v.length - 1]), stroke: "#555"}));
      const box = s("rect", {x: cx - 14, y: Y(q(0.75)), width: 28, height: Math.max(1, Y(q(0.25)) - Y(q(0.75))), fill: "#cfe0f3", stroke: "#1f5fa8"});
      box.appendChild(s("title", {text: `${names[i]}: min ${v[0]}, median ${fmt(q(0.5))}, max ${v[v.length - 1]}`}));
      svg.appendChild(box);
      svg.appendChild(s("line", {x1: cx - 14, x2: cx + 14, y1: Y(q(0.5)), y2: Y(q(0.5)), stroke: "#c62828", "stroke-width": 2}));
      svg.appendChild(s("text", {x: cx + 4, y: H - B + 12, "text-anchor": "end", "font-size": "10", transform: `rotate(-45 ${cx + 4} ${H - B + 12})`, text: names[i]}));
    });
    svg.appendChild(s("text", {x: L, y: 12, text: "box: quartiles, red: median, line: min–max" + (D.simulated ? " — SIMULATED" : "")}));
    return svg;
  }

  // ---- tabs --------------------------------------------------------------------------------
  const tabs = [];
  if (scoreRuns.length) {
    tabs.push(["grid", "Table 1", viewGrid]);
    if (scoreRuns.length > 1) tabs.push(["compare", "Compare runs", viewCompare]);
    tabs.push(["items", "All items", viewItems]);
  }
  if (solveRuns.length) tabs.push(["search", "Searches (Tables 3/4)", viewSearch]);
  tabs.push(["tokens", "Tokens", viewTokens]);
  tabs.push(["charts", "Charts", viewCharts]);
  if (D.difficulty && D.difficulty.length && window.widthbenchDifficultyView)
    tabs.push(["difficulty", "By difficulty", () => window.widthbenchDifficultyView(D)]);  // difficulty.js
  const views = {};
  const nav = document.getElementById("tabs");
  function open(id) {
    nav.querySelectorAll("button").forEach(b => b.classList.toggle("active", b.dataset.tab === id));
    Object.values(views).forEach(v => { v.hidden = true; });
    if (!views[id]) { const t = tabs.find(x => x[0] === id); views[id] = t[2](); app.appendChild(views[id]); }
    views[id].hidden = false;
  }
  tabs.forEach(([id, label]) => nav.appendChild(h("button", {type: "button", "data-tab": id, onclick: () => open(id)}, label)));
  document.getElementById("subtitle").textContent =
    `${D.runs.length} run(s): ${D.runs.map(r => r.dir).join(", ")} — written ${D.generated} — one self-contained file`;
  // The sticky header's height: toolbars stick below it and scrolled-to panels clear it.
  const setHead = () => document.documentElement.style.setProperty("--head", document.getElementById("top").offsetHeight + "px");
  setHead();
  window.addEventListener("resize", setHead);
  app.textContent = "";
  open(tabs[0][0]);
  window.__widthbenchReportReady = performance.now();
})();
