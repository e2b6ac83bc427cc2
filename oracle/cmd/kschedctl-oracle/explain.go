package main

// explain: one scheduling cycle per pod through upstream's own steps (PreEnqueue,
// findNodesThatFitPod, prioritizeNodes, PostFilter), reported in kschedctl's JSON shape.
// Per-plugin entries come from upstream too: a node's first failing status is the one the
// framework returned; the plugins before it passed; raw and normalized scores are the
// plugins' own Score and NormalizeScore on the same cycle state; weighted scores are
// prioritizeNodes' answer.

import (
	"context"
	"errors"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

type filterEntry struct {
	Plugin  string   `json:"plugin"`
	Code    string   `json:"code"`
	Reasons []string `json:"reasons"`
}

type scoreEntry struct {
	Plugin     string `json:"plugin"`
	Raw        int64  `json:"raw"`
	Normalized int64  `json:"normalized"`
	Weight     int    `json:"weight"`
	Weighted   int64  `json:"weighted"`
}

type nodeResult struct {
	Name        string                                   `json:"name"`
	Evaluated   bool                                     `json:"evaluated"`
	Feasible    bool                                     `json:"feasible"`
	Filters     []filterEntry                            `json:"filters"`
	Scores      []scoreEntry                             `json:"scores"`
	TotalScore  *int64                                   `json:"totalScore"`
	Allocations []dynamicresources.OracleClaimAllocation `json:"allocations,omitempty"`
}

type preemptionResult struct {
	NominatedNode string   `json:"nominatedNode"`
	Victims       []string `json:"victims"`
}

type explainResult struct {
	Kind         string  `json:"kind"`
	Pod          string  `json:"pod"`
	Profile      string  `json:"profile"`
	Outcome      string  `json:"outcome"`
	SelectedNode *string `json:"selectedNode"`
	// ProvisionalNode: the node schedulePod chose when Reserve or Permit then said no.
	ProvisionalNode string            `json:"provisionalNode,omitempty"`
	Message         string            `json:"message"`
	EvaluatedNodes  int               `json:"evaluatedNodes"`
	FeasibleNodes   int               `json:"feasibleNodes"`
	TiedNodes       []string          `json:"tiedNodes"`
	Nodes           []nodeResult      `json:"nodes"`
	Preemption      *preemptionResult `json:"preemption"`
	// ScoringSkippedUpstream: one node was feasible, so schedulePod took it unscored.
	ScoringSkippedUpstream bool `json:"scoringSkippedUpstream"`
}

func passed(plugin string) filterEntry {
	return filterEntry{Plugin: plugin, Code: "Success", Reasons: []string{}}
}

func statusEntry(plugin string, s *fwk.Status) filterEntry {
	reasons := s.Reasons()
	if reasons == nil {
		reasons = []string{}
	}
	if s.Plugin() != "" {
		plugin = s.Plugin()
	}
	return filterEntry{Plugin: plugin, Code: s.Code().String(), Reasons: reasons}
}

func (w *world) explain(pod *v1.Pod, profileName string, allFilters bool) explainResult {
	ctx := context.Background()
	if profileName == "" {
		profileName = pod.Spec.SchedulerName
	}
	res := explainResult{Kind: "ExplainResult", Pod: pod.Namespace + "/" + pod.Name, Profile: profileName,
		TiedNodes: []string{}, Nodes: []nodeResult{}}
	f, ok := w.sched.Profiles[profileName]
	if !ok {
		res.Outcome, res.Message = "Error", "profile not found: "+profileName
		return res
	}
	for _, pl := range f.PreEnqueuePlugins() {
		if s := pl.PreEnqueue(ctx, pod); !s.IsSuccess() {
			res.Outcome, res.Message = "Gated", s.Message()
			if s.Code() == fwk.Error {
				res.Outcome = "Error"
			}
			// The pod never reaches a cycle: every node is listed, none visited.
			for _, ni := range w.sched.OracleNodes(ctx) {
				res.Nodes = append(res.Nodes, nodeResult{Name: ni.Node().Name, Filters: []filterEntry{}, Scores: []scoreEntry{}})
			}
			return res
		}
	}

	w.sched.OracleResetStartIndex()
	state := framework.NewCycleState()
	state.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
	cycle, err := w.sched.OracleSchedulePod(ctx, f, state, pod)
	filterPlugins, scorePlugins, weights := frameworkruntime.OraclePlugins(f)
	// DynamicResources' allocations as its Filter left them: preemption's dry runs (PostFilter)
	// run Filter again on nodes without their victims, and the plugin's state is shared.
	allocations := dynamicresources.OracleNodeAllocations(state)

	var fitErr *framework.FitError
	switch {
	case err == nil:
		host := cycle.Host
		res.Outcome, res.SelectedNode = "Scheduled", &host
		res.EvaluatedNodes, res.FeasibleNodes = cycle.Evaluated, len(cycle.Feasible)
		res.ScoringSkippedUpstream = cycle.Scores == nil
		if s := w.reserveAndPermit(ctx, f, state, pod, host); !s.IsSuccess() {
			// schedulingCycle: a FitError over the one chosen node, or the error itself.
			res.SelectedNode, res.ProvisionalNode = nil, host
			res.Outcome, res.Message = "Error", s.Message()
			if s.IsRejected() {
				fitErr := &framework.FitError{NumAllNodes: 1, Pod: pod, Diagnosis: framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}}
				fitErr.Diagnosis.NodeToStatus.Set(host, s)
				fitErr.Diagnosis.AddPluginStatus(s)
				res.Outcome, res.Message = "Rejected", fitErr.Error()
			}
		}
	case errors.As(err, &fitErr):
		res.Outcome = "Unschedulable"
		res.EvaluatedNodes = fitErr.Diagnosis.NodeToStatus.Len()
		if f.HasPostFilterPlugins() {
			pfRes, s := f.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
			fitErr.Diagnosis.PostFilterMsg = s.Message()
			if pfRes != nil && pfRes.NominatingInfo != nil && pfRes.NominatedNodeName != "" {
				res.Preemption = &preemptionResult{NominatedNode: pfRes.NominatedNodeName, Victims: w.awaitPreemption(pod)}
			}
		}
		res.Message = fitErr.Error()
	case errors.Is(err, scheduler.ErrNoNodesAvailable):
		res.Outcome, res.Message = "Unschedulable", err.Error()
	default:
		// schedulePod's result is empty; the nodes rejected before the error are in the
		// diagnosis, and listed below.
		res.Outcome, res.Message = "Error", err.Error()
	}

	feasible := map[string]bool{}
	for _, n := range cycle.Feasible {
		feasible[n.Node().Name] = true
	}
	skipFilter := state.GetSkipFilterPlugins()
	// One pass over the diagnosis; the same NodeToStatus the FitError carries.
	nts := cycle.Diagnosis.NodeToStatus
	failedOn := map[string]*fwk.Status{}
	if nts != nil {
		nts.ForEachExplicitNode(func(n string, s *fwk.Status) { failedOn[n] = s })
	}
	absent := w.absentNodes(ctx, f, pod, cycle)
	for _, ni := range cycle.AllNodes {
		name := ni.Node().Name
		nr := nodeResult{Name: name, Feasible: feasible[name], Filters: []filterEntry{}, Scores: []scoreEntry{}}
		failed, explicit := failedOn[name]
		nr.Evaluated = nr.Feasible || explicit
		switch {
		case !nr.Evaluated:
			// Left out by PreFilter (its verdict stands for every node it excluded), or not
			// reached by a partial scan (no entry).
			if entry, ok := absent[name]; ok {
				nr.Filters = append(nr.Filters, entry)
			}
		case allFilters:
			for _, pl := range filterPlugins {
				if skipFilter.Has(pl.Name()) {
					continue
				}
				s := frameworkruntime.OracleFilterWithNominatedPods(ctx, f, pl, state, pod, ni)
				if s.IsSuccess() {
					nr.Filters = append(nr.Filters, passed(pl.Name()))
				} else {
					nr.Filters = append(nr.Filters, statusEntry(pl.Name(), s))
				}
			}
		default:
			// The plugins before the one that failed passed; a feasible node passed them all.
			for _, pl := range filterPlugins {
				if skipFilter.Has(pl.Name()) {
					continue
				}
				if failed != nil && failed.Plugin() == pl.Name() {
					nr.Filters = append(nr.Filters, statusEntry(pl.Name(), failed))
					break
				}
				nr.Filters = append(nr.Filters, passed(pl.Name()))
			}
			if failed != nil && failed.Plugin() == "" {
				nr.Filters = append(nr.Filters, statusEntry("", failed))
			}
		}
		res.Nodes = append(res.Nodes, nr)
	}
	if allFilters {
		// --all-filters ran DynamicResources' Filter on nodes an earlier plugin rejected: the
		// allocator's answer there too, as kschedctl reports it.
		after := dynamicresources.OracleNodeAllocations(state)
		for _, nr := range res.Nodes {
			for _, fe := range nr.Filters {
				if fe.Plugin == dynamicresources.Name && fe.Code == "Success" && after[nr.Name] != nil {
					allocations[nr.Name] = after[nr.Name]
				}
			}
		}
	}
	for i := range res.Nodes {
		if res.Nodes[i].Evaluated {
			res.Nodes[i].Allocations = allocations[res.Nodes[i].Name]
		}
	}
	if cycle.Scores != nil {
		w.reportScores(ctx, &res, cycle, state, pod, scorePlugins, weights)
	}
	return res
}

// reserveAndPermit runs the rest of upstream's schedulingCycle on the chosen node (assume,
// Reserve, Permit), then undoes it (Unreserve, forget), as explain answers each pod alone:
// its status is Reserve's or Permit's when one of them said no.
func (w *world) reserveAndPermit(ctx context.Context, f framework.Framework, state fwk.CycleState, pod *v1.Pod, host string) *fwk.Status {
	logger := klog.FromContext(ctx)
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := w.sched.Cache.AssumePod(logger, assumed); err != nil {
		return fwk.AsStatus(err)
	}
	defer func() {
		f.RunReservePluginsUnreserve(ctx, state, assumed, host)
		_ = w.sched.Cache.ForgetPod(logger, assumed)
	}()
	if s := f.RunReservePluginsReserve(ctx, state, assumed, host); !s.IsSuccess() {
		return s
	}
	s := f.RunPermitPlugins(ctx, state, assumed, host)
	if s.IsWait() {
		if wp := f.GetWaitingPod(assumed.UID); wp != nil {
			wp.Reject("", "explain answers without waiting")
		}
		return nil
	}
	return s
}

// absentNodes is the filter entry of each node the cycle did not visit because PreFilter
// decided for it: all nodes when a PreFilter plugin rejected the pod (its status, named after
// the plugin), the nodes a PreFilterResult left out otherwise (the framework's status for them,
// named after the plugins that returned a node set, as its message lists them).
func (w *world) absentNodes(ctx context.Context, f framework.Framework, pod *v1.Pod, cycle scheduler.OracleCycle) map[string]filterEntry {
	out := map[string]filterEntry{}
	nts := cycle.Diagnosis.NodeToStatus
	if nts == nil {
		return out
	}
	s := nts.AbsentNodesStatus()
	if s == nil || s.Message() == "" {
		return out // the default status: no PreFilter verdict, nodes were simply not reached
	}
	if cycle.Diagnosis.PreFilterMsg != "" {
		plugin := s.Plugin()
		if plugin == "" {
			plugin = "PreFilter"
		}
		for _, ni := range cycle.AllNodes {
			out[ni.Node().Name] = statusEntry(plugin, s)
		}
		return out
	}
	// Which nodes the PreFilterResult kept, and which plugins returned a node set, is known to
	// PreFilter only; running it again on a copy of the state asks it. The plugins are not read
	// from the message: that lists the cycle's unschedulable plugins, to which evaluating a
	// nominated node first may have added the plugin that rejected it.
	copyState := framework.NewCycleState()
	preRes, ps, withNodes := f.RunPreFilterPlugins(ctx, copyState, pod)
	if !ps.IsSuccess() || preRes.AllNodes() {
		return out
	}
	plugins := strings.Join(sets.List(withNodes), ",")
	for _, ni := range cycle.AllNodes {
		if !preRes.NodeNames.Has(ni.Node().Name) {
			out[ni.Node().Name] = statusEntry(plugins, s)
		}
	}
	return out
}

// reportScores adds each plugin's raw and normalized score (the plugins' own Score and
// NormalizeScore on the cycle's state) beside prioritizeNodes' weighted answer.
func (w *world) reportScores(ctx context.Context, res *explainResult, cycle scheduler.OracleCycle, state fwk.CycleState,
	pod *v1.Pod, scorePlugins []framework.ScorePlugin, weights map[string]int) {
	index := map[string]int{}
	for i := range res.Nodes {
		index[res.Nodes[i].Name] = i
	}
	skipScore := state.GetSkipScorePlugins()
	raw := map[string]map[string]int64{}
	normalized := map[string]map[string]int64{}
	for _, pl := range scorePlugins {
		if skipScore.Has(pl.Name()) {
			continue
		}
		list := make(framework.NodeScoreList, len(cycle.Feasible))
		raw[pl.Name()] = map[string]int64{}
		normalized[pl.Name()] = map[string]int64{}
		for i, ni := range cycle.Feasible {
			s, _ := pl.Score(ctx, state, pod, ni)
			list[i] = framework.NodeScore{Name: ni.Node().Name, Score: s}
			raw[pl.Name()][ni.Node().Name] = s
		}
		if ext := pl.ScoreExtensions(); ext != nil {
			ext.NormalizeScore(ctx, state, pod, list)
		}
		for _, ns := range list {
			normalized[pl.Name()][ns.Name] = ns.Score
		}
	}
	best := int64(-1 << 62)
	for _, ns := range cycle.Scores {
		if ns.TotalScore > best {
			best = ns.TotalScore
		}
	}
	for _, ns := range cycle.Scores {
		nr := &res.Nodes[index[ns.Name]]
		total := ns.TotalScore
		nr.TotalScore = &total
		for _, ps := range ns.Scores {
			nr.Scores = append(nr.Scores, scoreEntry{Plugin: ps.Name, Raw: raw[ps.Name][ns.Name],
				Normalized: normalized[ps.Name][ns.Name], Weight: weights[ps.Name], Weighted: ps.Score})
		}
		if ns.TotalScore == best {
			res.TiedNodes = append(res.TiedNodes, ns.Name)
		}
	}
	if len(res.TiedNodes) == 1 {
		res.TiedNodes = []string{} // kschedctl's form: a tie needs two
	}
}
