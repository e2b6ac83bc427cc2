// Oracle glue, compiled into k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources
// through `go build -overlay`: it reads what the plugin's own Filter stored in the cycle state
// (the allocator's answer per node), so the differential compares which devices upstream's
// allocator chose, not only whether it found some. It decides nothing.
package dynamicresources

import (
	"fmt"

	fwk "k8s.io/kube-scheduler/framework"
)

// OracleDevice is one allocated device of a claim, named as the AllocationResult names it.
type OracleDevice struct {
	Request     string `json:"request"`
	Driver      string `json:"driver"`
	Pool        string `json:"pool"`
	Device      string `json:"device"`
	AdminAccess *bool  `json:"adminAccess,omitempty"`
}

// OracleClaimAllocation is the allocation Filter found on a node for one claim ("ns/name").
type OracleClaimAllocation struct {
	Claim   string         `json:"claim"`
	Devices []OracleDevice `json:"devices"`
}

// OracleNodeAllocations returns, per node that passed the plugin's Filter with claims to
// allocate, the allocation result of each such claim in the order of the pod's claims; nil
// when the plugin kept no state for the pod.
func OracleNodeAllocations(cs fwk.CycleState) map[string][]OracleClaimAllocation {
	state, err := getStateData(cs)
	if err != nil || state == nil {
		return nil
	}
	state.mutex.Lock()
	defer state.mutex.Unlock()
	var names []string
	for _, claim := range state.claims.toAllocate() {
		names = append(names, fmt.Sprintf("%s/%s", claim.Namespace, claim.Name))
	}
	out := map[string][]OracleClaimAllocation{}
	for node, na := range state.nodeAllocations {
		var claims []OracleClaimAllocation
		for i, result := range na.allocationResults {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			devices := []OracleDevice{}
			for _, r := range result.Devices.Results {
				devices = append(devices, OracleDevice{Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device, AdminAccess: r.AdminAccess})
			}
			claims = append(claims, OracleClaimAllocation{Claim: name, Devices: devices})
		}
		if len(claims) > 0 {
			out[node] = claims
		}
	}
	return out
}
