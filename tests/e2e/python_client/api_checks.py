"""The current `kubernetes` Python client (PyPI) against Capstan: typed CRUD, errors as ApiException
with kube's Status, strategic-merge and server-side apply patches, a watch, the scale subresource, a
CRD and its custom objects, and the dynamic client over discovery.

Usage: api_checks.py KUBECONFIG. Prints "ok <check>" per check; exits 1 at the first failure."""
import datetime
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

# JSON patch (the client picks application/json-patch+json for a list body), pagination, delete
# options and delete-collection.
jp = core.patch_namespaced_config_map("a", ns, [{"op": "add", "path": "/data/k3", "value": "v3"}])
check(jp.data.get("k3") == "v3", "JSON patch", jp.data)
for i in range(5):
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="page-%d" % i,
                                                                                     labels={"page": "yes"})))
names, token = [], None
while True:
    page = core.list_namespaced_config_map(ns, label_selector="page=yes", limit=2, _continue=token)
    names += [i.metadata.name for i in page.items]
    token = page.metadata._continue
    if not token:
        break
check(names == ["page-%d" % i for i in range(5)], "paginated list", names)
check(page.metadata.remaining_item_count is None, "last page has no remainingItemCount")
# remainingItemCount is given without selectors only, as kube's storage counts it.
first = core.list_namespaced_config_map(ns, limit=2)
check(first.metadata.remaining_item_count == len(core.list_namespaced_config_map(ns).items) - 2, "remainingItemCount",
      first.metadata.remaining_item_count)
check(core.list_namespaced_config_map(ns, label_selector="page=yes", limit=2).metadata.remaining_item_count is None,
      "no remainingItemCount with a selector")
core.delete_collection_namespaced_config_map(ns, label_selector="page=yes")
check(core.list_namespaced_config_map(ns, label_selector="page=yes").items == [], "delete collection")
deleted = core.delete_namespaced_config_map("c", ns, body=client.V1DeleteOptions(propagation_policy="Foreground"))
# Foreground deletion answers the object, marked, as kube does; the garbage collector then removes it.
check(deleted["metadata"]["finalizers"] == ["foregroundDeletion"] and "deletionTimestamp" in deleted["metadata"],
      "foreground delete answers the marked object", deleted)
gone = False
for _ in range(100):
    status, _ = api_error(core.read_namespaced_config_map, "c", ns)
    if status == 404:
        gone = True
        break
    time.sleep(0.1)
check(gone, "foreground deletion completes")

# Service accounts, a TokenRequest, and the review APIs.
core.create_namespaced_service_account(ns, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="robot")))
tr = core.create_namespaced_service_account_token(
    "robot", ns, client.AuthenticationV1TokenRequest(spec=client.V1TokenRequestSpec(audiences=["vault"],
                                                                                     expiration_seconds=600)))
check(tr.status.token.count(".") == 2 and tr.status.expiration_timestamp is not None, "TokenRequest", tr.status)
review = client.AuthenticationV1Api(api).create_token_review(
    client.V1TokenReview(spec=client.V1TokenReviewSpec(token=tr.status.token, audiences=["vault"])))
check(review.status.authenticated and review.status.user.username == "system:serviceaccount:py:robot",
      "TokenReview", review.status)
sar = client.AuthorizationV1Api(api).create_subject_access_review(client.V1SubjectAccessReview(
    spec=client.V1SubjectAccessReviewSpec(user="system:serviceaccount:py:robot", resource_attributes=client.V1ResourceAttributes(
        namespace=ns, verb="list", resource="secrets"))))
check(sar.status.allowed is False, "SubjectAccessReview denies an unbound service account", sar.status)
ssr = client.AuthorizationV1Api(api).create_self_subject_rules_review(client.V1SelfSubjectRulesReview(
    spec=client.V1SelfSubjectRulesReviewSpec(namespace=ns)))
check(any("*" in (r.verbs or []) for r in ssr.status.resource_rules), "SelfSubjectRulesReview of the admin")

# Events (events.k8s.io/v1) and Leases.
ev = client.EventsV1Api(api).create_namespaced_event(ns, client.EventsV1Event(
    metadata=client.V1ObjectMeta(name="e1"), event_time=datetime.datetime.now(datetime.timezone.utc),
    reason="Tested", action="Check", reporting_controller="py/checks", reporting_instance="py-1", type="Normal",
    regarding=client.V1ObjectReference(kind="ConfigMap", name="a", namespace=ns)))
check(ev.reason == "Tested", "events.k8s.io event")
lease = client.CoordinationV1Api(api).create_namespaced_lease(ns, client.V1Lease(
    metadata=client.V1ObjectMeta(name="l1"), spec=client.V1LeaseSpec(holder_identity="py",
                                                                      lease_duration_seconds=15,
                                                                      renew_time=datetime.datetime.now(datetime.timezone.utc))))
check(lease.spec.holder_identity == "py" and lease.spec.renew_time is not None, "lease with MicroTime")

# Custom objects: a merge patch and the status subresource.
pw = custom.patch_namespaced_custom_object("example.com", "v1", ns, "widgets", "w1", {"spec": {"size": 4}})
check(pw["spec"]["size"] == 4, "custom object merge patch", pw)

# Several kinds from one YAML document through the client's utils, typed APIs of other groups.
import os
import tempfile
from kubernetes import utils
manifest = os.path.join(tempfile.mkdtemp(), "app.yaml")
with open(manifest, "w") as f:
    f.write("""apiVersion: v1
kind: ConfigMap
metadata: {name: from-yaml}
data: {a: "1"}
---
apiVersion: v1
kind: Service
metadata: {name: from-yaml}
spec:
  selector: {app: from-yaml}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: from-yaml}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
""")
created_objs = utils.create_from_yaml(api, manifest, namespace=ns)
check(len(created_objs) == 3, "utils.create_from_yaml", created_objs)
svc = core.read_namespaced_service("from-yaml", ns)
check(svc.spec.cluster_ip and svc.spec.ports[0].protocol == "TCP", "service defaults", svc.spec)
job = client.BatchV1Api(api).read_namespaced_job("from-yaml", ns)
check(job.spec.backoff_limit == 6 and job.spec.template.metadata.labels.get("batch.kubernetes.io/job-name") == "from-yaml",
      "job defaults", job.spec.template.metadata.labels)

rbac = client.RbacAuthorizationV1Api(api)
rbac.create_namespaced_role(ns, client.V1Role(metadata=client.V1ObjectMeta(name="reader"), rules=[
    client.V1PolicyRule(api_groups=[""], resources=["secrets"], verbs=["list"])]))
rbac.create_namespaced_role_binding(ns, client.V1RoleBinding(metadata=client.V1ObjectMeta(name="reader"),
    role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="reader"),
    subjects=[client.RbacV1Subject(kind="ServiceAccount", name="robot", namespace=ns)]))
allowed = False
for _ in range(50):
    sar = client.AuthorizationV1Api(api).create_subject_access_review(client.V1SubjectAccessReview(
        spec=client.V1SubjectAccessReviewSpec(user="system:serviceaccount:py:robot", resource_attributes=client.V1ResourceAttributes(
            namespace=ns, verb="list", resource="secrets"))))
    if sar.status.allowed:
        allowed = True
        break
    time.sleep(0.1)
check(allowed, "a RoleBinding takes effect for SubjectAccessReview")

hpa = client.AutoscalingV2Api(api).create_namespaced_horizontal_pod_autoscaler(ns, client.V2HorizontalPodAutoscaler(
    metadata=client.V1ObjectMeta(name="web"), spec=client.V2HorizontalPodAutoscalerSpec(
        scale_target_ref=client.V2CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web"),
        max_replicas=5, metrics=[client.V2MetricSpec(type="Resource", resource=client.V2ResourceMetricSource(
            name="cpu", target=client.V2MetricTarget(type="Utilization", average_utilization=60)))])))
check(hpa.spec.min_replicas == 1 and hpa.spec.behavior is None, "autoscaling/v2 HPA defaults", hpa.spec)
# A behavior given in part is completed with kube's scaling rules.
hpa2 = client.AutoscalingV2Api(api).create_namespaced_horizontal_pod_autoscaler(ns, {
    "metadata": {"name": "web2"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5,
             "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}})
up = hpa2.spec.behavior.scale_up
check(up.select_policy == "Max" and up.stabilization_window_seconds == 0 and
      sorted((p.type, p.value, p.period_seconds) for p in up.policies) == [("Percent", 100, 15), ("Pods", 4, 15)] and
      hpa2.spec.behavior.scale_down.select_policy == "Max" and hpa2.spec.behavior.scale_down.policies[0].value == 100,
      "autoscaling/v2 behavior defaults", hpa2.spec.behavior)

pod = core.create_namespaced_pod(ns, client.V1Pod(metadata=client.V1ObjectMeta(name="p1", labels={"app": "from-yaml"}),
    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")])))
check(pod.spec.restart_policy == "Always" and pod.spec.containers[0].termination_message_path == "/dev/termination-log",
      "pod defaults", pod.spec.restart_policy)
by_field = core.list_namespaced_pod(ns, field_selector="metadata.name=p1")
check([p.metadata.name for p in by_field.items] == ["p1"], "list by field selector")
client.PolicyV1Api(api).create_namespaced_pod_disruption_budget(ns, client.V1PodDisruptionBudget(
    metadata=client.V1ObjectMeta(name="pdb"), spec=client.V1PodDisruptionBudgetSpec(
        min_available=1, selector=client.V1LabelSelector(match_labels={"app": "nothing"}))))
core.create_namespaced_pod_eviction("p1", ns, client.V1Eviction(metadata=client.V1ObjectMeta(name="p1", namespace=ns)))
gone = False
for _ in range(50):
    status, _ = api_error(core.read_namespaced_pod, "p1", ns)
    if status == 404:
        gone = True
        break
    pod = core.read_namespaced_pod("p1", ns)
    if pod.metadata.deletion_timestamp is not None:
        gone = True
        break
    time.sleep(0.1)
check(gone, "eviction deletes the pod")

# A watch with bookmarks asked for: the client takes BOOKMARK events in its stride.
w = watch.Watch()
seen = []
for ev in w.stream(core.list_namespaced_config_map, ns, allow_watch_bookmarks=True, timeout_seconds=2):
    seen.append(ev["type"])
check(all(t in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK") for t in seen) and "ADDED" in seen, "watch with bookmarks", seen)

dyn = dynamic.DynamicClient(api)
widgets = dyn.resources.get(api_version="example.com/v1", kind="Widget")
check([i.metadata.name for i in widgets.get(namespace=ns).items] == ["w1"], "dynamic client over discovery")
cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
check(cms.get(name="a", namespace=ns).data.k2 == "v2", "dynamic client typed read")

# The namespace is Terminating, or already gone when the namespace controller was quick.
core.delete_namespace(ns)
try:
    phase = core.read_namespace(ns).status.phase
except ApiException as e:
    phase = "gone" if e.status == 404 else str(e.status)
check(phase in ("Terminating", "gone"), "namespace deletion starts", phase)
print("done")
