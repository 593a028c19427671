package envtest

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func makeNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctxFor(t), ns); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// The CRD envtest installed from testdata/crds is served: discovery lists it with its short name.
func TestCRDInstalledAndDiscovered(t *testing.T) {
	cs := kubernetes.NewForConfigOrDie(cfg)
	list, err := cs.Discovery().ServerResourcesForGroupVersion("example.capstan.dev/v1")
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	found := false
	for _, r := range list.APIResources {
		if r.Name == "widgets" {
			found = true
			if len(r.ShortNames) != 1 || r.ShortNames[0] != "wg" {
				t.Errorf("short names %v, want [wg]", r.ShortNames)
			}
		}
	}
	if !found {
		t.Fatalf("widgets not in discovery: %+v", list.APIResources)
	}
}

// Create, get, list with a label selector, merge patch, JSON patch, update, delete, on built-in and
// custom resources through the controller-runtime client.
func TestClientCRUD(t *testing.T) {
	c := newClient(t)
	ctx := ctxFor(t)
	makeNamespace(t, c, "crud")

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "crud", Name: "settings", Labels: map[string]string{"app": "demo"}},
		Data:       map[string]string{"a": "1"},
	}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatalf("create configmap: %v", err)
	}
	if cm.ResourceVersion == "" || cm.UID == "" {
		t.Fatalf("create did not fill resourceVersion/uid: %+v", cm.ObjectMeta)
	}
	again := cm.DeepCopy()
	again.ResourceVersion = ""
	if err := c.Create(ctx, again); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}

	w := newWidget("crud", "w1", 3)
	w.SetLabels(map[string]string{"app": "demo"})
	if err := c.Create(ctx, w); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	defaulted := newWidget("crud", "w-default", 0)
	defaulted.Object["spec"] = map[string]interface{}{}
	if err := c.Create(ctx, defaulted); err != nil {
		t.Fatalf("create widget without size: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(defaulted.Object, "spec", "size"); size != 1 {
		t.Errorf("schema default: spec.size = %d, want 1", size)
	}
	bad := newWidget("crud", "w-bad", 0)
	_ = unstructured.SetNestedField(bad.Object, int64(0), "spec", "size")
	if err := c.Create(ctx, bad); !apierrors.IsInvalid(err) {
		t.Errorf("create with spec.size=0: %v, want Invalid (minimum 1)", err)
	}

	got := newWidget("", "", 0)
	if err := c.Get(ctx, types.NamespacedName{Namespace: "crud", Name: "w1"}, got); err != nil {
		t.Fatalf("get widget: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size = %d, want 3", size)
	}

	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(widgets.GroupVersion().WithKind("WidgetList"))
	if err := c.List(ctx, list, client.InNamespace("crud"), client.MatchingLabels{"app": "demo"}); err != nil {
		t.Fatalf("list widgets: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "w1" {
		t.Fatalf("label-selected list: %d items, want [w1]", len(list.Items))
	}
	cms := &corev1.ConfigMapList{}
	if err := c.List(ctx, cms, client.InNamespace("crud"), client.MatchingFields{"metadata.name": "settings"}); err != nil {
		t.Fatalf("list configmaps by field: %v", err)
	}
	if len(cms.Items) != 1 {
		t.Fatalf("field-selected list: %d items, want 1", len(cms.Items))
	}

	// Merge patch and JSON patch.
	base := got.DeepCopy()
	_ = unstructured.SetNestedField(got.Object, "blue", "spec", "color")
	if err := c.Patch(ctx, got, client.MergeFrom(base)); err != nil {
		t.Fatalf("merge patch: %v", err)
	}
	if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "blue" {
		t.Errorf("after merge patch color = %q", color)
	}
	jp := client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":5}]`))
	if err := c.Patch(ctx, got, jp); err != nil {
		t.Fatalf("json patch: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 5 {
		t.Errorf("after json patch size = %d, want 5", size)
	}
	// Strategic merge patch on a built-in.
	smp := client.RawPatch(types.StrategicMergePatchType, []byte(`{"data":{"b":"2"}}`))
	if err := c.Patch(ctx, cm, smp); err != nil {
		t.Fatalf("strategic merge patch: %v", err)
	}
	if cm.Data["a"] != "1" || cm.Data["b"] != "2" {
		t.Errorf("after strategic merge patch data = %v", cm.Data)
	}

	// Optimistic concurrency: an update from a stale copy conflicts.
	stale := cm.DeepCopy()
	cm.Data["c"] = "3"
	if err := c.Update(ctx, cm); err != nil {
		t.Fatalf("update: %v", err)
	}
	stale.Data["c"] = "stale"
	if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want Conflict", err)
	}

	if err := c.Delete(ctx, got); err != nil {
		t.Fatalf("delete widget: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(got), newWidget("", "", 0)); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}
	if err := c.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace("crud"), client.MatchingLabels{"app": "demo"}); err != nil {
		t.Fatalf("delete collection: %v", err)
	}
}

// Server-side apply with two field managers: fields owned by another manager conflict unless forced.
func TestServerSideApply(t *testing.T) {
	c := newClient(t)
	ctx := ctxFor(t)
	makeNamespace(t, c, "ssa")

	apply := func(manager string, force bool, spec map[string]interface{}) error {
		u := newWidget("ssa", "applied", 0)
		u.Object["spec"] = spec
		opts := []client.PatchOption{client.FieldOwner(manager)}
		if force {
			opts = append(opts, client.ForceOwnership)
		}
		return c.Patch(ctx, u, client.Apply, opts...) //nolint:staticcheck // the Apply patch type is what operators use
	}
	if err := apply("alice", false, map[string]interface{}{"size": int64(2), "tags": []interface{}{"x"}}); err != nil {
		t.Fatalf("first apply: %v", err)
	}
	err := apply("bob", false, map[string]interface{}{"size": int64(4)})
	if !apierrors.IsConflict(err) {
		t.Fatalf("apply of a field another manager owns: %v, want Conflict", err)
	}
	if err := apply("bob", true, map[string]interface{}{"size": int64(4), "tags": []interface{}{"y"}}); err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	got := newWidget("", "", 0)
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ssa", Name: "applied"}, got); err != nil {
		t.Fatalf("get: %v", err)
	}
	size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size")
	tags, _, _ := unstructured.NestedStringSlice(got.Object, "spec", "tags")
	if size != 4 || len(tags) != 2 {
		t.Errorf("after forced apply size=%d tags=%v, want 4 and the set [x y]", size, tags)
	}
	managers := map[string]bool{}
	for _, mf := range got.GetManagedFields() {
		managers[mf.Manager] = true
	}
	if !managers["alice"] || !managers["bob"] {
		t.Errorf("managedFields managers %v, want alice and bob", managers)
	}
}

// A watch from a resourceVersion sees the ADDED, MODIFIED and DELETED events in order.
func TestWatch(t *testing.T) {
	c := newClient(t)
	ctx := ctxFor(t)
	makeNamespace(t, c, "watch")
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(widgets.GroupVersion().WithKind("WidgetList"))
	if err := c.List(ctx, list, client.InNamespace("watch")); err != nil {
		t.Fatalf("list: %v", err)
	}
	wlist := &unstructured.UnstructuredList{}
	wlist.SetGroupVersionKind(widgets.GroupVersion().WithKind("WidgetList"))
	w, err := c.Watch(ctx, wlist, client.InNamespace("watch"), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.GetResourceVersion()}})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()

	obj := newWidget("watch", "watched", 2)
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	base := obj.DeepCopy()
	_ = unstructured.SetNestedField(obj.Object, int64(7), "spec", "size")
	if err := c.Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		t.Fatalf("patch: %v", err)
	}
	if err := c.Delete(ctx, obj); err != nil {
		t.Fatalf("delete: %v", err)
	}
	want := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
	for i, typ := range want {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d events", i)
			}
			if ev.Type != typ {
				t.Fatalf("event %d: %s, want %s", i, ev.Type, typ)
			}
			u := ev.Object.(*unstructured.Unstructured)
			if u.GetName() != "watched" {
				t.Fatalf("event %d for %q", i, u.GetName())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event %d (%s) within 10s", i, typ)
		}
	}
}

// envtest's users: a client certificate for a user with no RBAC is forbidden until a Role binds it.
func TestProvisionedUserAndRBAC(t *testing.T) {
	admin := newClient(t)
	ctx := ctxFor(t)
	makeNamespace(t, admin, "rbac")
	user, err := testEnv.AddUser(envtest.User{Name: "jane", Groups: []string{"devs"}}, nil)
	if err != nil {
		t.Fatalf("add user: %v", err)
	}
	jane, err := client.New(user.Config(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("client for jane: %v", err)
	}
	err = jane.List(ctx, &corev1.ConfigMapList{}, client.InNamespace("rbac"))
	if !apierrors.IsForbidden(err) {
		t.Fatalf("list as jane without RBAC: %v, want Forbidden", err)
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: "rbac", Name: "cm-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "rbac", Name: "devs-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "cm-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}},
	}
	if err := admin.Create(ctx, role); err != nil {
		t.Fatalf("create role: %v", err)
	}
	if err := admin.Create(ctx, binding); err != nil {
		t.Fatalf("create binding: %v", err)
	}
	eventually(t, "jane may list configmaps", 10*time.Second, func() (bool, error) {
		err := jane.List(ctx, &corev1.ConfigMapList{}, client.InNamespace("rbac"))
		return err == nil, err
	})
	if err := jane.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "rbac", Name: "x"}}); !apierrors.IsForbidden(err) {
		t.Fatalf("create as jane: %v, want Forbidden", err)
	}
}
