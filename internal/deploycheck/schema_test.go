package deploycheck

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/resource"
	"github.com/yannh/kubeconform/pkg/validator"
	"go.yaml.in/yaml/v3"
)

// kubernetesVersion is the Kubernetes release whose API the vendored
// schemas describe: the one of k8s.io/api in go.mod (v0.35.0).
const kubernetesVersion = "1.35.0"

// schemaDir holds the vendored JSON schemas, laid out as
// yannh/kubernetes-json-schema lays them out (testdata/README.md).
const schemaDir = "testdata/kubernetes-json-schema"

// schemaLocation is kubeconform's template for a local schema: the
// standalone strict schema of one kind at kubernetesVersion, e.g.
// v1.35.0-standalone-strict/deployment-apps-v1.json.
const schemaLocation = schemaDir + "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"

var (
	update  = flag.Bool("update", false, "regenerate the vendored JSON schemas under testdata/ from -openapi")
	openapi = flag.String("openapi", "", "with -update: the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json of kubernetesVersion)")
)

// newValidator is kubeconform in strict mode over the vendored schemas
// only: a kind without a schema is an error, not skipped, and nothing is
// fetched.
func newValidator(t *testing.T) validator.Validator {
	t.Helper()
	v, err := validator.New([]string{schemaLocation}, validator.Opts{
		KubernetesVersion: kubernetesVersion,
		Strict:            true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// validate runs kubeconform over one rendered object and returns what it
// found wrong, or nil.
func validate(v validator.Validator, name string, y []byte) error {
	r := v.ValidateResource(resource.Resource{Path: name, Bytes: y})
	switch r.Status {
	case validator.Valid:
		return nil
	case validator.Invalid:
		var msgs []string
		for _, e := range r.ValidationErrors {
			msgs = append(msgs, e.Path+": "+e.Msg)
		}
		return fmt.Errorf("invalid: %s", strings.Join(msgs, "; "))
	case validator.Error:
		return r.Err
	default:
		return fmt.Errorf("kubeconform status %d (skipped or empty), want valid", r.Status)
	}
}

// kustomizations lists every kustomization under deploy/kubernetes (the
// base and each overlay), relative to it.
func kustomizations(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := fs.WalkDir(os.DirFS(deployDir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "kustomization.yaml" {
			dirs = append(dirs, path.Dir(p))
		}
		return err
	})
	if err != nil || len(dirs) < 2 {
		t.Fatalf("kustomizations under %s: %v %v", deployDir, dirs, err)
	}
	return dirs
}

// TestKubeconform validates every object of every kustomization, as
// kustomize renders it, with kubeconform in strict mode against the
// vendored schemas of Kubernetes kubernetesVersion: an unknown field, a
// wrong type, a missing required field or a kind without a vendored
// schema fails.
func TestKubeconform(t *testing.T) {
	v := newValidator(t)
	for _, dir := range kustomizations(t) {
		t.Run(dir, func(t *testing.T) {
			objs := build(t, dir)
			if len(objs) == 0 {
				t.Fatal("kustomize rendered nothing")
			}
			for _, o := range objs {
				if err := validate(v, dir, o.yaml); err != nil {
					t.Errorf("%s %s/%s: %v", dir, o.kind, o.name, err)
				}
			}
		})
	}
}

// TestSchemasVendored: the vendored schemas are exactly those of the kinds
// the kustomizations render, so a new kind (a PodDisruptionBudget, a
// NetworkPolicy, ...) comes with its schema, and none is kept for a kind
// no longer deployed. With -update -openapi FILE it regenerates them.
func TestSchemasVendored(t *testing.T) {
	want := map[string]bool{}
	for _, dir := range kustomizations(t) {
		for _, o := range build(t, dir) {
			want[schemaFile(o.apiVersion, o.kind)] = true
		}
	}
	dir := filepath.Join(schemaDir, "v"+kubernetesVersion+"-standalone-strict")
	if *update {
		if *openapi == "" {
			t.Fatal("-update needs -openapi: the swagger.json of Kubernetes v" + kubernetesVersion + " (testdata/README.md)")
		}
		generateSchemas(t, *openapi, dir, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	if !maps.Equal(have, want) {
		t.Errorf("%s holds %v; the manifests render the kinds of %v: run the -update of testdata/README.md",
			dir, slices.Sorted(maps.Keys(have)), slices.Sorted(maps.Keys(want)))
	}
}

// schemaFile is the file name kubeconform looks for: kind, then the group
// (its first label) unless it is the core group, then the version.
func schemaFile(apiVersion, kind string) string {
	group, version, ok := strings.Cut(apiVersion, "/")
	name := strings.ToLower(kind)
	if ok {
		name += "-" + strings.ToLower(strings.Split(group, ".")[0])
	} else {
		version = group
	}
	return name + "-" + strings.ToLower(version) + ".json"
}

// TestKubeconformRejects proves the validation has teeth: each row breaks
// one rendered object of the example overlay the way a hand edit would,
// and kubeconform must reject it. The last rows are what only the strict
// decode into k8s.io/api types catches (render): a quantity the API
// server cannot parse is a string to the JSON schema.
func TestKubeconformRejects(t *testing.T) {
	v := newValidator(t)
	objs := map[string][]byte{}
	for _, o := range build(t, "overlays/example") {
		objs[o.kind] = o.yaml
	}
	for _, c := range []struct {
		name, kind string
		edit       func(m map[string]any)
		schemaOK   bool // the JSON schema accepts it; the typed decode must not
	}{
		{"unknown container field", "Deployment", func(m map[string]any) {
			container(m)["imagePullPolice"] = "Always"
		}, false},
		{"unknown field at the top of the spec", "Deployment", func(m map[string]any) {
			m["spec"].(map[string]any)["replica"] = 3
		}, false},
		{"replicas a string", "Deployment", func(m map[string]any) {
			m["spec"].(map[string]any)["replicas"] = "three"
		}, false},
		{"probe port an object", "Deployment", func(m map[string]any) {
			container(m)["readinessProbe"].(map[string]any)["httpGet"].(map[string]any)["port"] = map[string]any{"name": "http"}
		}, false},
		{"container without a name", "Deployment", func(m map[string]any) {
			delete(container(m), "name")
		}, false},
		{"misspelt securityContext field", "Deployment", func(m map[string]any) {
			container(m)["securityContext"].(map[string]any)["readOnlyRootFileSystem"] = true
		}, false},
		{"Service port a string", "Service", func(m map[string]any) {
			m["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"] = "eighty"
		}, false},
		{"Service affinity misspelt", "Service", func(m map[string]any) {
			m["spec"].(map[string]any)["sessionAffinityConfig"] = map[string]any{"clientIp": map[string]any{}}
		}, false},
		{"ConfigMap data a list", "ConfigMap", func(m map[string]any) {
			m["data"] = []any{"config.yaml"}
		}, false},
		{"Secret stringdata", "Secret", func(m map[string]any) {
			m["stringdata"] = map[string]any{"token": "x"}
		}, false},
		{"Namespace apiVersion apps/v1", "Namespace", func(m map[string]any) {
			m["apiVersion"] = "apps/v1"
		}, false},
		{"a kind with no vendored schema", "Deployment", func(m map[string]any) {
			m["kind"] = "StatefulSet"
		}, false},
		{"memory request not a quantity", "Deployment", func(m map[string]any) {
			container(m)["resources"].(map[string]any)["requests"].(map[string]any)["memory"] = "128 MB"
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, ok := objs[c.kind]
			if !ok {
				t.Fatalf("the overlay renders no %s", c.kind)
			}
			var m map[string]any
			if err := yaml.Unmarshal(src, &m); err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			broken, err := yaml.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			err = validate(v, c.name, broken)
			if c.schemaOK {
				if err != nil {
					t.Fatalf("kubeconform rejects it (%v): move the row up", err)
				}
				if err := decodeStrict(broken); err == nil {
					t.Fatalf("neither kubeconform nor the strict decode rejects:\n%s", broken)
				}
				return
			}
			if err == nil {
				t.Fatalf("kubeconform accepts:\n%s", broken)
			}
			t.Logf("kubeconform: %v", err)
		})
	}
}

// container is the first container of a Deployment decoded as a map.
func container(m map[string]any) map[string]any {
	spec := m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}

// generateSchemas writes into dir the standalone strict JSON schema of
// each file named in want, from the Kubernetes OpenAPI v2 document at
// openapiFile, the way yannh/kubernetes-json-schema builds them with
// openapi2jsonschema --expanded --kubernetes --stand-alone --strict: every
// $ref inlined, int-or-string and Quantity as oneOf, apiVersion and kind
// as one-value enums, every field but a required one nullable, and
// additionalProperties false on every object with properties. Files not
// in want are removed.
func generateSchemas(t *testing.T, openapiFile, dir string, want map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(openapiFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info        map[string]any            `json:"info"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", openapiFile, err)
	}
	defs := doc.Definitions
	defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = map[string]any{
		"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
	defs["io.k8s.apimachinery.pkg.api.resource.Quantity"] = map[string]any{
		"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		def := defs[name]
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) != 1 {
			continue
		}
		gvk := gvks[0].(map[string]any)
		apiVersion := gvk["version"].(string)
		if g := gvk["group"].(string); g != "" {
			apiVersion = g + "/" + apiVersion
		}
		file := schemaFile(apiVersion, gvk["kind"].(string))
		if !want[file] {
			continue
		}
		s, err := inline(def, defs, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		schema := s.(map[string]any)
		props := schema["properties"].(map[string]any)
		props["apiVersion"].(map[string]any)["enum"] = []any{apiVersion}
		props["kind"].(map[string]any)["enum"] = []any{gvk["kind"]}
		nullable(schema, true)
		strict(schema)
		schema["$schema"] = "http://json-schema.org/schema#"
		if _, ok := schema["type"]; !ok {
			schema["type"] = "object"
		}
		out, err := json.MarshalIndent(schema, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		made[file] = true
	}
	for f := range want {
		if !made[f] {
			t.Errorf("%s has no definition for %s", openapiFile, f)
		}
	}
}

// inline returns a deep copy of node with every {"$ref":
// "#/definitions/X"} replaced by a copy of X, itself inlined; seen guards
// against a type that contains itself.
func inline(node any, defs map[string]map[string]any, seen []string) (any, error) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/definitions/")
			def, found := defs[name]
			if !ok || !found {
				return nil, fmt.Errorf("unresolved $ref %q", ref)
			}
			if slices.Contains(seen, name) {
				return nil, errors.New("recursive type " + name)
			}
			r, err := inline(def, defs, append(seen, name))
			if err != nil {
				return nil, err
			}
			// Siblings of $ref (a description) stay beside what it
			// points to, as jsonref leaves them.
			out := r.(map[string]any)
			for k, v := range n {
				if k != "$ref" {
					out[k] = v
				}
			}
			return out, nil
		}
		out := make(map[string]any, len(n))
		for k, v := range n {
			if k == "format" && v == "int-or-string" {
				return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, nil
			}
			c, err := inline(v, defs, seen)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			c, err := inline(v, defs, seen)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		return node, nil
	}
}

// nullable lets every value be null, as kubectl accepts, except a
// required field and the object itself (top).
func nullable(node any, keep bool) {
	switch n := node.(type) {
	case map[string]any:
		if t, ok := n["type"].(string); ok && !keep && t != "null" {
			n["type"] = []any{t, "null"}
		}
		required := map[string]bool{}
		if r, ok := n["required"].([]any); ok {
			for _, f := range r {
				required[f.(string)] = true
			}
		}
		for k, v := range n {
			if k == "properties" {
				if props, ok := v.(map[string]any); ok {
					for p, s := range props {
						nullable(s, required[p])
					}
					continue
				}
			}
			nullable(v, false)
		}
	case []any:
		for _, v := range n {
			nullable(v, false)
		}
	}
}

// strict sets additionalProperties false on every object schema with
// properties that does not say otherwise: an unknown field is an error.
func strict(node any) {
	switch n := node.(type) {
	case map[string]any:
		if _, ok := n["properties"]; ok {
			if _, set := n["additionalProperties"]; !set {
				n["additionalProperties"] = false
			}
		}
		for _, v := range n {
			strict(v)
		}
	case []any:
		for _, v := range n {
			strict(v)
		}
	}
}

// TestResourcesFromBenchmarks: the Deployment's memory request and limit
// hold what docs/benchmarks.md measured, and its comment quotes the
// figures: the request covers 5,000 skills over a 10,000-call session plus
// 1,000 open 2025-era sessions; the limit 10,000 skills, those sessions
// and a flood of held listen streams. A new benchmark run that moves a
// figure fails here until the manifest is sized (and its comment says so)
// again.
func TestResourcesFromBenchmarks(t *testing.T) {
	b, err := os.ReadFile("../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	// The growth table's row: 1k, 5k, 10k, 50k.
	_, growth, ok := strings.Cut(doc, "### Growth from 1,000")
	if !ok {
		t.Fatal(`docs/benchmarks.md has no section "Growth from 1,000 ..."`)
	}
	growth, _, _ = strings.Cut(growth, "\n## ")
	peak := numbers(t, line(t, growth, "| `ccski mcp` peak RSS over a session of 10,000 calls (VmHWM) (MiB) | "))
	if len(peak) < 4 {
		t.Fatalf("peak RSS row: %v", peak)
	}
	peak5k, peak10k := peak[1], peak[2]
	sessions := slices.Max(numbers(t, line(t, doc, "RSS per 1,000 open 2025-era sessions")))
	flood := slices.Max(numbers(t, line(t, doc, "6 ms, worst answer")))

	objs := render(t, "base")
	if len(objs.deployments) != 1 {
		t.Fatalf("%d Deployments", len(objs.deployments))
	}
	res := objs.deployments[0].Spec.Template.Spec.Containers[0].Resources
	const mib = 1 << 20
	request := float64(res.Requests.Memory().Value()) / mib
	limit := float64(res.Limits.Memory().Value()) / mib
	if need := peak5k + sessions; request < need {
		t.Errorf("memory request %.0f MiB < %.1f (5,000 skills) + %.1f (1,000 sessions)", request, peak5k, sessions)
	}
	if need := peak10k + sessions + flood; limit < need {
		t.Errorf("memory limit %.0f MiB < %.1f (10,000 skills) + %.1f (sessions) + %.1f (listen flood)", limit, peak10k, sessions, flood)
	}
	manifest, err := os.ReadFile(filepath.Join(deployDir, "base", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []float64{peak5k, peak10k, sessions, flood} {
		if s := fmt.Sprintf("%.1f MiB", f); !strings.Contains(string(manifest), s) {
			t.Errorf("the Deployment's comment does not quote %s from docs/benchmarks.md", s)
		}
	}
}

// line returns the one line of doc holding marker.
func line(t *testing.T, doc, marker string) string {
	t.Helper()
	var found []string
	for l := range strings.Lines(doc) {
		if strings.Contains(l, marker) {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("docs/benchmarks.md: %d lines hold %q, want 1", len(found), marker)
	}
	return found[0]
}

// numbers returns the decimal figures of a line (those with a fraction:
// MiB figures, not counts such as 1,000).
func numbers(t *testing.T, l string) []float64 {
	t.Helper()
	var out []float64
	for _, f := range strings.FieldsFunc(l, func(r rune) bool { return !(r == '.' || r >= '0' && r <= '9') }) {
		if !strings.Contains(f, ".") || strings.HasPrefix(f, ".") || strings.HasSuffix(f, ".") {
			continue
		}
		var x float64
		if _, err := fmt.Sscan(f, &x); err == nil {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no figure in %q", l)
	}
	return out
}

// TestReadmeZeroToThree: README.md's "Running on Kubernetes" takes an
// operator from zero to three replicas; what its commands name is what
// the overlay renders, and its token command writes a token the server
// accepts from a client that sends `$(cat token)`: ccski compares the
// bearer token byte for byte, and a Secret generated from a file keeps
// its trailing newline, which the shell's $(...) drops.
func TestReadmeZeroToThree(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Running on Kubernetes\n")
	if !ok {
		t.Fatal("README.md has no section Running on Kubernetes")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	_, script, ok := strings.Cut(sec, "```sh\n")
	script, _, _ = strings.Cut(script, "```")
	if !ok || script == "" {
		t.Fatal("the section has no sh block")
	}
	const tokenFile = "deploy/kubernetes/overlays/example/token"
	var tokenCmd string
	for l := range strings.Lines(script) {
		if strings.Contains(l, "> "+tokenFile) {
			tokenCmd = strings.TrimSpace(l)
		}
	}
	if tokenCmd == "" {
		t.Fatalf("no command writes %s:\n%s", tokenFile, script)
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(tokenCmd, tokenFile, filepath.Join(dir, "token")))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tokenCmd, err, out)
	}
	token, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	if len(token) < 32 || strings.TrimSpace(string(token)) != string(token) {
		t.Errorf("%s writes %q: the Secret would hold it as is, and a client sending $(cat token) would be refused", tokenCmd, token)
	}
	// The token file must not be committed.
	if out, err := exec.Command("git", "-C", "../..", "check-ignore", "-q", tokenFile).CombinedOutput(); err != nil {
		t.Errorf("git does not ignore %s (%v %s)", tokenFile, err, out)
	}

	r := render(t, "overlays/example")
	d, svc := r.deployments[0], r.services[0]
	for _, want := range []string{
		"kubectl apply -k deploy/kubernetes/overlays/example",
		fmt.Sprintf("kubectl -n %s rollout status deployment/%s", d.Namespace, d.Name),
		fmt.Sprintf("port-forward service/%s 3000:%d", svc.Name, svc.Spec.Ports[0].Port),
		fmt.Sprintf("http://%s.%s/mcp", svc.Name, svc.Namespace),
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the README's commands lack %q", want)
		}
	}
	if *d.Spec.Replicas != 3 || !strings.Contains(script, "3 ready replicas") {
		t.Errorf("the overlay runs %d replicas; the README waits for 3", *d.Spec.Replicas)
	}
}
