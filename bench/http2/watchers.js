// 1000 watchers of one namespace's ConfigMaps, then 1000 creates in it: how long until every watcher
// has seen every event, and the server's RSS and CPU time meanwhile. Watchers ride on 10 HTTP/2
// connections (100 streams each, node:http2) or on 1000 HTTP/1.1 connections (node:https, one watch
// per connection). The writes go over one more HTTP/2 connection, 32 at a time.
//   node watchers.js <h2|h1> <port> <pki dir> <namespace> <server pid> [watchers] [events]
'use strict';
const http2 = require('node:http2');
const https = require('node:https');
const fs = require('node:fs');

const [mode, port, pki, ns, pid, nWatchArg, nEventsArg] = process.argv.slice(2);
const WATCHERS = Number(nWatchArg || 1000);
const EVENTS = Number(nEventsArg || 1000);
const tls = {ca: fs.readFileSync(`${pki}/ca.crt`), cert: fs.readFileSync(`${pki}/admin.crt`),
             key: fs.readFileSync(`${pki}/admin.key`)};
const base = `/api/v1/namespaces/${ns}/configmaps`;

function rssMiB() { return Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024); }
function cpuSeconds() {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function h2request(session, method, path, body) {
  return new Promise((resolve) => {
    const h = {':method': method, ':path': path};
    if (body) h['content-type'] = 'application/json';
    const req = session.request(h);
    let status = 0, data = '';
    req.on('response', (hd) => { status = hd[':status']; });
    req.setEncoding('utf8');
    req.on('data', (c) => { data += c; });
    req.on('end', () => resolve({status, body: data}));
    req.on('error', (e) => resolve({status: -1, body: e.message}));
    if (body) req.write(body);
    req.end();
  });
}

async function main() {
  const writer = http2.connect(`https://127.0.0.1:${port}`, tls);
  await new Promise((r) => writer.on('connect', r));
  const list = JSON.parse((await h2request(writer, 'GET', base)).body);
  const rv = list.metadata.resourceVersion;
  const path = `${base}?watch=1&resourceVersion=${rv}&timeoutSeconds=600&allowWatchBookmarks=false`;

  let done = 0, ended = 0, opened = 0;
  const counts = new Array(WATCHERS).fill(0);
  let allDone;
  const allDonePromise = new Promise((r) => { allDone = r; });
  const onData = (i, chunk) => {
    let n = 0;
    for (let k = chunk.indexOf(10); k !== -1; k = chunk.indexOf(10, k + 1)) n++;
    const before = counts[i];
    counts[i] += n;
    if (before < EVENTS && counts[i] >= EVENTS && ++done === WATCHERS) allDone();
  };
  const onEnd = () => { ended++; };
  const sessions = [];
  const agents = [];
  await new Promise((resolveOpen) => {
    const opened1 = () => { if (++opened === WATCHERS) resolveOpen(); };
    if (mode === 'h2') {
      const perSession = Math.ceil(WATCHERS / 10);
      for (let s = 0; s < 10; s++) sessions.push(http2.connect(`https://127.0.0.1:${port}`, {...tls, settings: {initialWindowSize: 1 << 20}}));
      for (let i = 0; i < WATCHERS; i++) {
        const req = sessions[Math.floor(i / perSession)].request({':method': 'GET', ':path': path});
        req.on('response', opened1);
        req.on('data', (c) => onData(i, c));
        req.on('end', onEnd);
        req.on('error', onEnd);
      }
    } else {
      const agent = new https.Agent({...tls, keepAlive: true, maxSockets: WATCHERS + 10});
      agents.push(agent);
      for (let i = 0; i < WATCHERS; i++) {
        const req = https.request({host: '127.0.0.1', port, path, method: 'GET', agent, ALPNProtocols: ['http/1.1']}, (res) => {
          opened1();
          res.on('data', (c) => onData(i, c));
          res.on('end', onEnd);
        });
        req.on('error', onEnd);
        req.end();
      }
    }
  });
  const rssWatching = rssMiB();
  const cpu0 = cpuSeconds();
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < EVENTS) {
      const i = next++;
      const r = await h2request(writer, 'POST', base,
                                JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: `w${mode}-${i}`}, data: {v: String(i)}}));
      if (r.status !== 201) { console.error('create failed', r.status, r.body); process.exit(1); }
    }
  };
  await Promise.all(Array.from({length: 32}, worker));
  const writesMs = Date.now() - t0;
  const timeout = new Promise((r) => setTimeout(r, 120000));
  await Promise.race([allDonePromise, timeout]);
  const ms = Date.now() - t0;
  const cpu = cpuSeconds() - cpu0;
  const rssAfter = rssMiB();
  const complete = done === WATCHERS;
  console.log(`${mode === 'h2' ? `${WATCHERS} watchers on 10 h2 connections` : `${WATCHERS} watchers on ${WATCHERS} HTTP/1.1 connections`}: ` +
              `${EVENTS} creates written in ${writesMs} ms; every watcher had every event after ${complete ? ms + ' ms' : 'NEVER (' + done + ' complete, ' + ended + ' ended)'}; ` +
              `server CPU ${cpu.toFixed(2)} s; server RSS ${rssWatching} MiB watching, ${rssAfter} MiB after`);
  for (const s of sessions) s.destroy();
  for (const a of agents) a.destroy();
  writer.destroy();
  process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
