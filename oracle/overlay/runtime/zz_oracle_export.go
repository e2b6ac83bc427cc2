// Oracle glue, compiled into k8s.io/kubernetes/pkg/scheduler/framework/runtime through
// `go build -overlay`: the plugin instances a profile's framework built, so the oracle can
// report each plugin's own verdict and raw score beside the framework's totals.
package runtime

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// OraclePlugins returns the framework's filter and score plugins, in order, and the
// score weights.
func OraclePlugins(f framework.Framework) ([]framework.FilterPlugin, []framework.ScorePlugin, map[string]int) {
	fi := f.(*frameworkImpl)
	return fi.filterPlugins, fi.scorePlugins, fi.scorePluginWeight
}

// OraclePostFilterPlugins returns the framework's PostFilter plugins, in order.
func OraclePostFilterPlugins(f framework.Framework) []framework.PostFilterPlugin {
	return f.(*frameworkImpl).postFilterPlugins
}

// OracleFilterWithNominatedPods runs one filter plugin the way RunFilterPluginsWithNominatedPods
// runs the chain: first with the nominated pods of equal or higher priority added to the node,
// then, if that passed and pods were added, without them. --all-filters reports each plugin's
// verdict this way, with an Error wrapped and the plugin set as RunFilterPlugins does: the
// framework's status for that node had the chain stopped there.
func OracleFilterWithNominatedPods(ctx context.Context, f framework.Framework, pl framework.FilterPlugin, state fwk.CycleState, pod *v1.Pod, info fwk.NodeInfo) *fwk.Status {
	podsAdded, stateWith, infoWith, err := addGENominatedPods(ctx, f, pod, state, info)
	if err != nil {
		return fwk.AsStatus(err)
	}
	status := pl.Filter(ctx, stateWith, pod, infoWith)
	if podsAdded && status.IsSuccess() {
		status = pl.Filter(ctx, state, pod, info)
	}
	if !status.IsSuccess() {
		if !status.IsRejected() {
			status = fwk.AsStatus(fmt.Errorf("running %q filter plugin: %w", pl.Name(), status.AsError()))
		}
		status.SetPlugin(pl.Name())
	}
	return status
}
