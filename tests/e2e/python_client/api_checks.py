"""The current `kubernetes` Python client (PyPI) against Capstan: typed CRUD, errors as ApiException
with kube's Status, strategic-merge and server-side apply patches, a watch, the scale subresource, a
CRD and its custom objects, and the dynamic client over discovery.

Usage: api_checks.py KUBECONFIG. Prints "ok <check>" per check; exits 1 at the first failure."""
import json
import sys
import threading
import time

from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException


def check(cond, what, detail=""):
    if not cond:
        print("FAIL", what, detail)
        sys.exit(1)
    print("ok", what)


def api_error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except ApiException as e:
        return e.status, json.loads(e.body)
    return None, None


config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
ext = client.ApiextensionsV1Api(api)
custom = client.CustomObjectsApi(api)
ns = "py"

version = client.VersionApi(api).get_code()
check(version.major == "1" and version.minor.startswith("32"), "version is 1.32", version)

core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
cm = core.create_namespaced_config_map(
    ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a", labels={"app": "x"}), data={"k": "v"}))
check(cm.metadata.uid and cm.metadata.resource_version, "create answers uid and resourceVersion")
got = core.read_namespaced_config_map("a", ns)
check(got.data == {"k": "v"} and got.metadata.labels == {"app": "x"}, "read", got.data)

patched = core.patch_namespaced_config_map("a", ns, {"data": {"k2": "v2"}})
check(patched.data == {"k": "v", "k2": "v2"}, "strategic merge patch", patched.data)

got.data = {"stale": "write"}
status, body = api_error(core.replace_namespaced_config_map, "a", ns, got)
check(status == 409 and body["reason"] == "Conflict", "stale replace is 409 Conflict", body)
check(body["message"].startswith('Operation cannot be fulfilled on configmaps "a": the object has been modified'),
      "conflict message", body["message"])

status, body = api_error(core.read_namespaced_config_map, "missing", ns)
check(status == 404 and body["message"] == 'configmaps "missing" not found' and body["details"]["kind"] == "configmaps",
      "404 Status", body)
status, body = api_error(core.create_namespaced_config_map, ns,
                         client.V1ConfigMap(metadata=client.V1ObjectMeta(name="Bad_Name")))
check(status == 422 and body["reason"] == "Invalid" and body["details"]["causes"][0]["field"] == "metadata.name",
      "422 with causes", body)

listed = core.list_namespaced_config_map(ns, label_selector="app=x")
check([i.metadata.name for i in listed.items] == ["a"], "list by label selector")

# A watch from the list's resourceVersion sees a create and a delete made while it runs.
def writer():
    time.sleep(0.5)
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="b")))
    core.delete_namespaced_config_map("b", ns)


threading.Thread(target=writer).start()
events = []
w = watch.Watch()
for ev in w.stream(core.list_namespaced_config_map, ns, resource_version=listed.metadata.resource_version,
                   timeout_seconds=20):
    events.append((ev["type"], ev["object"].metadata.name))
    if ev["type"] == "DELETED":
        w.stop()
check(events == [("ADDED", "b"), ("DELETED", "b")], "watch events", events)

# Server-side apply through the client's patch with the apply content type.
applied = core.patch_namespaced_config_map(
    "c", ns, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"s": "1"}},
    field_manager="py-client", _content_type="application/apply-patch+yaml")
managers = [(m.manager, m.operation) for m in applied.metadata.managed_fields]
check(applied.data == {"s": "1"} and ("py-client", "Apply") in managers, "server-side apply", managers)

deployment = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}
created = apps.create_namespaced_deployment(ns, deployment)
check(created.spec.strategy.type == "RollingUpdate" and created.spec.revision_history_limit == 10,
      "deployment defaults", created.spec.strategy)
apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 3}})
check(apps.read_namespaced_deployment_scale("web", ns).spec.replicas == 3, "scale subresource")

crd = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 10}}}}}}}]}}
ext.create_custom_resource_definition(crd)
established = False
for _ in range(100):
    conds = ext.read_custom_resource_definition("widgets.example.com").status.conditions or []
    if any(c.type == "Established" and c.status == "True" for c in conds):
        established = True
        break
    time.sleep(0.1)
check(established, "CRD becomes Established")
widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}}
for _ in range(50):
    try:
        custom.create_namespaced_custom_object("example.com", "v1", ns, "widgets", widget)
        break
    except ApiException as e:
        if e.status != 404:
            raise
        time.sleep(0.1)
got = custom.get_namespaced_custom_object("example.com", "v1", ns, "widgets", "w1")
check(got["spec"] == {"size": 3}, "custom object round trip", got)
widget["metadata"]["name"] = "w2"
widget["spec"]["size"] = 11
status, body = api_error(custom.create_namespaced_custom_object, "example.com", "v1", ns, "widgets", widget)
check(status == 422 and "spec.size" in body["message"], "schema validation of a custom object", body)

dyn = dynamic.DynamicClient(api)
widgets = dyn.resources.get(api_version="example.com/v1", kind="Widget")
check([i.metadata.name for i in widgets.get(namespace=ns).items] == ["w1"], "dynamic client over discovery")
cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
check(cms.get(name="a", namespace=ns).data.k2 == "v2", "dynamic client typed read")

core.delete_namespace(ns)
check(core.read_namespace(ns).status.phase == "Terminating", "namespace deletion starts")
print("done")
