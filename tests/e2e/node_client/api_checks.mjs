// @kubernetes/client-node 1.x against Capstan: typed CRUD, ApiException with kube's Status, merge and
// JSON patches through setHeaderOptions, server-side apply, a Watch, pagination, the scale
// subresource, a CRD with CustomObjectsApi, and the generic KubernetesObjectApi over discovery.
// Usage: node api_checks.mjs KUBECONFIG. Prints "ok <check>" per check; exits 1 at the first failure.
import * as k8s from '@kubernetes/client-node';

function check(cond, what, detail) {
  if (!cond) {
    console.log('FAIL', what, detail === undefined ? '' : JSON.stringify(detail));
    process.exit(1);
  }
  console.log('ok', what);
}
async function apiError(fn) {
  try {
    await fn();
  } catch (e) {
    if (e instanceof k8s.ApiException) return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
    throw e;
  }
  return { code: 0, body: null };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.argv[2]);
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const namespace = 'js';

const version = await kc.makeApiClient(k8s.VersionApi).getCode();
check(version.major === '1' && version.minor.startsWith('32'), 'version is 1.32', version);

await core.createNamespace({ body: { metadata: { name: namespace } } });
const cm = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: 'v' } } });
check(cm.metadata.uid && cm.metadata.resourceVersion, 'create answers uid and resourceVersion');
check(cm.metadata.creationTimestamp instanceof Date, 'timestamps decode as dates', cm.metadata.creationTimestamp);
const got = await core.readNamespacedConfigMap({ name: 'a', namespace });
check(got.data.k === 'v', 'read', got.data);

const merged = await core.patchNamespacedConfigMap({ name: 'a', namespace, body: { data: { k2: 'v2' } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
check(merged.data.k2 === 'v2' && merged.data.k === 'v', 'merge patch', merged.data);
const strategic = await core.patchNamespacedConfigMap({ name: 'a', namespace, body: { data: { k3: 'v3' } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch));
check(strategic.data.k3 === 'v3', 'strategic merge patch', strategic.data);
const jsonPatched = await core.patchNamespacedConfigMap({ name: 'a', namespace, body: [{ op: 'remove', path: '/data/k3' }] },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
check(!('k3' in jsonPatched.data), 'JSON patch', jsonPatched.data);
const applied = await core.patchNamespacedConfigMap({ name: 'b', namespace, fieldManager: 'js-client', force: true,
  body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { s: '1' } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply));
check(applied.metadata.managedFields.some((m) => m.manager === 'js-client' && m.operation === 'Apply'), 'server-side apply',
  applied.metadata.managedFields);

got.data = { stale: 'write' };
let err = await apiError(() => core.replaceNamespacedConfigMap({ name: 'a', namespace, body: got }));
check(err.code === 409 && err.body.reason === 'Conflict', 'stale replace is 409 Conflict', err);
err = await apiError(() => core.readNamespacedConfigMap({ name: 'missing', namespace }));
check(err.code === 404 && err.body.message === 'configmaps "missing" not found', '404 Status', err);
err = await apiError(() => core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'Bad_Name' } } }));
check(err.code === 422 && err.body.details.causes[0].field === 'metadata.name', '422 with causes', err);

const listed = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=x' });
check(listed.items.map((i) => i.metadata.name).join() === 'a', 'list by label selector', listed.items.length);

// A Watch from the list's resourceVersion sees a create and a delete.
const events = [];
const watch = new k8s.Watch(kc);
const done = new Promise((resolve) => {
  watch.watch(`/api/v1/namespaces/${namespace}/configmaps`, { resourceVersion: listed.metadata.resourceVersion },
    (type, obj) => {
      if (obj.metadata?.name === 'w') events.push(type);
      if (type === 'DELETED' && obj.metadata?.name === 'w') resolve();
    }, (e) => { if (e) resolve(); }).then((req) => { globalThis.watchRequest = req; });
});
await sleep(300);
await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'w' } } });
await core.deleteNamespacedConfigMap({ name: 'w', namespace });
await Promise.race([done, sleep(10000)]);
globalThis.watchRequest?.abort();
check(events.join() === 'ADDED,DELETED', 'watch events', events);

for (let i = 0; i < 5; i++) {
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `page-${i}`, labels: { page: 'yes' } } } });
}
const names = [];
let token;
do {
  const page = await core.listNamespacedConfigMap({ namespace, labelSelector: 'page=yes', limit: 2, _continue: token });
  names.push(...page.items.map((i) => i.metadata.name));
  token = page.metadata._continue;
} while (token);
check(names.join() === 'page-0,page-1,page-2,page-3,page-4', 'paginated list', names);
await core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: 'page=yes' });
check((await core.listNamespacedConfigMap({ namespace, labelSelector: 'page=yes' })).items.length === 0, 'delete collection');

await apps.createNamespacedDeployment({ namespace, body: {
  metadata: { name: 'web' },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } } });
await apps.patchNamespacedDeploymentScale({ name: 'web', namespace, body: { spec: { replicas: 4 } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
check((await apps.readNamespacedDeploymentScale({ name: 'web', namespace })).spec.replicas === 4, 'scale subresource');

await ext.createCustomResourceDefinition({ body: {
  metadata: { name: 'gadgets.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } } } } } }] } } });
let established = false;
for (let i = 0; i < 100 && !established; i++) {
  const crd = await ext.readCustomResourceDefinition({ name: 'gadgets.example.com' });
  established = (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (!established) await sleep(100);
}
check(established, 'CRD becomes Established');
const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 2 } };
for (let i = 0; i < 50; i++) {
  const e = await apiError(() => custom.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace, plural: 'gadgets', body: gadget }));
  if (e.code !== 404) break;
  await sleep(100);
}
const g = await custom.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace, plural: 'gadgets', name: 'g1' });
check(g.spec.size === 2, 'custom object round trip', g);
const st = await custom.patchNamespacedCustomObjectStatus({ group: 'example.com', version: 'v1', namespace, plural: 'gadgets', name: 'g1',
  body: { status: { ready: true } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
check(st.status.ready === true && st.spec.size === 2, 'custom object status subresource', st);

// The generic client resolves kinds through discovery.
const generic = k8s.KubernetesObjectApi.makeApiClient(kc);
const read = await generic.read({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace } });
check(read.status.ready === true, 'KubernetesObjectApi read of a custom kind', read);
const list = await generic.list('v1', 'ConfigMap', namespace);
check(list.items.some((i) => i.metadata.name === 'a'), 'KubernetesObjectApi list');

// The namespace is Terminating, or already gone when the namespace controller was quick.
await core.deleteNamespace({ name: namespace });
const after = await apiError(async () => {
  const n = await core.readNamespace({ name: namespace });
  if (n.status.phase !== 'Terminating') throw new Error(`phase ${n.status.phase}`);
});
check(after.code === 0 || after.code === 404, 'namespace deletion starts', after);
console.log('done');
process.exit(0);
