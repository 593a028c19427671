// @kubernetes/client-node's pod streams through Capstan to a kubelet: Log (pods/log, also followed)
// and Exec (WebSocket v5.channel.k8s.io to Capstan, SPDY to the kubelet), with stdin and exit codes.
// Usage: node pod_streams.mjs KUBECONFIG NAMESPACE POD CONTAINER. Prints "ok <check>" per check; exits
// 1 at the first failure.
import * as k8s from '@kubernetes/client-node';
import { PassThrough, Writable } from 'node:stream';

function check(cond, what, detail) {
  if (!cond) {
    console.log('FAIL', what, detail === undefined ? '' : JSON.stringify(detail));
    process.exit(1);
  }
  console.log('ok', what);
}
function collector() {
  const chunks = [];
  const stream = new Writable({ write(chunk, _enc, cb) { chunks.push(Buffer.from(chunk)); cb(); } });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

const [kubeconfig, namespace, pod, container] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);

const log = collector();
await new k8s.Log(kc).log(namespace, pod, container, log.stream, { tailLines: 2 });
await new Promise((r) => setTimeout(r, 300));
check(log.text() === `log of ${container} (tailLines=2)\n`, 'pods/log', log.text());

const exec = new k8s.Exec(kc);
async function run(command, stdin) {
  const out = collector();
  const err = collector();
  let input = null;
  if (stdin !== undefined) {
    input = new PassThrough();
  }
  const status = await new Promise((resolve, reject) => {
    exec.exec(namespace, pod, container, command, out.stream, err.stream, input, false, (st) => resolve(st))
      .then((ws) => {
        if (input) {
          input.write(stdin);
          setTimeout(() => input.end(), 200);
        }
      })
      .catch(reject);
  });
  return { status, out: out.text(), err: err.text() };
}
let r = await run(['echo', 'hello', 'node']);
check(r.out === 'hello node\n' && r.status.status === 'Success', 'exec stdout and Success', r);
r = await run(['cat'], 'ping\n');
check(r.out === 'ping\n' && r.status.status === 'Success', 'exec stdin to stdout, stdin closed ends cat', r);
r = await run(['warn', 'careful']);
check(r.err.includes('careful'), 'exec stderr', r);
r = await run(['exit', '3']);
check(r.status.status === 'Failure' && r.status.reason === 'NonZeroExitCode' &&
      r.status.details.causes.some((c) => c.reason === 'ExitCode' && c.message === '3'), 'exec exit code', r.status);
console.log('done');
process.exit(0);
