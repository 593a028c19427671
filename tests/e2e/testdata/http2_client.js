// An HTTP/2 client for the e2e tests (tests/e2e/http2_test.cpp), on Node's built-in node:http2: every
// request of a run goes over ONE session (one TLS connection). Prints one JSON line with what it saw.
//   node http2_client.js <mode> <port> <pki dir> <namespace> [server pid]
// modes: multiplex  many concurrent GETs and two watches on one connection
//        stall      a watch whose reader stops, and GETs on the same connection meanwhile
//        reset      a watch the client resets (RST_STREAM): the server's watcher must go away
//        goaway     a watch open while the server gets SIGTERM: GOAWAY, then the watch ends cleanly
//        settings   the server's SETTINGS
'use strict';
const http2 = require('node:http2');
const fs = require('node:fs');

const [mode, port, pki, ns, pid] = process.argv.slice(2);
const session = http2.connect(`https://127.0.0.1:${port}`, {
  ca: fs.readFileSync(`${pki}/ca.crt`),
  cert: fs.readFileSync(`${pki}/admin.crt`),
  key: fs.readFileSync(`${pki}/admin.key`),
  // A small window, so a reader that stops exhausts it quickly.
  settings: {initialWindowSize: mode === 'stall' ? 16384 : 65535},
});
let goaway = null;
session.on('goaway', (code, last) => { goaway = {code, last}; });
session.on('error', (e) => { finish({error: 'session: ' + e.message}); });

function finish(result) {
  result.alpn = session.alpnProtocol;
  process.stdout.write(JSON.stringify(result) + '\n');
  session.destroy();
  process.exit(0);
}

// One request; resolves {status, body, ms}.
function request(method, path, body) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const headers = {':method': method, ':path': path};
    if (body) headers['content-type'] = 'application/json';
    const req = session.request(headers);
    let status = 0;
    let data = '';
    req.on('response', (h) => { status = h[':status']; });
    req.setEncoding('utf8');
    req.on('data', (c) => { data += c; });
    req.on('end', () => resolve({status, body: data, ms: Date.now() - t0}));
    req.on('error', (e) => resolve({status: -1, body: e.message, ms: Date.now() - t0}));
    if (body) req.write(body);
    req.end();
  });
}

// A watch: counts events; `until` (optional) decides when to stop reading it.
function watch(path) {
  const w = {status: 0, events: 0, bytes: 0, text: '', ended: false, error: null};
  w.req = session.request({':method': 'GET', ':path': path});
  w.req.on('response', (h) => { w.status = h[':status']; });
  w.req.setEncoding('utf8');
  w.req.on('data', (c) => {
    w.bytes += Buffer.byteLength(c);
    w.text += c;
    w.events = (w.text.match(/\n/g) || []).length;  // each event is one line
  });
  w.req.on('end', () => { w.ended = true; });
  w.req.on('error', (e) => { w.error = e.message; });
  w.req.on('close', () => { w.closed = true; });
  return w;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await sleep(20);
  }
  return pred();
}

function cm(name, size) {
  return JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name}, data: {v: 'x'.repeat(size)}});
}

async function metric(name, labels) {
  const r = await request('GET', '/metrics');
  for (const line of r.body.split('\n')) {
    if (line.startsWith(name + '{' + labels + '}') || (labels === '' && line.startsWith(name + ' '))) {
      return Number(line.split(' ').pop());
    }
  }
  return 0;
}

async function multiplex() {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const w1 = watch(`${base}?watch=1&timeoutSeconds=20`);
  const w2 = watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=20&labelSelector=none%3Dnone`);
  await waitFor(() => w1.status && w2.status, 5000);
  const creates = [];
  for (let i = 0; i < 10; i++) creates.push(request('POST', base, cm(`m${i}`, 10)));
  const gets = [];
  for (let i = 0; i < 100; i++) gets.push(request('GET', i % 2 ? base : '/api/v1/namespaces/default'));
  const cr = await Promise.all(creates);
  const gr = await Promise.all(gets);
  await waitFor(() => w1.events >= 10, 5000);
  const streams = await metric('capstan_http2_streams_total', '');
  finish({
    creates_ok: cr.filter((r) => r.status === 201).length,
    gets_ok: gr.filter((r) => r.status === 200).length,
    watch1_status: w1.status, watch1_events: w1.events,
    watch2_status: w2.status, watch2_events: w2.events,
    watches_open: !w1.ended && !w2.ended,
    streams,
  });
}

async function stall() {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  // About 600 KiB of initial events for the watch: far beyond the 16 KiB window.
  for (let i = 0; i < 3; i++) await request('POST', base, cm(`big${i}`, 200 * 1024));
  const w = watch(`${base}?watch=1&timeoutSeconds=30`);
  w.req.pause();  // stop reading: the client stops sending WINDOW_UPDATE for this stream
  await sleep(1500);
  const stalled_bytes = w.bytes;
  const t0 = Date.now();
  const gets = [];
  for (let i = 0; i < 20; i++) gets.push(request('GET', `${base}/big${i % 3}`));
  const gr = await Promise.all(gets);
  const gets_ms = Date.now() - t0;
  w.req.resume();
  await waitFor(() => w.events >= 3, 10000);
  finish({
    watch_status: w.status, stalled_bytes, gets_ok: gr.filter((r) => r.status === 200).length,
    gets_ms, events_after_resume: w.events, bytes_after_resume: w.bytes,
  });
}

async function reset() {
  const labels = 'resource="configmaps"';
  const before = await metric('capstan_watch_cache_watchers', labels);
  const w = watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=600`);
  await waitFor(() => w.status, 5000);
  await sleep(300);
  const during = await metric('capstan_watch_cache_watchers', labels);
  w.req.close(http2.constants.NGHTTP2_CANCEL);  // RST_STREAM(CANCEL)
  let after = during;
  const t0 = Date.now();
  while (Date.now() - t0 < 5000) {
    after = await metric('capstan_watch_cache_watchers', labels);
    if (after <= before) break;
    await sleep(100);
  }
  const resets = await metric('capstan_http2_stream_resets_received_total', '');
  finish({watch_status: w.status, before, during, after, resets, released_ms: Date.now() - t0});
}

async function goaway_mode() {
  const w = watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=600`);
  await waitFor(() => w.status, 5000);
  process.kill(Number(pid), 'SIGTERM');
  await waitFor(() => w.closed, 20000);
  await waitFor(() => goaway !== null, 2000);
  finish({watch_status: w.status, watch_ended: w.ended, watch_error: w.error, goaway});
}

async function settings() {
  await request('GET', '/version');
  finish({settings: session.remoteSettings});
}

session.on('connect', () => {
  const run = {multiplex, stall, reset, goaway: goaway_mode, settings}[mode];
  run().catch((e) => finish({error: String(e)}));
});
setTimeout(() => finish({error: 'timeout'}), 60000);
