// Paneflow's web client. It draws the server's own screen model (the
// screen frames of screen.attach, relayed as they come) as rows of styled
// spans: no terminal emulator runs here, so the page shows what the
// server's emulator holds, cell for cell.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);

  // The pairing page: post the link's token (from the fragment, which no
  // server saw) once the user confirms.
  if ($('pairform')) {
    const tok = location.hash.slice(1);
    $('token').value = tok;
    history.replaceState(null, '', '/pair');
    if (!tok) {
      $('pairbtn').disabled = true;
      $('pairerr').textContent = 'This link has no pairing token: run `paneflow web pair` and open the link it prints.';
    }
    return;
  }

  // Colours: xterm's 256, the program's own (OSC 4/10/11) on top.
  const base16 = ['#000000', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
    '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];
  const hex = (n) => '#' + n.toString(16).padStart(6, '0');
  const xterm = base16.slice();
  const lv = [0, 95, 135, 175, 215, 255];
  for (let i = 0; i < 216; i++) xterm.push(hex(lv[Math.floor(i / 36)] << 16 | lv[Math.floor(i / 6) % 6] << 8 | lv[i % 6]));
  for (let i = 0; i < 24; i++) { const v = 8 + i * 10; xterm.push(hex(v << 16 | v << 8 | v)); }
  const DEF_FG = '#d8dee9', DEF_BG = '#000000';

  const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  // One pane's mirror: the rows as HTML and as text.
  const scr = {
    id: 0, cols: 0, rows: 0, html: [], text: [], styles: [], pal: xterm.slice(), fg: DEF_FG, bg: DEF_BG,
    cursor: null, rv: false, seq: 0, histLen: 0, dropped: 0,
  };
  // The scrollback shown above the screen: lines fetched with screen.rows,
  // from absolute line histFirst (history_dropped + index) up to histEnd,
  // where the screen's top was when they were asked for.
  const hist = { html: [], text: [], first: 0, end: 0, asked: false };

  function colour(c, fallback) {
    if (!c) return fallback;
    if (c & 0x2000000) return hex(c & 0xffffff);
    if (c & 0x1000000) return scr.pal[c & 0xff];
    return fallback;
  }

  // css turns a style [fg, bg, underline colour, attrs, link] into an
  // inline style.
  function css(st) {
    const a = st[3] || 0;
    let fg = colour(st[0], scr.fg), bg = colour(st[1], null);
    if (a & 16) { const f = fg; fg = bg || scr.bg; bg = f; }
    let s = '';
    if (fg !== scr.fg) s += 'color:' + fg + ';';
    if (bg) s += 'background:' + bg + ';';
    if (a & 1) s += 'font-weight:bold;';
    if (a & 2) s += 'opacity:.6;';
    if (a & 4) s += 'font-style:italic;';
    if (a & 32) s += 'color:transparent;';
    const ul = (a >> 8) & 7;
    const deco = [];
    if (ul) deco.push('underline' + (ul === 2 ? ' double' : ul === 3 ? ' wavy' : ul === 4 ? ' dotted' : ul === 5 ? ' dashed' : ''));
    if (a & 64) deco.push('line-through');
    if (a & 128) deco.push('overline');
    if (deco.length) s += 'text-decoration:' + deco.join(' ') + ';';
    if (st[2]) s += 'text-decoration-color:' + colour(st[2], fg) + ';';
    return s;
  }

  // row renders one row's runs: [style, "text" | ["cluster", …] | n, width].
  function row(runs, styles) {
    let h = '', t = '';
    for (const run of runs || []) {
      const st = styles[run[0]] || [];
      const w = run.length > 2 ? run[2] : 1;
      let cells;
      if (typeof run[1] === 'number') cells = Array(run[1]).fill(' ');
      else if (typeof run[1] === 'string') cells = Array.from(run[1]);
      else cells = run[1].map((c) => c || ' ');
      if (w === 0) continue; // right halves of wide characters
      let body = '';
      for (const c of cells) {
        t += c;
        body += (w === 2 || w === -2) ? '<span class="w">' + esc(c) + '</span>' : esc(c);
      }
      const s = css(st);
      h += s ? '<span style="' + s + '">' + body + '</span>' : body;
    }
    return [h, t.replace(/\s+$/, '')];
  }

  function applyFrame(f) {
    if (f.type === 'screen_closed') { if (f.surface_id === scr.id) showGone('The pane was closed.'); return; }
    if (f.surface_id !== scr.id) return;
    if (f.colors_changed) {
      scr.pal = xterm.slice(); scr.fg = DEF_FG; scr.bg = DEF_BG;
      for (const [i, rgb] of f.colors || []) {
        if (i < 256) scr.pal[i] = hex(rgb); else if (i === 256) scr.fg = hex(rgb); else if (i === 257) scr.bg = hex(rgb);
      }
    }
    if (f.full || f.cols !== scr.cols || f.rows !== scr.rows) {
      scr.cols = f.cols; scr.rows = f.rows;
      scr.html = Array(f.rows).fill(''); scr.text = Array(f.rows).fill('');
    }
    const styles = f.styles || [];
    for (const l of f.lines || []) {
      if (l.y < 0 || l.y >= scr.rows) continue;
      const [h, t] = row(l.runs, styles);
      scr.html[l.y] = h; scr.text[l.y] = t;
    }
    scr.cursor = f.cursor; scr.rv = !!f.reverse_video; scr.seq = f.seq; scr.title = f.title || '';
    scr.histLen = f.history_len || 0; scr.dropped = f.history_dropped || 0;
    if (hist.end && hist.end !== scr.dropped + scr.histLen && !hist.asked) {
      // The screen scrolled: the earlier output shown no longer joins it.
      hist.html = []; hist.text = []; hist.first = 0; hist.end = 0; $('hist').innerHTML = '';
    }
    // At once, not at the next paint: what the page knows (paneflowRows)
    // and what it offers agree as soon as a frame is in.
    moreButton();
    draw();
  }

  let drawPending = false;
  function draw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      const el = $('scr');
      el.style.color = scr.rv ? scr.bg : scr.fg;
      el.style.background = scr.rv ? scr.fg : scr.bg;
      let h = '';
      for (let y = 0; y < scr.rows; y++) h += '<div class="r">' + (scr.html[y] || '') + '</div>';
      const c = scr.cursor;
      if (c && c.visible) {
        const shape = c.shape === 3 ? ' bar' : c.shape === 2 ? ' und' : '';
        h += '<div class="cur' + shape + '" style="left:calc(' + c.x + 'ch + 2px);top:calc(' + c.y + ' * var(--lh) + 2px)"></div>';
      }
      el.innerHTML = h;
      $('hist').style.color = el.style.color; $('hist').style.background = el.style.background;
      moreButton();
      fit();
      choices();
      el.dataset.seq = String(scr.seq);
      stats.drawn++;
    });
  }

  // moreButton offers Earlier output while the server holds lines above
  // what is shown.
  function moreButton() {
    $('more').hidden = hist.end === scr.dropped + scr.histLen ? hist.first <= scr.dropped : scr.histLen === 0;
  }

  // fit sizes the font so the pane's width fits the screen, down to 7px
  // (below that the rows scroll sideways). With "Larger text" on (kept
  // in this browser) it is a readable 13px at least, and a pane wider
  // than the screen scrolls sideways: on a phone an 80-column pane fits
  // only at 7px.
  let larger = localStorage.getItem('paneflow.larger') === '1';
  function fit() {
    const wrap = $('scrwrap');
    const avail = wrap.clientWidth - 6;
    let px = Math.max(7, Math.min(14, avail / (scr.cols * 0.6)));
    if (larger) px = Math.max(px, 13);
    $('scr').style.fontSize = px.toFixed(2) + 'px';
    $('hist').style.fontSize = px.toFixed(2) + 'px';
    $('zoom').setAttribute('aria-pressed', String(larger));
    $('zoom').textContent = larger ? 'Fit width' : 'Larger text';
  }
  window.addEventListener('resize', () => { if (scr.id) fit(); });
  $('zoom').addEventListener('click', () => {
    larger = !larger;
    localStorage.setItem('paneflow.larger', larger ? '1' : '0');
    fit();
  });

  // choices offers a button per numbered choice of a menu at the bottom
  // of the screen (an agent's permission prompt): pressing it types the
  // number, as the user would.
  function choices() {
    const box = $('choices');
    const found = [];
    for (let y = scr.rows - 1; y >= 0 && y >= scr.rows - 25; y--) {
      const m = /^[\s│|]*(?:[❯>›▶➤]\s*)?(\d)[.)]\s+(\S.{0,40})/.exec(scr.text[y] || '');
      if (m && !found.some((f) => f[0] === m[1])) found.unshift([m[1], m[2].replace(/[\s│|]+$/, '')]);
    }
    const sorted = found.length >= 2 && found.every((f, i) => i === 0 || +f[0] === +found[i - 1][0] + 1);
    const key = sorted ? JSON.stringify(found) : '';
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = '';
    if (!sorted) return;
    for (const [n, label] of found) {
      const b = document.createElement('button');
      b.textContent = n + '. ' + label;
      b.dataset.choice = n;
      b.disabled = !canWrite();
      b.addEventListener('click', () => write({ t: 'type', id: scr.id, text: n }, b.textContent));
      box.appendChild(b);
    }
  }

  // Earlier output: the 100 lines above what is shown, from the server's
  // scrollback (anew when the screen scrolled since the last ones).
  $('more').addEventListener('click', () => {
    if (!scr.id || hist.asked) return;
    const end = scr.dropped + scr.histLen;
    if (hist.end !== end) { hist.html = []; hist.text = []; hist.first = end; hist.end = end; }
    const from = Math.max(scr.dropped, hist.first - 100);
    if (from >= hist.first) return;
    hist.asked = true;
    send({ t: 'rows', id: scr.id, from: from - scr.dropped, to: hist.first - scr.dropped });
  });
  function applyRows(m) {
    hist.asked = false;
    if (m.id !== scr.id) return;
    const r = m.r, styles = r.styles || [];
    const html = [], text = [];
    for (const l of r.lines || []) { const [h, t] = row(l.runs, styles); html.push(h); text.push(t); }
    const first = r.lines && r.lines.length ? r.history_dropped + r.lines[0].y : hist.first;
    hist.html = html.concat(hist.html); hist.text = text.concat(hist.text); hist.first = first;
    let h = '';
    for (const x of hist.html) h += '<div class="r">' + x + '</div>';
    $('hist').innerHTML = h;
    $('more').hidden = hist.first <= scr.dropped;
    $('scrwrap').scrollTop = 0;
  }

  // The overview.
  let hello = null, skew = 0, panes = [];
  const stateLabel = { thinking: 'thinking', waiting_for_input: 'waiting', finished: 'finished', errored: 'errored', stalled: 'stalled', idle: 'idle', unknown_running: 'running' };
  function ago(since) {
    if (!since) return '';
    const s = Math.max(0, Math.round((Date.now() + skew - since) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + Math.floor(s % 3600 / 60) + 'm';
  }
  function drawOverview() {
    const ul = $('panes');
    let h = '';
    for (const p of panes) {
      h += '<li class="card" data-id="' + p.id + '"><div class="top"><span class="name">' + esc(p.name || ('pane ' + p.id)) + '</span>';
      if (p.state) h += '<span class="st st-' + esc(p.state) + '">' + esc(stateLabel[p.state] || p.state) + ' <span class="ago" data-since="' + p.since + '">' + ago(p.since) + '</span></span>';
      else if (p.exited) h += '<span class="st">exited</span>';
      h += '</div><div class="line muted">ws ' + (p.ws + 1) + (p.tool ? ' · ' + esc(p.tool) : p.cmd ? ' · ' + esc(p.cmd) : '') + (p.title ? ' · ' + esc(p.title) : '') + '</div>';
      if (p.state === 'waiting_for_input' && p.msg) h += '<div class="q">' + esc(p.msg) + '</div>';
      if (p.result) h += '<div class="res muted">' + esc(p.result) + '</div>';
      h += '</li>';
    }
    ul.innerHTML = h || '<li class="muted">No panes.</li>';
    if (scr.id) {
      const p = panes.find((x) => x.id === scr.id);
      $('status').textContent = p ? [p.tool, stateLabel[p.state] || p.state, p.state ? ago(p.since) : '', p.state === 'waiting_for_input' ? p.msg : ''].filter(Boolean).join(' · ') : '';
      if (p) $('head').textContent = p.name || ('pane ' + p.id);
    }
  }
  $('panes').addEventListener('click', (e) => {
    const li = e.target.closest('.card');
    if (li) location.hash = 'pane/' + li.dataset.id;
  });
  setInterval(() => {
    for (const el of document.querySelectorAll('.ago')) el.textContent = ago(+el.dataset.since);
  }, 1000);

  function route() {
    const m = /^#pane\/(\d+)$/.exec(location.hash);
    const id = m ? +m[1] : 0;
    if (id === scr.id) return;
    scr.id = id; scr.cols = 0; scr.rows = 0; scr.html = []; scr.text = [];
    $('scr').innerHTML = ''; $('hist').innerHTML = ''; $('more').hidden = true; $('choices').textContent = '';
    hist.html = []; hist.text = []; hist.first = 0; hist.end = 0; hist.asked = false; $('choices').dataset.key = ''; $('result').textContent = '';
    $('overview').hidden = !!id; $('pane').hidden = !id; $('back').hidden = !id;
    if (!id) $('head').textContent = 'Paneflow';
    send({ t: id ? 'open' : 'close', id });
    drawOverview();
  }
  window.addEventListener('hashchange', route);
  $('back').addEventListener('click', () => { location.hash = ''; });
  function showGone(why) { $('result').textContent = why; }

  // Writes.
  let reqN = 0;
  const pending = new Map();
  function canWrite() { return hello && !hello.ro && hello.writes; }
  function write(msg, what) {
    if (!canWrite()) return;
    msg.req = ++reqN;
    pending.set(msg.req, what);
    $('result').textContent = 'Sending ' + what + '…';
    send(msg);
  }
  $('keys').addEventListener('click', (e) => {
    const k = e.target.dataset && e.target.dataset.key;
    if (k && scr.id) write({ t: 'key', id: scr.id, key: k }, e.target.textContent);
    if (e.target.id === 'stop' && scr.id) write({ t: 'stop', id: scr.id }, 'Stop');
  });
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('prompt').value;
    if (!text.trim() || !scr.id) return;
    write({ t: 'send', id: scr.id, text }, 'the prompt');
    $('prompt').value = '';
  });
  $('prompt').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); $('composer').requestSubmit(); }
  });
  function applyWrites() {
    const on = canWrite();
    for (const b of document.querySelectorAll('#keys button, #choices button, #sendbtn')) b.disabled = !on;
    $('prompt').disabled = !on;
    const n = $('notice');
    n.hidden = on;
    if (!on) n.textContent = hello.ro ? 'This browser was paired read-only: it can watch, not type.'
      : 'Typing into panes is off on this server (its scripting gate is closed): start it with PANEFLOW_IPC_SCRIPTING=1 to type from here.';
  }

  // The connection.
  let ws = null, backoff = 500, byeWhy = '';
  const stats = { bytes: 0, frames: 0, drawn: 0 }; // received: message bytes (UTF-16 units), screen frames; drawn: paints
  function send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); }
  function connect() {
    $('conn').textContent = 'connecting…';
    fetch('/session', { credentials: 'same-origin', cache: 'no-store' }).then((r) => {
      if (r.status === 401) { notPaired(); return; }
      if (!r.ok) throw new Error('HTTP ' + r.status);
      open();
    }).catch(retry);
  }
  function notPaired() {
    $('conn').textContent = '';
    const n = $('notice');
    n.hidden = false;
    n.textContent = 'This browser is not paired with this server. On the machine running Paneflow, run `paneflow web pair` and open the link it prints here.';
  }
  function retry() {
    $('conn').textContent = 'offline, retrying';
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 10000);
  }
  function open() {
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      stats.bytes += ev.data.length;
      if (m.t === 'f') stats.frames++;
      switch (m.t) {
        case 'hello':
          hello = m; skew = m.now - Date.now(); backoff = 500;
          $('conn').textContent = m.ro ? 'read-only' : '';
          applyWrites();
          if (scr.id) send({ t: 'open', id: scr.id });
          break;
        case 'overview': {
          panes = m.panes; drawOverview(); document.body.dataset.overview = String(panes.length);
          // For tests and tools: when each pane's state was first shown
          // (epoch ms) and when the first overview was painted.
          const at = performance.timeOrigin + performance.now();
          for (const p of panes) { const s = seen[p.id]; if (!s || s.state !== p.state) seen[p.id] = { state: p.state || '', at }; }
          if (!window.paneflowFirstOverview) requestAnimationFrame(() => { window.paneflowFirstOverview = performance.now(); });
          break;
        }
        case 'f': applyFrame(m.f); break;
        case 'rows': applyRows(m); break;
        case 'bye': byeWhy = m.why; break;
        case 'gone': if (m.id === scr.id) showGone(m.err); break;
        case 'res': {
          const what = pending.get(m.req) || 'it';
          pending.delete(m.req);
          $('result').textContent = m.ok ? 'Sent ' + what + (m.confirming ? '; waiting for the agent to start…' : '.') : 'Not sent: ' + m.err;
          break;
        }
        case 'start':
          // The turn-start confirmation of a submitted prompt, as
          // `paneflow send --submit` gives it.
          $('result').textContent = m.ok ? 'Sent; the agent started its turn.' : 'Sent, but ' + m.err.replace(/^submit was written to agent pane \d+, but /, '') + '.';
          $('result').dataset.start = m.ok ? m.reason : 'none';
          break;
      }
    };
    ws.onclose = (ev) => {
      ws = null;
      if (byeWhy) { $('notice').hidden = false; $('notice').textContent = 'Disconnected: ' + byeWhy + '.'; $('conn').textContent = ''; return; }
      retry();
    };
  }

  // For tests and tools: the rows of the open pane as text.
  window.paneflowRows = () => scr.text.slice();
  window.paneflowHistory = () => hist.text.slice();
  const seen = {};
  window.paneflowStates = () => seen;
  window.paneflowStats = () => ({ bytes: stats.bytes, frames: stats.frames, drawn: stats.drawn });
  route();
  connect();
})();
