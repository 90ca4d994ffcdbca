// Package deploycheck holds the test of the Kubernetes manifests in
// deploy/kubernetes: it renders the kustomize base and every overlay with
// kustomize's own library (krusty), validates every object with
// kubeconform in strict mode against the JSON schemas of one Kubernetes
// release vendored under testdata (schema_test.go; no network), decodes
// every object strictly into the Kubernetes API types (k8s.io/api, pinned
// in go.mod), which also parse what the schemas leave as strings (a
// resource quantity), and checks what the server needs of them: the
// probes on /healthz and /readyz, the port of the config, the token from
// the Secret, a non-root read-only container with resource requests sized
// from docs/benchmarks.md, and a grace period longer than the drain. The
// ConfigMap's ccski.yaml is loaded as ccski loads it.
package deploycheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/providers/all"
)

// deployDir is deploy/kubernetes, seen from this package.
const deployDir = "../../deploy/kubernetes"

// rendered is what kustomize built of one kustomization, decoded.
type rendered struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret
	namespaces  []string
}

// object is one object kustomize rendered: its YAML and what names it.
type object struct {
	apiVersion, kind, name string
	yaml                   []byte
}

// build renders the kustomization at dir (relative to deployDir) with
// kustomize's library, from a copy of deploy/kubernetes with a token file
// beside the example overlay (an operator writes one; the repository holds
// none).
func build(t *testing.T, dir string) []object {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(deployDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "overlays", "example", "token"), []byte("test-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out []object
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, object{apiVersion: r.GetApiVersion(), kind: r.GetKind(), name: r.GetName(), yaml: y})
	}
	return out
}

// strictDecoder decodes YAML into the k8s.io/api types, strictly: an
// unknown field, a wrong type, a duplicate field or a value the type
// cannot parse (a quantity such as "128 MB") is an error.
var strictDecoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := appsv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true, Strict: true})
}()

// decodeStrict reports whether y decodes strictly into a k8s.io/api type.
func decodeStrict(y []byte) error {
	_, _, err := strictDecoder.Decode(y, nil, nil)
	return err
}

// render builds the kustomization at dir and decodes each object strictly
// into the k8s.io/api types, which the checks of TestManifests read.
// Beyond kubeconform's schemas (TestKubeconform) the typed decode parses
// the values the schemas leave as strings: a resource quantity.
func render(t *testing.T, dir string) rendered {
	t.Helper()
	out := rendered{configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	for _, o := range build(t, dir) {
		obj, gvk, err := strictDecoder.Decode(o.yaml, nil, nil)
		if err != nil {
			t.Errorf("%s: %s/%s is not a valid Kubernetes object: %v\n%s", dir, o.kind, o.name, err, o.yaml)
			continue
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			out.deployments = append(out.deployments, o)
		case *corev1.Service:
			out.services = append(out.services, o)
		case *corev1.ConfigMap:
			out.configMaps[o.Name] = o
		case *corev1.Secret:
			out.secrets[o.Name] = o
		case *corev1.Namespace:
			out.namespaces = append(out.namespaces, o.Name)
		default:
			t.Errorf("%s: unexpected object %v", dir, gvk)
		}
	}
	return out
}

func TestManifests(t *testing.T) {
	for _, c := range []struct {
		dir      string
		replicas int32
		secret   bool // the kustomization holds the token Secret
	}{
		{"base", 1, false},
		{"overlays/example", 3, true},
	} {
		t.Run(c.dir, func(t *testing.T) {
			r := render(t, c.dir)
			if len(r.deployments) != 1 || len(r.services) != 1 {
				t.Fatalf("%d Deployments and %d Services, want one of each", len(r.deployments), len(r.services))
			}
			d, svc := r.deployments[0], r.services[0]
			if got := *d.Spec.Replicas; got != c.replicas {
				t.Errorf("replicas %d, want %d", got, c.replicas)
			}
			spec := d.Spec.Template.Spec
			if len(spec.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(spec.Containers))
			}
			ctr := spec.Containers[0]

			// The config the ConfigMap carries, loaded as ccski loads
			// its managed config.
			cfg := loadConfig(t, r, spec)
			port := containerPort(t, ctr, "http")
			if int(port) != cfg.MCP.Port || cfg.MCP.Transport != "http" || cfg.MCP.Host != "0.0.0.0" {
				t.Errorf("the container listens on %d; the config: transport %s on %s:%d", port, cfg.MCP.Transport, cfg.MCP.Host, cfg.MCP.Port)
			}

			// Probes: liveness on /healthz, readiness on /readyz, on the
			// port ccski listens on.
			for name, p := range map[string]struct {
				probe *corev1.Probe
				path  string
			}{"liveness": {ctr.LivenessProbe, "/healthz"}, "readiness": {ctr.ReadinessProbe, "/readyz"}} {
				if p.probe == nil || p.probe.HTTPGet == nil {
					t.Errorf("no %s probe over HTTP", name)
					continue
				}
				g := p.probe.HTTPGet
				if g.Path != p.path || (g.Port.StrVal != "http" && g.Port.IntVal != port) {
					t.Errorf("%s probe: %s on %s, want %s on the http port", name, g.Path, g.Port.String(), p.path)
				}
			}

			// The drain fits in the grace period.
			grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
			if need := cfg.MCP.DrainDelay + cfg.MCP.DrainTimeout + 5*time.Second; need >= grace || cfg.MCP.DrainDelay == 0 {
				t.Errorf("drain_delay %v + drain_timeout %v + 5s must be under the grace period %v, with a delay",
					cfg.MCP.DrainDelay, cfg.MCP.DrainTimeout, grace)
			}

			// Non-root, read-only, no privilege.
			psc, sc := spec.SecurityContext, ctr.SecurityContext
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				t.Error("the pod does not run as a non-root user")
			}
			if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Error("the container's root filesystem is writable, or it may escalate privileges")
			}
			// Resource requests, and a memory limit above them.
			req, lim := ctr.Resources.Requests, ctr.Resources.Limits
			if req.Cpu().IsZero() || req.Memory().IsZero() || lim.Memory().Cmp(*req.Memory()) <= 0 {
				t.Errorf("resources: requests %v, limits %v", req, lim)
			}

			// The token: CCSKI_AUTH_TOKEN from the Secret ccski-token.
			var ref *corev1.SecretKeySelector
			for _, e := range ctr.Env {
				if e.Name == "CCSKI_AUTH_TOKEN" && e.ValueFrom != nil {
					ref = e.ValueFrom.SecretKeyRef
				}
			}
			if ref == nil || ref.Optional != nil && *ref.Optional {
				t.Fatal("CCSKI_AUTH_TOKEN does not come from a required Secret key")
			}
			sec, ok := r.secrets[ref.Name]
			if ok != c.secret {
				t.Errorf("Secret %s rendered: %v, want %v", ref.Name, ok, c.secret)
			}
			if ok && len(sec.Data[ref.Key]) == 0 {
				t.Errorf("Secret %s has no %s", ref.Name, ref.Key)
			}

			// Every mount has its volume; the root filesystem being
			// read-only, HOME and /tmp are mounted.
			vols := map[string]bool{}
			for _, v := range spec.Volumes {
				vols[v.Name] = true
			}
			mounts := map[string]bool{}
			for _, m := range ctr.VolumeMounts {
				if !vols[m.Name] {
					t.Errorf("mount %s has no volume", m.Name)
				}
				mounts[m.MountPath] = true
			}
			home := ""
			for _, e := range ctr.Env {
				if e.Name == "HOME" {
					home = e.Value
				}
			}
			if home == "" || !mounts[home] || !mounts["/tmp"] || !mounts["/skills"] {
				t.Errorf("HOME %q, /tmp and /skills must be mounted: %v", home, mounts)
			}

			// The Service selects the pods and reaches the http port.
			for k, v := range svc.Spec.Selector {
				if d.Spec.Template.Labels[k] != v {
					t.Errorf("the Service selects %s=%s, which the pods lack", k, v)
				}
			}
			if len(svc.Spec.Selector) == 0 || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.StrVal != "http" {
				t.Errorf("Service: selector %v, ports %+v", svc.Spec.Selector, svc.Spec.Ports)
			}
			if c.secret && (len(r.namespaces) != 1 || d.Namespace != r.namespaces[0]) {
				t.Errorf("the overlay's objects are not in its namespace: %v, Deployment in %q", r.namespaces, d.Namespace)
			}
		})
	}
}

// loadConfig finds the ConfigMap mounted at /etc/ccski and loads its
// config.yaml as ccski's managed config.
func loadConfig(t *testing.T, r rendered, spec corev1.PodSpec) configs.Config {
	t.Helper()
	name := ""
	for _, m := range spec.Containers[0].VolumeMounts {
		if m.MountPath != "/etc/ccski" {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				name = v.ConfigMap.Name
			}
		}
	}
	cm, ok := r.configMaps[name]
	if !ok {
		t.Fatalf("no ConfigMap mounted at /etc/ccski (volume names %q)", name)
	}
	text, ok := cm.Data["config.yaml"]
	if !ok {
		t.Fatalf("ConfigMap %s has no config.yaml", name)
	}
	var probe map[string]any
	if err := yaml.Unmarshal([]byte(text), &probe); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := configs.Load(configs.Options{ManagedFile: file, Workspace: dir, Home: dir,
		Environ: func() []string { return nil }, Registry: all.Registry()})
	if err != nil {
		t.Fatalf("ccski does not load the ConfigMap's config.yaml: %v", err)
	}
	if len(l.Ignored) > 0 {
		t.Errorf("ccski ignores values of the ConfigMap's config.yaml: %+v", l.Ignored)
	}
	return l.Config
}

// containerPort returns the container's port of that name.
func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("the container has no port %q", name)
	return 0
}

// TestExampleSkill: the skill the example overlay serves is one ccski
// reads without a problem, named like its folder.
func TestExampleSkill(t *testing.T) {
	var files []string
	err := fs.WalkDir(os.DirFS(deployDir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "SKILL.md" {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) != 1 {
		t.Fatalf("SKILL.md files under %s: %v %v", deployDir, files, err)
	}
	f, err := os.Open(filepath.Join(deployDir, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := skillmd.ReadHead(f)
	if err != nil {
		t.Fatal(err)
	}
	front, probs := skillmd.Decode(h)
	if len(probs) > 0 || front.Name != filepath.Base(filepath.Dir(files[0])) || front.Description == "" {
		t.Errorf("%s: %+v, problems %+v", files[0], front, probs)
	}
}

// TestImage: the goreleaser config builds the image from deploy/Dockerfile
// with the static linux binaries, and the Dockerfile copies that binary
// and runs it as a non-root user. (.ci/run runs goreleaser check on the
// whole config.)
func TestImage(t *testing.T) {
	b, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			ID   string   `yaml:"id"`
			Env  []string `yaml:"env"`
			GOOS []string `yaml:"goos"`
		} `yaml:"builds"`
		Dockers []struct {
			IDs        []string `yaml:"ids"`
			Dockerfile string   `yaml:"dockerfile"`
			Images     []string `yaml:"images"`
			Platforms  []string `yaml:"platforms"`
		} `yaml:"dockers_v2"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Dockers) != 1 {
		t.Fatalf("%d dockers_v2 images, want 1", len(cfg.Dockers))
	}
	img := cfg.Dockers[0]
	for _, id := range img.IDs {
		found := false
		for _, bld := range cfg.Builds {
			if bld.ID == id {
				found = slices.Contains(bld.Env, "CGO_ENABLED=0") && slices.Contains(bld.GOOS, "linux")
			}
		}
		if !found {
			t.Errorf("the image's build %q is not a static linux build", id)
		}
	}
	if len(img.Images) == 0 || len(img.Platforms) == 0 {
		t.Errorf("dockers_v2: images %v, platforms %v", img.Images, img.Platforms)
	}
	df, err := os.ReadFile(filepath.Join("../..", img.Dockerfile))
	if err != nil {
		t.Fatalf("the image's Dockerfile: %v", err)
	}
	var user, copyBin bool
	for line := range strings.Lines(string(df)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "USER":
			uid, _, _ := strings.Cut(f[1], ":")
			user = uid != "0" && uid != "root"
		case len(f) == 3 && f[0] == "COPY" && f[1] == "$TARGETPLATFORM/ccski":
			copyBin = true
		}
	}
	if !user || !copyBin {
		t.Errorf("%s: USER non-root %v, COPY $TARGETPLATFORM/ccski %v", img.Dockerfile, user, copyBin)
	}
}
