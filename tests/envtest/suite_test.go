// Package envtest runs controller-runtime's envtest with Capstan as its kube-apiserver and drives it the
// way an operator's tests do: a CRD installed from a folder, the controller-runtime client (create, get,
// list, watch, patch, server-side apply, status), a manager with an informer cache and a reconciler.
//
// KUBEBUILDER_ASSETS names the folder envtest takes kube-apiserver and etcd from (the Makefile's
// `conformance` target lays it out: kube-apiserver runs build/capstan, etcd is Debian's etcd or, for the
// embedded store, Capstan's stand-in). Without it the tests are skipped.
package envtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

var (
	testEnv *envtest.Environment
	cfg     *rest.Config
	scheme  = runtime.NewScheme()
	widgets = schema.GroupVersionKind{Group: "example.capstan.dev", Version: "v1", Kind: "Widget"}
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Println("KUBEBUILDER_ASSETS is not set: skipping the envtest suite (make conformance sets it)")
		os.Exit(0)
	}
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		panic(err)
	}
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("testdata", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("CAPSTAN_ENVTEST_LOGS") != "" {
		testEnv.ControlPlane.GetAPIServer().Out = os.Stderr
		testEnv.ControlPlane.GetAPIServer().Err = os.Stderr
	}
	start := time.Now()
	var err error
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "envtest did not start: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("envtest start-to-ready (control plane up, CRDs installed and served): %v\n", time.Since(start).Round(time.Millisecond))
	code := m.Run()
	stop := time.Now()
	if err := testEnv.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "envtest did not stop cleanly: %v\n", err)
		code = 1
	}
	fmt.Printf("envtest stop: %v\n", time.Since(stop).Round(time.Millisecond))
	os.Exit(code)
}

func newClient(t *testing.T) client.WithWatch {
	t.Helper()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

func newWidget(ns, name string, size int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(widgets)
	u.SetNamespace(ns)
	u.SetName(name)
	if size > 0 {
		_ = unstructured.SetNestedField(u.Object, size, "spec", "size")
	}
	return u
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it is true or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for time.Now().Before(deadline) {
		ok, err := cond()
		if ok {
			return
		}
		lastErr = err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last error: %v)", what, timeout, lastErr)
}
