//go:build tools

// Package tools pins scheduler-plugins' own scheduler command, built by the Makefile (go build
// of a package path needs its module in go.mod).
package tools

import (
	_ "sigs.k8s.io/scheduler-plugins/cmd/scheduler"
)
