package main

// A world is upstream's scheduler, built as kube-scheduler's Setup builds it (scheduler.New
// with the decoded configuration and the in-tree registry), over a fake clientset that holds
// the cluster state. Its informers fill the scheduler's cache and queue as a real API server
// would at start-up.

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

func init() {
	// Victims are chosen the same way either way; the synchronous path deletes them inside
	// PostFilter, so the oracle knows them when the cycle returns.
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{"SchedulerAsyncPreemption": false}); err != nil {
		panic(err)
	}
}

// loadConfig decodes, defaults and validates a KubeSchedulerConfiguration as
// kube-scheduler --config does; without a file, the defaults kube-scheduler runs with.
func loadConfig(path string) (*config.KubeSchedulerConfiguration, error) {
	var cfg *config.KubeSchedulerConfiguration
	var err error
	if path == "" {
		cfg, err = latest.Default()
	} else {
		cfg, err = options.LoadConfigFromFile(klog.Background(), path)
	}
	if err != nil {
		return nil, err
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

type world struct {
	sched   *scheduler.Scheduler
	client  *fake.Clientset
	tracker *versionedTracker
	factory informers.SharedInformerFactory
	cancel  context.CancelFunc

	mu      sync.Mutex
	deleted []string // pods deleted through the API, in order ("ns/name")
	bound   map[string]string
	order   []string // bound pods, in the order of their bindings
}

// newWorld builds the scheduler over the given objects. With dryRun, writes the scheduler
// makes (preemption's deletions and status patches) are recorded and not applied, so every
// explained pod sees the same cluster; otherwise they are applied (simulate). Comparisons run
// with one worker (filters visit nodes in order, so which nodes a partial scan reaches does not
// depend on goroutine timing); benchmarks with the configuration's parallelism.
func newWorld(cfg *config.KubeSchedulerConfiguration, objs []runtime.Object, dryRun bool, parallelism int32) (*world, error) {
	classes := map[string]*schedulingv1.PriorityClass{}
	for _, o := range objs {
		if pc, ok := o.(*schedulingv1.PriorityClass); ok {
			classes[pc.Name] = pc
		}
	}
	for _, o := range objs {
		if pod, ok := o.(*v1.Pod); ok {
			if err := completePod(pod, classes); err != nil {
				return nil, err
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &world{client: fake.NewSimpleClientset(objs...), cancel: cancel, bound: map[string]string{}}
	// Every write goes through a tracker that gives the object a new resourceVersion, as the
	// API server does: the scheduler ignores an update whose version did not change.
	w.tracker = &versionedTracker{ObjectTracker: w.client.Tracker(), next: 1}
	w.client.PrependReactor("*", "*", clienttesting.ObjectReaction(w.tracker))
	w.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteAction)
		w.mu.Lock()
		w.deleted = append(w.deleted, d.GetNamespace()+"/"+d.GetName())
		w.mu.Unlock()
		return dryRun, nil, nil
	})
	if dryRun {
		w.client.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			return true, &v1.Pod{}, nil
		})
	}
	w.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		c := a.(clienttesting.CreateAction)
		if c.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := c.GetObject().(*v1.Binding)
		obj, err := w.tracker.Get(v1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		w.mu.Lock()
		w.bound[b.Namespace+"/"+b.Name] = b.Target.Name
		w.order = append(w.order, b.Namespace+"/"+b.Name)
		w.mu.Unlock()
		return true, nil, w.tracker.Update(v1.SchemeGroupVersion.WithResource("pods"), pod, b.Namespace)
	})

	factory := informers.NewSharedInformerFactory(w.client, 0)
	recorders := func(string) events.EventRecorder { return &events.FakeRecorder{} }
	sched, err := scheduler.New(ctx, w.client, factory, nil, recorders,
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithParallelism(parallelism),
	)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		cancel()
		return nil, err
	}
	sched.OracleUseFirstTopScore()
	w.sched, w.factory = sched, factory
	return w, nil
}

func (w *world) close() { w.cancel() }

func (w *world) takeDeleted() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.deleted
	w.deleted = nil
	return out
}

// versionedTracker stamps every object it stores with the next resourceVersion.
type versionedTracker struct {
	clienttesting.ObjectTracker
	mu   sync.Mutex
	next int64
}

func (t *versionedTracker) stamp(obj runtime.Object) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if acc, err := meta.Accessor(obj); err == nil {
		t.next++
		acc.SetResourceVersion(strconv.FormatInt(t.next, 10))
	}
}

func (t *versionedTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

func (t *versionedTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (t *versionedTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Patch(gvr, obj, ns, opts...)
}
