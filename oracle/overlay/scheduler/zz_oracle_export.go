// Oracle glue, compiled into k8s.io/kubernetes/pkg/scheduler through `go build -overlay`
// (see ../../Makefile). It adds no scheduling logic: OracleSchedulePod is schedulePod's steps
// in schedulePod's order, calling upstream's own findNodesThatFitPod, prioritizeNodes and
// selectHost, and keeping what they computed so the oracle can report it. One thing is
// changed: among the nodes sharing the top score, selectHost picks one at random; the oracle
// takes the first of them in visit order, which kschedctl's --tie-break first also takes, so
// simulate runs compare placement by placement.
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
	// Scores is prioritizeNodes' answer, in the order of Feasible; nil when schedulePod did
	// not score (a lone feasible node).
	Scores    []framework.NodePluginScores
	Host      string
	Evaluated int
	AllNodes  []fwk.NodeInfo
}

// OracleSchedulePod runs schedulePod and returns what its steps computed.
func (sched *Scheduler) OracleSchedulePod(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod) (OracleCycle, error) {
	var out OracleCycle
	if err := sched.Cache.UpdateSnapshot(klog.FromContext(ctx), sched.nodeInfoSnapshot); err != nil {
		return out, err
	}
	out.AllNodes, _ = sched.nodeInfoSnapshot.NodeInfos().List()
	if sched.nodeInfoSnapshot.NumNodes() == 0 {
		return out, ErrNoNodesAvailable
	}
	feasible, diagnosis, err := sched.findNodesThatFitPod(ctx, f, state, pod)
	out.Diagnosis = diagnosis
	if err != nil {
		return out, err
	}
	out.Feasible = feasible
	if len(feasible) == 0 {
		return out, &framework.FitError{Pod: pod, NumAllNodes: sched.nodeInfoSnapshot.NumNodes(), Diagnosis: diagnosis}
	}
	if len(feasible) == 1 {
		// schedulePod takes it without PreScore or Score.
		out.Host, out.Evaluated = feasible[0].Node().Name, 1+diagnosis.NodeToStatus.Len()
		return out, nil
	}
	scores, err := prioritizeNodes(ctx, sched.Extenders, f, state, pod, feasible)
	if err != nil {
		return out, err
	}
	// selectHost reorders the list it is given (a heap over the same array).
	out.Scores = append([]framework.NodePluginScores(nil), scores...)
	host, _, err := selectHost(scores, numberOfHighestScoredNodesToReport)
	if err != nil {
		return out, err
	}
	out.Host = firstOfTopScore(out.Scores, host)
	out.Evaluated = len(feasible) + diagnosis.NodeToStatus.Len()
	return out, nil
}

// firstOfTopScore is, among the nodes scored as high as host (selectHost's random pick among
// the top scores), the first in visit order.
func firstOfTopScore(scores []framework.NodePluginScores, host string) string {
	var top int64
	for _, s := range scores {
		if s.Name == host {
			top = s.TotalScore
		}
	}
	for _, s := range scores {
		if s.TotalScore == top {
			return s.Name
		}
	}
	return host
}

// OracleUseFirstTopScore makes ScheduleOne use OracleSchedulePod's pick.
func (sched *Scheduler) OracleUseFirstTopScore() {
	sched.SchedulePod = func(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod) (ScheduleResult, error) {
		c, err := sched.OracleSchedulePod(ctx, f, state, pod)
		if err != nil {
			return ScheduleResult{}, err
		}
		return ScheduleResult{SuggestedHost: c.Host, EvaluatedNodes: c.Evaluated, FeasibleNodes: len(c.Feasible)}, nil
	}
}

// OracleResetStartIndex lets every explained pod start its node scan at the first node,
// as each explain is its own first scheduling cycle.
func (sched *Scheduler) OracleResetStartIndex() { sched.nextStartNodeIndex = 0 }

// OracleNodes is the node list of a fresh snapshot, in the order a cycle visits it.
func (sched *Scheduler) OracleNodes(ctx context.Context) []fwk.NodeInfo {
	if err := sched.Cache.UpdateSnapshot(klog.FromContext(ctx), sched.nodeInfoSnapshot); err != nil {
		return nil
	}
	nodes, _ := sched.nodeInfoSnapshot.NodeInfos().List()
	return nodes
}
