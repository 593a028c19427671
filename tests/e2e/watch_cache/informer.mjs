// An @kubernetes/client-node Informer on the configmaps of one namespace (the e2e watch cache test).
// Usage: node informer.mjs <kubeconfig> <namespace> <state-file>
// It writes its cache as {"<name>": "<resourceVersion>|<data.v>"} to <state-file> whenever it changes,
// and restarts the informer after an error, as controllers do.
import * as k8s from '@kubernetes/client-node';
import { writeFileSync, renameSync } from 'node:fs';

const [kubeconfig, namespace, stateFile] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const api = kc.makeApiClient(k8s.CoreV1Api);
const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`,
                                  () => api.listNamespacedConfigMap({ namespace }));
let dirty = true;
for (const ev of ['add', 'update', 'delete']) informer.on(ev, () => { dirty = true; });
informer.on('error', (err) => {
  console.error('informer error', err?.message ?? err);
  setTimeout(() => informer.start().catch(() => {}), 500);
});
setInterval(() => {
  if (!dirty) return;
  dirty = false;
  const state = {};
  for (const cm of informer.list()) state[cm.metadata.name] = `${cm.metadata.resourceVersion}|${cm.data?.v ?? ''}`;
  writeFileSync(stateFile + '.tmp', JSON.stringify(state));
  renameSync(stateFile + '.tmp', stateFile);
}, 100);
await informer.start();
