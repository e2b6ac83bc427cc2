package main

// simulate: upstream's own ScheduleOne loop (queue, scheduling cycle, PostFilter preemption,
// binding cycle, failure handling, informer events back into cache and queue), driven one pod
// at a time until no pod is left in activeQ or backoffQ. Between two cycles the loop waits
// until the scheduler has seen every write the previous cycle made (bindings, deletions,
// status patches), so each cycle starts from the state a quiet cluster would show it.

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type placement struct {
	Pod           string `json:"pod"`
	Outcome       string `json:"outcome"`
	Node          string `json:"node"`
	Message       string `json:"message"`
	NominatedNode string `json:"nominatedNode,omitempty"`
}

type preemption struct {
	Pod     string   `json:"pod"`
	Node    string   `json:"node"`
	Victims []string `json:"victims"`
}

type simulateResult struct {
	Kind        string       `json:"kind"`
	Placements  []placement  `json:"placements"`
	Preemptions []preemption `json:"preemptions"`
	// RunSeconds: the scheduling loop's wall time (--bench only).
	RunSeconds float64 `json:"runSeconds,omitempty"`
	// RunCPUSeconds: the CPU time (user + system) the whole process spent during the loop, so
	// every goroutine counts (parallel filtering and scoring, binding cycles, informers, the
	// fake API server), on however many cores they ran (--bench only; a pointer, so that a loop
	// too short for the kernel's accounting still says 0).
	RunCPUSeconds *float64 `json:"runCpuSeconds,omitempty"`
}

// cpuSeconds is the process's CPU time so far (user + system, every thread).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(fmt.Sprintf("getrusage: %v", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

var debug = os.Getenv("ORACLE_DEBUG") != ""

// With bench, the loop runs freely as kube-scheduler's does (binding cycles overlap the next
// pods' scheduling cycles) and only waits for the cluster to settle when the queue looks empty:
// the figure is upstream's throughput; the placements may differ from the step-by-step run's.
func (w *world) simulate(pods, clusterPending []*v1.Pod, bench bool) simulateResult {
	ctx := context.Background()
	var writes, seen atomic.Int64
	w.client.PrependReactor("*", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			writes.Add(1)
		}
		return false, nil, nil
	})
	_, _ = w.factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { seen.Add(1) },
		UpdateFunc: func(any, any) { seen.Add(1) },
		DeleteFunc: func(any) { seen.Add(1) },
	})

	lastMessage := map[string]string{}
	lastCode := map[string]fwk.Code{}
	res := simulateResult{Kind: "SimulationResult", Placements: []placement{}, Preemptions: []preemption{}}
	orig := w.sched.FailureHandler
	w.sched.FailureHandler = func(ctx context.Context, f framework.Framework, pi *framework.QueuedPodInfo, s *fwk.Status, ni *framework.NominatingInfo, start time.Time) {
		key := pi.Pod.Namespace + "/" + pi.Pod.Name
		lastMessage[key], lastCode[key] = s.Message(), s.Code()
		if debug {
			fmt.Fprintf(os.Stderr, "  failed %s: %s\n", key, s.Message())
		}
		orig(ctx, f, pi, s, ni, start)
		if ni != nil && ni.NominatedNodeName != "" && ni.Mode() == framework.ModeOverride {
			// Preemption nominated the node; with async preemption its victims are being deleted
			// in a goroutine: the next cycle waits for it (see awaitPreemption).
			res.Preemptions = append(res.Preemptions, preemption{Pod: key, Node: ni.NominatedNodeName, Victims: w.awaitPreemption(pi.Pod)})
		}
	}

	if debug {
		next := w.sched.NextPod
		w.sched.NextPod = func(logger klog.Logger) (*framework.QueuedPodInfo, error) {
			pi, err := next(logger)
			if pi != nil {
				fmt.Fprintf(os.Stderr, "  popped %s/%s nominated=%q attempts=%d\n", pi.Pod.Namespace, pi.Pod.Name, pi.Pod.Status.NominatedNodeName, pi.Attempts)
			}
			return pi, err
		}
	}
	settle := func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			// A pod leaves the cache's assumed set when its binding failed (ForgetPod) or the
			// informer delivered it bound (AddPod): then its binding cycle is over.
			if seen.Load() >= writes.Load() && len(w.sched.Cache.Dump().AssumedPods) == 0 {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		// The scheduler's own handlers run beside the one that counts.
		time.Sleep(5 * time.Millisecond)
	}
	limit := 50*len(pods) + 100
	started, startedCPU := time.Now(), cpuSeconds()
	for i := 0; i < limit; i++ {
		if !bench || !w.queueHasWork() {
			settle()
			if !w.queueHasWork() {
				break
			}
		}
		if debug {
			_, summary := w.sched.SchedulingQueue.PendingPods()
			fmt.Fprintf(os.Stderr, "cycle %d: %s\n", i, summary)
		}
		w.sched.ScheduleOne(ctx)
	}
	settle()
	if bench {
		res.RunSeconds = time.Since(started).Seconds()
		cpu := cpuSeconds() - startedCPU
		res.RunCPUSeconds = &cpu
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	evicted := map[string]bool{}
	for _, p := range res.Preemptions {
		for _, v := range p.Victims {
			evicted[v] = true
		}
	}
	for _, key := range w.order {
		outcome := "Scheduled"
		if evicted[key] {
			outcome = "Preempted" // placed by this run, then a victim of a later pod's preemption
		}
		res.Placements = append(res.Placements, placement{Pod: key, Outcome: outcome, Node: w.bound[key]})
	}
	for _, p := range clusterPending {
		key := p.Namespace + "/" + p.Name
		if _, ok := w.bound[key]; ok {
			continue
		}
		if _, handled := w.sched.Profiles[p.Spec.SchedulerName]; handled { // another scheduler's pod otherwise
			res.Placements = append(res.Placements, w.unplaced(ctx, p, lastMessage[key], lastCode))
		}
	}
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		if _, ok := w.bound[key]; ok {
			continue
		}
		res.Placements = append(res.Placements, w.unplaced(ctx, p, lastMessage[key], lastCode))
	}
	return res
}

// unplaced is the placement of a pod the loop did not bind: never handled (no profile has its
// schedulerName), gated (a PreEnqueue plugin kept it out of the queue, so it never failed a
// cycle), or failed, with its last cycle's message and the nomination it was left with.
func (w *world) unplaced(ctx context.Context, p *v1.Pod, message string, lastCode map[string]fwk.Code) placement {
	key := p.Namespace + "/" + p.Name
	pl := placement{Pod: key, Outcome: "Unschedulable", Message: message}
	if obj, err := w.tracker.Get(v1.SchemeGroupVersion.WithResource("pods"), p.Namespace, p.Name); err == nil {
		p = obj.(*v1.Pod)
		pl.NominatedNode = p.Status.NominatedNodeName
	}
	f, handled := w.sched.Profiles[p.Spec.SchedulerName]
	code, failed := lastCode[key]
	switch {
	case !handled:
		pl.Outcome = "NotHandled"
	case !failed:
		for _, pe := range f.PreEnqueuePlugins() {
			if s := pe.PreEnqueue(ctx, p); !s.IsSuccess() {
				pl.Outcome, pl.Message = "Gated", s.Message()
				break
			}
		}
	case code == fwk.Error:
		pl.Outcome = "Error"
	}
	return pl
}

func (w *world) queueHasWork() bool {
	_, summary := w.sched.SchedulingQueue.PendingPods()
	var active, backoff, unschedulable int
	if _, err := fmt.Sscanf(summary, "activeQ:%d; backoffQ:%d; unschedulablePods:%d", &active, &backoff, &unschedulable); err != nil {
		panic(fmt.Sprintf("unexpected queue summary %q", summary))
	}
	return active+backoff > 0
}
