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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
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
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	schedpreemption "k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

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

	mu    sync.Mutex
	bound map[string]string
	order []string // bound pods, in the order of their bindings
	// Preemptions: per preemptor, the victims of the candidate DefaultPreemption chose, in
	// its order, and how many of them are not deleted yet.
	victims    map[types.UID][]string
	remaining  map[types.UID]int
	preemptors []*schedpreemption.Evaluator
}

// newWorld builds the scheduler over the given objects. With dryRun, writes the scheduler
// makes (preemption's deletions and status patches) are recorded and not applied, so every
// explained pod sees the same cluster; otherwise they are applied (simulate). Comparisons run
// with one worker (filters visit nodes in order, so which nodes a partial scan reaches does not
// depend on goroutine timing); benchmarks with the configuration's parallelism.
func newWorld(cfg *config.KubeSchedulerConfiguration, objs []runtime.Object, dryRun bool, parallelism int32) (*world, error) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &world{client: fake.NewSimpleClientset(objs...), cancel: cancel, bound: map[string]string{},
		victims: map[types.UID][]string{}, remaining: map[types.UID]int{}}
	// Every write goes through a tracker that gives the object a new resourceVersion, as the
	// API server does: the scheduler ignores an update whose version did not change.
	w.tracker = &versionedTracker{ObjectTracker: w.client.Tracker(), next: 1}
	w.client.PrependReactor("*", "*", clienttesting.ObjectReaction(w.tracker))
	w.honorPodFieldSelectors()
	if dryRun {
		w.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, nil
		})
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

	// kube-scheduler's own factory: its pod informer lists and watches non-terminal pods only.
	factory := scheduler.NewInformerFactory(w.client, 0)
	recorders := func(string) events.EventRecorder { return &events.FakeRecorder{} }
	sched, err := scheduler.New(ctx, w.client, factory, nil, recorders,
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithParallelism(parallelism),
		scheduler.WithExtenders(cfg.Extenders...),
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
	w.trackPreemptions()
	return w, nil
}

// trackPreemptions records, through the Evaluator's PreemptPod hook (upstream's own seam for
// the API calls a preemption makes), the victims of each preemption in the candidate's order,
// and when the last of them has been deleted: with SchedulerAsyncPreemption (on by default in
// v1.34) the deletions run in a goroutine after PostFilter returned.
func (w *world) trackPreemptions() {
	for _, f := range w.sched.Profiles {
		for _, pl := range frameworkruntime.OraclePostFilterPlugins(f) {
			dp, ok := pl.(*defaultpreemption.DefaultPreemption)
			if !ok || dp.Evaluator == nil {
				continue
			}
			ev := dp.Evaluator
			w.preemptors = append(w.preemptors, ev)
			preempt := ev.PreemptPod
			ev.PreemptPod = func(ctx context.Context, c schedpreemption.Candidate, preemptor, victim *v1.Pod, pluginName string) error {
				w.mu.Lock()
				if _, ok := w.victims[preemptor.UID]; !ok {
					names := []string{}
					for _, v := range c.Victims().Pods {
						names = append(names, v.Namespace+"/"+v.Name)
					}
					w.victims[preemptor.UID] = names
					w.remaining[preemptor.UID] = len(names)
				}
				w.mu.Unlock()
				err := preempt(ctx, c, preemptor, victim, pluginName)
				if err == nil {
					w.releaseClaims(ctx, victim)
				}
				w.mu.Lock()
				w.remaining[preemptor.UID]--
				w.mu.Unlock()
				return err
			}
		}
	}
}

// awaitPreemption waits until the preemption pod started is over (its goroutine, with async
// preemption, has deleted every victim) and returns its victims in the candidate's order.
// Waiting makes the outcome independent of goroutine timing: the next cycle starts once the
// API has seen every deletion, as on a cluster that is given the time to act.
// releaseClaims does for a deleted victim what kube-controller-manager's resourceclaim
// controller does (pkg/controller/resourceclaim, syncClaim): the pod leaves the reservedFor of
// its claims, and a claim no pod uses any more is deallocated ("DRA ... deallocates a claim as
// soon as the last consumer stops using it"). The oracle runs no controllers, so the glue does;
// it waits for the scheduler's informer to hold the update before the next cycle.
func (w *world) releaseClaims(ctx context.Context, victim *v1.Pod) {
	for _, rc := range victim.Spec.ResourceClaims {
		name := ""
		if rc.ResourceClaimName != nil {
			name = *rc.ResourceClaimName
		} else {
			for _, st := range victim.Status.ResourceClaimStatuses {
				if st.Name == rc.Name && st.ResourceClaimName != nil {
					name = *st.ResourceClaimName
				}
			}
		}
		if name == "" {
			continue
		}
		claim, err := w.client.ResourceV1().ResourceClaims(victim.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		kept := claim.Status.ReservedFor[:0:0]
		for _, ref := range claim.Status.ReservedFor {
			if ref.UID != victim.UID {
				kept = append(kept, ref)
			}
		}
		if len(kept) == len(claim.Status.ReservedFor) {
			continue
		}
		claim = claim.DeepCopy()
		claim.Status.ReservedFor = kept
		if len(kept) == 0 {
			claim.Status.Allocation = nil
		}
		updated, err := w.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		if err != nil {
			continue
		}
		lister := w.factory.Resource().V1().ResourceClaims().Lister()
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			if got, err := lister.ResourceClaims(claim.Namespace).Get(name); err == nil &&
				len(got.Status.ReservedFor) == len(updated.Status.ReservedFor) && (got.Status.Allocation == nil) == (updated.Status.Allocation == nil) {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		time.Sleep(2 * time.Millisecond) // the scheduler's own handlers run beside the lister
	}
}

func (w *world) awaitPreemption(pod *v1.Pod) []string {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		victims, started := w.victims[pod.UID]
		done := started && w.remaining[pod.UID] == 0
		w.mu.Unlock()
		running := false
		for _, ev := range w.preemptors {
			running = running || ev.IsPodRunningPreemption(pod.UID)
		}
		if done && !running {
			w.mu.Lock()
			delete(w.victims, pod.UID)
			delete(w.remaining, pod.UID)
			w.mu.Unlock()
			return victims
		}
		time.Sleep(100 * time.Microsecond)
	}
	return []string{}
}

// honorPodFieldSelectors makes pod lists and watches apply their field selector, as the API
// server does (the fake tracker ignores it): kube-scheduler's pod informer asks for
// status.phase!=Succeeded,status.phase!=Failed, so terminal pods never reach its cache. (A pod
// turning terminal would reach a real watcher as a deletion; nothing turns terminal here.)
func (w *world) honorPodFieldSelectors() {
	podsResource := v1.SchemeGroupVersion.WithResource("pods")
	matches := func(sel fields.Selector, obj runtime.Object) bool {
		pod, ok := obj.(*v1.Pod)
		return !ok || sel.Matches(fields.Set{
			"metadata.name": pod.Name, "metadata.namespace": pod.Namespace, "spec.nodeName": pod.Spec.NodeName,
			"spec.schedulerName": pod.Spec.SchedulerName, "status.phase": string(pod.Status.Phase),
			"status.nominatedNodeName": pod.Status.NominatedNodeName,
		})
	}
	w.client.PrependReactor("list", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sel := a.(clienttesting.ListAction).GetListRestrictions().Fields
		if sel == nil || sel.Empty() {
			return false, nil, nil
		}
		obj, err := w.tracker.List(podsResource, v1.SchemeGroupVersion.WithKind("Pod"), a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		list := obj.(*v1.PodList)
		kept := list.Items[:0]
		for i := range list.Items {
			if matches(sel, &list.Items[i]) {
				kept = append(kept, list.Items[i])
			}
		}
		list.Items = kept
		return true, list, nil
	})
	w.client.PrependWatchReactor("pods", func(a clienttesting.Action) (bool, watch.Interface, error) {
		wa, ok := a.(clienttesting.WatchActionImpl)
		sel := a.(clienttesting.WatchAction).GetWatchRestrictions().Fields
		if !ok || sel == nil || sel.Empty() {
			return false, nil, nil
		}
		watcher, err := w.tracker.Watch(podsResource, a.GetNamespace(), wa.ListOptions)
		if err != nil {
			return false, nil, err
		}
		return true, watch.Filter(watcher, func(e watch.Event) (watch.Event, bool) { return e, matches(sel, e.Object) }), nil
	})
}

func (w *world) close() { w.cancel() }

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
