// Oracle glue, compiled into k8s.io/kubernetes/pkg/scheduler through `go build -overlay`
// (see ../../Makefile). It adds no scheduling logic: it hands the oracle what upstream's
// unexported schedulePod steps compute (findNodesThatFitPod, prioritizeNodes), and swaps
// selectHost's random pick among equal top scores for the first of them in visit order,
// which kschedctl's --tie-break first also takes, so simulate runs compare placement by
// placement.
package scheduler

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// OracleCycle is what one run of the scheduling algorithm computed for a pod.
type OracleCycle struct {
	Feasible  []fwk.NodeInfo
	Diagnosis framework.Diagnosis
	// Scores is prioritizeNodes' answer, in the order of Feasible; nil when not scored.
	Scores    []framework.NodePluginScores
	Host      string
	Evaluated int
	AllNodes  []fwk.NodeInfo
}

// OracleFindAndScore runs schedulePod's steps. With scoreSingle, a lone feasible node is
// scored too (upstream skips it; kschedctl's explain reports its scores).
func (sched *Scheduler) OracleFindAndScore(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod, scoreSingle bool) (OracleCycle, error) {
	var out OracleCycle
	if err := sched.Cache.UpdateSnapshot(klog.FromContext(ctx), sched.nodeInfoSnapshot); err != nil {
		return out, err
	}
	out.AllNodes, _ = sched.nodeInfoSnapshot.NodeInfos().List()
	if sched.nodeInfoSnapshot.NumNodes() == 0 {
		return out, ErrNoNodesAvailable
	}
	feasible, diagnosis, err := sched.findNodesThatFitPod(ctx, f, state, pod)
	out.Feasible, out.Diagnosis = feasible, diagnosis
	if err != nil {
		return out, err
	}
	if len(feasible) == 0 {
		return out, &framework.FitError{Pod: pod, NumAllNodes: sched.nodeInfoSnapshot.NumNodes(), Diagnosis: diagnosis}
	}
	out.Evaluated = len(feasible) + diagnosis.NodeToStatus.Len()
	if len(feasible) == 1 {
		out.Host = feasible[0].Node().Name
		if !scoreSingle {
			return out, nil
		}
		if scores, err := prioritizeNodes(ctx, sched.Extenders, f, state, pod, feasible); err == nil {
			out.Scores = scores
		}
		return out, nil
	}
	scores, err := prioritizeNodes(ctx, sched.Extenders, f, state, pod, feasible)
	if err != nil {
		return out, err
	}
	out.Scores = scores
	best := 0
	for i := range scores {
		if scores[i].TotalScore > scores[best].TotalScore {
			best = i
		}
	}
	out.Host = scores[best].Name
	return out, nil
}

// OracleUseFirstTopScore makes ScheduleOne pick, among the nodes sharing the top score,
// the first one visited instead of a random one.
func (sched *Scheduler) OracleUseFirstTopScore() {
	sched.SchedulePod = func(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod) (ScheduleResult, error) {
		c, err := sched.OracleFindAndScore(ctx, f, state, pod, false)
		if err != nil {
			return ScheduleResult{}, err
		}
		return ScheduleResult{SuggestedHost: c.Host, EvaluatedNodes: c.Evaluated, FeasibleNodes: len(c.Feasible)}, nil
	}
}

// OracleResetStartIndex lets every explained pod start its node scan at the first node,
// as each explain is its own first scheduling cycle.
func (sched *Scheduler) OracleResetStartIndex() { sched.nextStartNodeIndex = 0 }
