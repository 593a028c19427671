package envtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// widgetReconciler keeps a ConfigMap "<widget>-config" owned by each Widget, with the Widget's size, and
// reports what it did in the Widget's status.
type widgetReconciler struct {
	client.Client
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := newWidget("", "", 0)
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.GetNamespace(), Name: w.GetName() + "-config"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"size": fmt.Sprint(size)}
		return controllerutil.SetControllerReference(w, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	observed, _, _ := unstructured.NestedInt64(w.Object, "status", "observedSize")
	if observed != size || w.Object["status"] == nil {
		_ = unstructured.SetNestedField(w.Object, size, "status", "observedSize")
		_ = unstructured.SetNestedField(w.Object, cm.Name, "status", "configMap")
		if err := r.Status().Update(ctx, w); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// A manager with an informer cache runs the reconciler: it reacts to a new Widget, to a change of its
// spec, to its owned ConfigMap being deleted, and writes status through the status subresource.
func TestReconcilerWithCache(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	makeNamespace(t, c, "reconcile")

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("manager: %v", err)
	}
	owner := newWidget("", "", 0)
	if err := ctrl.NewControllerManagedBy(mgr).For(owner).Owns(&corev1.ConfigMap{}).Named("widget").
		Complete(&widgetReconciler{Client: mgr.GetClient()}); err != nil {
		t.Fatalf("controller: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("manager did not stop")
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatalf("cache did not sync")
	}

	w := newWidget("reconcile", "gadget", 2)
	if err := c.Create(ctx, w); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	key := types.NamespacedName{Namespace: "reconcile", Name: "gadget-config"}
	waitForSize := func(want string) {
		t.Helper()
		eventually(t, "configmap size "+want, 20*time.Second, func() (bool, error) {
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, key, cm); err != nil {
				return false, err
			}
			if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != w.GetUID() {
				return false, fmt.Errorf("owner references %v", cm.OwnerReferences)
			}
			return cm.Data["size"] == want, fmt.Errorf("size %q", cm.Data["size"])
		})
		eventually(t, "status.observedSize "+want, 20*time.Second, func() (bool, error) {
			got := newWidget("", "", 0)
			if err := c.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
				return false, err
			}
			obs, _, _ := unstructured.NestedInt64(got.Object, "status", "observedSize")
			return fmt.Sprint(obs) == want, fmt.Errorf("observedSize %d", obs)
		})
	}
	waitForSize("2")

	// The cached client reads what the informer has.
	cached := newWidget("", "", 0)
	eventually(t, "cache has the widget", 10*time.Second, func() (bool, error) {
		err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(w), cached)
		return err == nil, err
	})

	// A spec change is reconciled.
	base := w.DeepCopy()
	_ = unstructured.SetNestedField(w.Object, int64(6), "spec", "size")
	if err := c.Patch(ctx, w, client.MergeFrom(base)); err != nil {
		t.Fatalf("patch widget: %v", err)
	}
	waitForSize("6")

	// Status updates through the main resource are ignored (status subresource).
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), w); err != nil {
		t.Fatalf("get widget: %v", err)
	}
	_ = unstructured.SetNestedField(w.Object, int64(99), "status", "observedSize")
	if err := c.Update(ctx, w); err != nil {
		t.Fatalf("update widget: %v", err)
	}
	if obs, _, _ := unstructured.NestedInt64(w.Object, "status", "observedSize"); obs == 99 {
		t.Errorf("an update of the main resource changed status")
	}

	// Deleting the owned ConfigMap makes the reconciler recreate it (Owns watch).
	if err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}); err != nil {
		t.Fatalf("delete configmap: %v", err)
	}
	eventually(t, "configmap recreated", 20*time.Second, func() (bool, error) {
		cm := &corev1.ConfigMap{}
		err := c.Get(ctx, key, cm)
		return err == nil && cm.DeletionTimestamp == nil, err
	})

	// Deleting the widget: the garbage collector removes the owned ConfigMap (envtest has no
	// kube-controller-manager; Capstan's in-process collector does this).
	if err := c.Delete(ctx, w); err != nil {
		t.Fatalf("delete widget: %v", err)
	}
	eventually(t, "owned configmap collected", 30*time.Second, func() (bool, error) {
		err := c.Get(ctx, key, &corev1.ConfigMap{})
		return apierrors.IsNotFound(err), err
	})
}
