// Command etcd is etcd's own server entry point (etcdmain.Main), built at the version
// k8s.io/kubernetes v1.34.4 pins (go.etcd.io/etcd v3.6.4), so the control plane needs no
// download beyond the Go module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
