package main

// Reading the same files kschedctl reads: YAML or JSON, several documents per file, kubectl
// Lists, directories read recursively. Objects get the API server's defaults (the
// registered defaulting functions) and a pod the priority admission plugin's priority, as
// a pod created through the API server would.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	"sigs.k8s.io/yaml"

	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// readObjects reads every object under the given paths, in file order.
func readObjects(paths []string) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, p := range paths {
		files, err := expandPath(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			objs, err := readFile(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

func expandPath(p string) ([]string, error) {
	if p == "-" {
		return []string{p}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(path))
		if !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

func readFile(path string) ([]runtime.Object, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []runtime.Object
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		objs, err := decodeDocument(js)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// decodeDocument turns one document into typed objects; a List yields its items. Kinds the
// scheduler does not read are dropped.
func decodeDocument(js []byte) ([]runtime.Object, error) {
	var head struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, err
	}
	if head.Kind == "" || string(js) == "null" {
		return nil, nil
	}
	if strings.HasSuffix(head.Kind, "List") {
		var out []runtime.Object
		for _, item := range head.Items {
			objs, err := decodeDocument(item)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		return out, nil
	}
	obj, _, err := clientscheme.Codecs.UniversalDeserializer().Decode(js, nil, nil)
	if err != nil {
		if runtime.IsNotRegisteredError(err) {
			return nil, nil
		}
		return nil, err
	}
	legacyscheme.Scheme.Default(obj)
	// The API server gives every object a resourceVersion; the scheduler's assume cache
	// (ResourceClaims) refuses objects without one.
	if acc, err := meta.Accessor(obj); err == nil && acc.GetResourceVersion() == "" {
		acc.SetResourceVersion("1")
	}
	return []runtime.Object{obj}, nil
}

// completePod gives a pod what the API server would: a namespace, a UID, and the priority
// admission plugin's priority and preemption policy.
func completePod(pod *v1.Pod, classes map[string]*schedulingv1.PriorityClass) error {
	if pod.Namespace == "" {
		pod.Namespace = v1.NamespaceDefault
	}
	if pod.UID == "" {
		sum := sha256.Sum256([]byte(pod.Namespace + "/" + pod.Name))
		pod.UID = types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16]))
	}
	if pod.Spec.SchedulerName == "" {
		pod.Spec.SchedulerName = v1.DefaultSchedulerName
	}
	if pod.Spec.Priority != nil {
		return nil
	}
	var pc *schedulingv1.PriorityClass
	name := pod.Spec.PriorityClassName
	switch {
	case name == "":
		for _, c := range classes {
			if c.GlobalDefault && (pc == nil || c.Value < pc.Value) {
				pc = c
			}
		}
	case name == "system-node-critical":
		pc = &schedulingv1.PriorityClass{Value: 2000001000}
	case name == "system-cluster-critical":
		pc = &schedulingv1.PriorityClass{Value: 2000000000}
	default:
		pc = classes[name]
		if pc == nil {
			return fmt.Errorf("pod %s/%s: no PriorityClass with name %s was found", pod.Namespace, pod.Name, name)
		}
	}
	var value int32
	policy := v1.PreemptLowerPriority
	if pc != nil {
		value = pc.Value
		if pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
		if name == "" {
			pod.Spec.PriorityClassName = pc.Name
		}
	}
	pod.Spec.Priority = &value
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = &policy
	}
	return nil
}

// prepareForCreate gives a pending pod the spec the API server stores when it is created: the
// pod strategy's own PrepareForCreate (v1.34: podAffinity matchLabelKeys/mismatchLabelKeys and
// topology spread matchLabelKeys merged into the label selectors, fields of disabled features
// dropped). Only the spec is kept: the status PrepareForCreate resets is the case's input (a
// nominated node, for one).
func prepareForCreate(pod *v1.Pod) error {
	internal := &api.Pod{}
	if err := legacyscheme.Scheme.Convert(pod, internal, nil); err != nil {
		return err
	}
	podstore.Strategy.PrepareForCreate(context.Background(), internal)
	created := &v1.Pod{}
	if err := legacyscheme.Scheme.Convert(internal, created, nil); err != nil {
		return err
	}
	pod.Spec = created.Spec
	return nil
}
