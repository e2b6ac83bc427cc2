// kschedctl-oracle: upstream kube-scheduler v1.34 (k8s.io/kubernetes, see go.mod) behind
// kschedctl's command line and JSON, for the differential tests and benchmarks.
//
//	kschedctl-oracle explain POD... [--config C] --cluster PATH... [--profile P] [--all-filters] [-o json]
//	kschedctl-oracle simulate PODS... [--config C] --cluster PATH... [--bench] [-o json]
//	kschedctl-oracle batch < cases.jsonl    (one {"args": [...]} per line, one JSON answer per line)
//
// ORACLE_DEBUG=1 prints each simulate cycle (queue lengths, the pod popped, its failure).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

type invocation struct {
	command    string
	pods       []string
	config     string
	clusters   []string
	profile    string
	allFilters bool
	bench      bool
}

func parseArgs(args []string) (invocation, error) {
	var inv invocation
	if len(args) == 0 {
		return inv, fmt.Errorf("usage: kschedctl-oracle explain|simulate PODS... --cluster PATH [--config C]")
	}
	inv.command = args[0]
	if inv.command != "explain" && inv.command != "simulate" {
		return inv, fmt.Errorf("unknown command %q", inv.command)
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
				return v, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		name, _, _ := strings.Cut(a, "=")
		var err error
		switch name {
		case "--config", "-c":
			inv.config, err = value()
		case "--cluster":
			var v string
			v, err = value()
			inv.clusters = append(inv.clusters, v)
		case "--profile":
			inv.profile, err = value()
		case "-f", "--filename":
			var v string
			v, err = value()
			inv.pods = append(inv.pods, v)
		case "-o", "--output":
			var v string
			v, err = value()
			if err == nil && v != "json" {
				err = fmt.Errorf("only -o json is supported")
			}
		case "--all-filters":
			inv.allFilters = true
		case "--bench":
			inv.bench = true
		case "--tie-break":
			// The oracle always takes the first top-scored node in visit order.
			_, err = value()
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				return inv, fmt.Errorf("unknown flag %s", a)
			}
			inv.pods = append(inv.pods, a)
		}
		if err != nil {
			return inv, err
		}
	}
	return inv, nil
}

func run(inv invocation) (any, error) {
	cfg, err := loadConfig(inv.config)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cluster, err := readObjects(inv.clusters)
	if err != nil {
		return nil, err
	}
	podObjs, err := readObjects(inv.pods)
	if err != nil {
		return nil, err
	}
	var pods []*v1.Pod
	for _, o := range podObjs {
		if p, ok := o.(*v1.Pod); ok {
			pods = append(pods, p)
		}
	}
	objs, err := apiObjects(cluster, pods, inv.command == "explain")
	if err != nil {
		return nil, err
	}
	parallelism := int32(1)
	if inv.bench {
		parallelism = cfg.Parallelism
	}
	w, err := newWorld(cfg, objs, inv.command == "explain", parallelism)
	if err != nil {
		return nil, err
	}
	defer w.close()
	if inv.command == "simulate" {
		return w.simulate(pods, pendingPods(cluster), inv.bench), nil
	}
	var items []explainResult
	for _, p := range pods {
		items = append(items, w.explain(p, inv.profile, inv.allFilters))
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return map[string]any{"kind": "ExplainResultList", "items": items}, nil
}

// apiObjects is what the API server holds once the pending pods were created: every pod
// completed as admission completes it (priority), the pending ones also as the pod strategy's
// PrepareForCreate changes their spec. An explained pod that names its node in spec.nodeName is
// stored without it: explain asks where such a pod would go, and it must not already sit on
// its node in the scheduler's cache.
func apiObjects(cluster []runtime.Object, pending []*v1.Pod, explain bool) ([]runtime.Object, error) {
	classes := map[string]*schedulingv1.PriorityClass{}
	for _, o := range cluster {
		if pc, ok := o.(*schedulingv1.PriorityClass); ok {
			classes[pc.Name] = pc
		}
	}
	objs := append([]runtime.Object{}, cluster...)
	for _, o := range cluster {
		if pod, ok := o.(*v1.Pod); ok {
			if err := completePod(pod, classes); err != nil {
				return nil, err
			}
		}
	}
	for _, pod := range pending {
		if err := completePod(pod, classes); err != nil {
			return nil, err
		}
		if err := prepareForCreate(pod); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		stored := pod
		if explain && pod.Spec.NodeName != "" {
			stored = pod.DeepCopy()
			stored.Spec.NodeName = ""
		}
		objs = append(objs, stored)
	}
	return objs, nil
}

// pendingPods are the cluster state's pods waiting for a node: not bound, not finished, not
// being deleted. simulate reports them beside the files' pods (the loop schedules them too).
func pendingPods(cluster []runtime.Object) []*v1.Pod {
	var out []*v1.Pod
	for _, o := range cluster {
		pod, ok := o.(*v1.Pod)
		if !ok || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
			pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		out = append(out, pod)
	}
	return out
}

func main() {
	// Upstream logs errors it handles (a PostFilter's Error status, say) through klog; the
	// answers carry them, and a differential run's output must stay readable.
	klog.SetLogger(logr.Discard())
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "batch" {
		batch()
		return
	}
	inv, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	out, err := run(inv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

// batch answers many invocations in one process: the differential tests send thousands.
func batch() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Args []string `json:"args"`
		}
		answer := map[string]any{}
		start := time.Now()
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			answer["error"] = err.Error()
		} else if inv, err := parseArgs(req.Args); err != nil {
			answer["error"] = err.Error()
		} else if res, err := run(inv); err != nil {
			answer["error"] = err.Error()
		} else {
			answer["result"] = res
		}
		answer["seconds"] = time.Since(start).Seconds()
		_ = out.Encode(answer)
	}
}
