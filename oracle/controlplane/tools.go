//go:build tools

// Package tools pins the upstream commands built by the Makefile (go build of a package
// path needs its module in go.mod).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
