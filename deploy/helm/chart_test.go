// Package helm_test lints and renders the trident-mcp chart with Helm's own
// Go packages (what `helm lint --strict` and `helm template` run), decodes
// every rendered manifest strictly into the Kubernetes API types (client-go's
// scheme: an unknown or repeated field fails), and starts the server binary
// with the environment a rendered pod would get.
package helm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/tridenttaxis/trident-mcp/deploy"
	"github.com/tridenttaxis/trident-mcp/deploy/internal/serverproc"
	"github.com/tridenttaxis/trident-mcp/deploy/mcpregistry"
)

const (
	chartDir  = "trident-mcp"
	release   = "trident-mcp"
	namespace = "taxis"
)

// minKube is the oldest Kubernetes the chart claims (Chart.yaml kubeVersion).
var minKube = &chartutil.KubeVersion{Version: "v1.25.0", Major: "1", Minor: "25"}

func TestMain(m *testing.M) {
	code := m.Run()
	serverproc.Cleanup()
	os.Exit(code)
}

// values reads a YAML values file or literal.
func values(t *testing.T, doc string) map[string]any {
	t.Helper()
	v, err := chartutil.ReadValues([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return v.AsMap()
}

func exampleValues(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir, "examples", "replicated.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return values(t, string(b))
}

func TestLint(t *testing.T) {
	for name, vals := range map[string]map[string]any{"defaults": nil, "examples/replicated.yaml": exampleValues(t)} {
		t.Run(name, func(t *testing.T) {
			l := action.NewLint()
			l.Strict, l.Namespace, l.KubeVersion = true, namespace, minKube
			res := l.Run([]string{chartDir}, vals)
			for _, m := range res.Messages {
				t.Logf("lint: %s", m)
			}
			if len(res.Errors) > 0 || res.TotalChartsLinted != 1 {
				t.Errorf("helm lint --strict: %d chart(s) linted, errors %v", res.TotalChartsLinted, res.Errors)
			}
		})
	}
}

// rendered is one release's manifests, decoded.
type rendered struct {
	objects []runtime.Object
	notes   string
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render is `helm template trident-mcp deploy/helm/trident-mcp -n taxis` with
// vals over the chart's defaults.
func render(t *testing.T, vals map[string]any) (*rendered, error) {
	t.Helper()
	inst := action.NewInstall(&action.Configuration{Log: t.Logf})
	inst.ClientOnly, inst.DryRun, inst.Replace = true, true, true
	inst.ReleaseName, inst.Namespace, inst.KubeVersion = release, namespace, minKube
	rel, err := inst.Run(loadChart(t), vals)
	if err != nil {
		return nil, err
	}
	dec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
	docs := releaseutil.SplitManifests(rel.Manifest)
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	r := &rendered{notes: rel.Info.Notes}
	for _, k := range keys {
		obj, _, err := dec.Decode([]byte(docs[k]), nil, nil)
		if err != nil {
			t.Fatalf("strict decode into the Kubernetes API types: %v\n%s", err, docs[k])
		}
		r.objects = append(r.objects, obj)
	}
	return r, nil
}

func mustRender(t *testing.T, vals map[string]any) *rendered {
	t.Helper()
	r, err := render(t, vals)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rendered) kinds() []string {
	var ks []string
	for _, o := range r.objects {
		gvk := o.GetObjectKind().GroupVersionKind()
		ks = append(ks, gvk.Kind)
	}
	sort.Strings(ks)
	return ks
}

func only[T runtime.Object](t *testing.T, r *rendered) T {
	t.Helper()
	var found []T
	for _, o := range r.objects {
		if v, ok := o.(T); ok {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("want one %T, rendered %d (%v)", zero, len(found), r.kinds())
	}
	return found[0]
}

func (r *rendered) secrets() map[string]*corev1.Secret {
	m := map[string]*corev1.Secret{}
	for _, o := range r.objects {
		if s, ok := o.(*corev1.Secret); ok {
			m[s.Name] = s
		}
	}
	return m
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		m[e.Name] = e
	}
	return m
}

// checkPod holds what every rendering must: probes on the server's health
// endpoints, a grace period that covers the drain, a non-root read-only
// container whose writable paths are volumes, the signing keys from a
// Secret, and the Service's and selectors' labels on the pods.
func checkPod(t *testing.T, r *rendered) *appsv1.Deployment {
	t.Helper()
	d := only[*appsv1.Deployment](t, r)
	pod := d.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if sel := labels.SelectorFromSet(d.Spec.Selector.MatchLabels); !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("Deployment selector %v does not match its pods %v", d.Spec.Selector.MatchLabels, pod.Labels)
	}
	svc := only[*corev1.Service](t, r)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("Service selector %v does not match the pods %v", svc.Spec.Selector, pod.Labels)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 8080 || svc.Spec.Ports[0].TargetPort.String() != c.Ports[0].Name {
		t.Errorf("container ports %+v, Service target %s: want the server's 8080, by name", c.Ports, svc.Spec.Ports[0].TargetPort.String())
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
		want := "/healthz"
		if name == "readiness" {
			want = "/readyz"
		}
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want || p.HTTPGet.Port.String() != c.Ports[0].Name {
			t.Errorf("%s probe %+v: want GET %s on port %s", name, p, want, c.Ports[0].Name)
		}
	}
	env := envOf(c)
	delay, err := time.ParseDuration(env["SHUTDOWN_DELAY"].Value)
	if err != nil {
		t.Fatalf("SHUTDOWN_DELAY: %v", err)
	}
	timeout, err := time.ParseDuration(env["SHUTDOWN_TIMEOUT"].Value)
	if err != nil {
		t.Fatalf("SHUTDOWN_TIMEOUT: %v", err)
	}
	grace := time.Duration(-1)
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	if grace <= delay+timeout {
		t.Errorf("terminationGracePeriodSeconds %v does not exceed SHUTDOWN_DELAY %v + SHUTDOWN_TIMEOUT %v", grace, delay, timeout)
	}
	if ref := env["RELAY_SIGNING_KEYS"].ValueFrom; ref == nil || ref.SecretKeyRef == nil {
		t.Errorf("RELAY_SIGNING_KEYS is not read from a Secret: %+v", env["RELAY_SIGNING_KEYS"])
	}
	for _, name := range []string{"RELAY_DATABASE_URL", "REDIS_URL", "RELAY_SIGNING_KEYS"} {
		if e, ok := env[name]; ok && e.Value != "" {
			t.Errorf("%s is a plain value in the pod spec", name)
		}
	}
	psc, sc := pod.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot with a non-zero runAsUser", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container securityContext %+v: want a read-only root and no privilege escalation", sc)
	}
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.LabelSelector == nil || !labels.SelectorFromSet(tsc.LabelSelector.MatchLabels).Matches(labels.Set(pod.Labels)) {
			t.Errorf("topologySpreadConstraint on %s selects %v, not these pods %v", tsc.TopologyKey, tsc.LabelSelector, pod.Labels)
		}
	}
	volumes := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = true
	}
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounted[m.MountPath] = !m.ReadOnly
		if !volumes[m.Name] {
			t.Errorf("mount %s names volume %q, which the pod does not have", m.MountPath, m.Name)
		}
	}
	if !mounted["/tmp"] || (c.WorkingDir != "" && !mounted[c.WorkingDir]) {
		t.Errorf("writable mounts %v: want /tmp and the working directory %q (the root file system is read-only)", mounted, c.WorkingDir)
	}
	secrets := r.secrets()
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			ref := e.ValueFrom.SecretKeyRef
			if s, ok := secrets[ref.Name]; ok {
				if _, ok := s.Data[ref.Key]; !ok {
					t.Errorf("%s: Secret %s has no key %s", e.Name, ref.Name, ref.Key)
				}
			}
		}
	}
	return d
}

func TestDefaults(t *testing.T) {
	r := mustRender(t, nil)
	t.Logf("rendered: %v", r.kinds())
	if want := []string{"Deployment", "Secret", "Service", "ServiceAccount"}; !slices.Equal(r.kinds(), want) {
		t.Errorf("rendered %v, want %v (one replica: no PodDisruptionBudget, no autoscaler)", r.kinds(), want)
	}
	d := checkPod(t, r)
	if *d.Spec.Replicas != 1 {
		t.Errorf("replicas %d, want 1", *d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	env := envOf(c)
	if _, ok := env["RELAY_DATABASE_URL"]; ok || c.WorkingDir != "/data" {
		t.Errorf("without PostgreSQL, want Relay's default sqlite:relay.db in the working directory /data; got RELAY_DATABASE_URL %+v, workingDir %q", env["RELAY_DATABASE_URL"], c.WorkingDir)
	}
	ref := env["RELAY_SIGNING_KEYS"].ValueFrom.SecretKeyRef
	s, ok := r.secrets()[ref.Name]
	if !ok {
		t.Fatalf("RELAY_SIGNING_KEYS names Secret %s, which the chart did not make", ref.Name)
	}
	if kid, key, ok := strings.Cut(string(s.Data[ref.Key]), ":"); !ok || kid == "" || len(key) < 43 {
		t.Errorf("generated RELAY_SIGNING_KEYS %q: want kid:base64 of 32 bytes", s.Data[ref.Key])
	}
	entry, err := mcpregistry.Parse(deploy.ServerJSON)
	if err != nil {
		t.Fatal(err)
	}
	if c.Image != entry.OCIImage() {
		t.Errorf("default image %q, want server.json's OCI package %q", c.Image, entry.OCIImage())
	}
	if v := loadChart(t).Metadata.AppVersion; v != entry.Version {
		t.Errorf("Chart.yaml appVersion %q, server.json version %q", v, entry.Version)
	}
	for _, warn := range []string{"publicBaseURL is not set", "an emptyDir: lost with the pod", "made by this chart"} {
		if !strings.Contains(r.notes, warn) {
			t.Errorf("NOTES.txt does not warn %q:\n%s", warn, r.notes)
		}
	}
}

func TestReplicatedExample(t *testing.T) {
	r := mustRender(t, exampleValues(t))
	t.Logf("rendered: %v", r.kinds())
	if want := []string{"Deployment", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Service", "ServiceAccount"}; !slices.Equal(r.kinds(), want) {
		t.Errorf("rendered %v, want %v (the signing keys are the operator's Secret)", r.kinds(), want)
	}
	if strings.Contains(r.notes, "not set") || strings.Contains(r.notes, "SQLite") || strings.Contains(r.notes, "own rate") {
		t.Errorf("NOTES.txt warns of what the example sets:\n%s", r.notes)
	}
	d := checkPod(t, r)
	if d.Spec.Replicas != nil {
		t.Errorf("replicas %d set beside an autoscaler: each upgrade would reset its count", *d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	env := envOf(c)
	for name, key := range map[string]string{"RELAY_SIGNING_KEYS": "signing-keys", "RELAY_DATABASE_URL": "database-url", "REDIS_URL": "redis-url"} {
		e := env[name]
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "trident-mcp-relay" || e.ValueFrom.SecretKeyRef.Key != key {
			t.Errorf("%s: want Secret trident-mcp-relay key %s, got %+v", name, key, e)
		}
	}
	if c.WorkingDir != "" {
		t.Errorf("workingDir %q with PostgreSQL: nothing to keep on disk", c.WorkingDir)
	}
	hpa := only[*autoscalingv2.HorizontalPodAutoscaler](t, r)
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
		t.Errorf("HPA scales %+v, want Deployment %s", ref, d.Name)
	}
	if *hpa.Spec.MinReplicas != 3 || hpa.Spec.MaxReplicas != 10 {
		t.Errorf("HPA %d..%d, want 3..10", *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	pdb := only[*policyv1.PodDisruptionBudget](t, r)
	sel, err := metaSelector(pdb)
	if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("PodDisruptionBudget selector %v does not match the pods %v", pdb.Spec.Selector, d.Spec.Template.Labels)
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget maxUnavailable %v, want 1", pdb.Spec.MaxUnavailable)
	}
}

// TestSQLiteOnAClaim: a claim of the operator's keeps relay.db across pods,
// and the Deployment replaces its pod rather than start a second beside it
// on a ReadWriteOnce volume.
func TestSQLiteOnAClaim(t *testing.T) {
	d := checkPod(t, mustRender(t, values(t, "sqlite: {existingClaim: relay-db}")))
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("strategy %q, want Recreate", d.Spec.Strategy.Type)
	}
	var claim string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim != "relay-db" {
		t.Errorf("no volume from claim relay-db: %+v", d.Spec.Template.Spec.Volumes)
	}
}

func metaSelector(pdb *policyv1.PodDisruptionBudget) (labels.Selector, error) {
	if pdb.Spec.Selector == nil {
		return nil, fmt.Errorf("no selector")
	}
	return labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels), nil
}

// TestGracePeriodFollowsShutdown: the kubelet waits for the drain whatever
// the two durations are.
func TestGracePeriodFollowsShutdown(t *testing.T) {
	for _, c := range []struct{ delay, timeout, margin, want int64 }{
		{5, 30, 5, 40}, {0, 10, 5, 15}, {20, 120, 1, 141}, {15, 60, 10, 85},
	} {
		t.Run(fmt.Sprintf("%d+%d+%d", c.delay, c.timeout, c.margin), func(t *testing.T) {
			r := mustRender(t, values(t, fmt.Sprintf("shutdown: {delaySeconds: %d, timeoutSeconds: %d, marginSeconds: %d}", c.delay, c.timeout, c.margin)))
			d := checkPod(t, r)
			if g := *d.Spec.Template.Spec.TerminationGracePeriodSeconds; g != c.want {
				t.Errorf("terminationGracePeriodSeconds %d, want %d", g, c.want)
			}
			env := envOf(d.Spec.Template.Spec.Containers[0])
			if got, want := env["SHUTDOWN_DELAY"].Value, fmt.Sprintf("%ds", c.delay); got != want {
				t.Errorf("SHUTDOWN_DELAY %q, want %q", got, want)
			}
		})
	}
}

// TestRefuses: settings that cannot work fail the render, naming the fix.
func TestRefuses(t *testing.T) {
	for _, c := range []struct{ name, values, want string }{
		{"replicas on SQLite", "replicaCount: 2", "needs PostgreSQL"},
		{"autoscaling on SQLite", "autoscaling: {enabled: true}", "needs PostgreSQL"},
		{"OAuth without issuer", "oauth: {required: true}", "oauth.issuer"},
		{"signing keys in plain env", "env: {RELAY_SIGNING_KEYS: 'k1:abc'}", "secret in the pod spec"},
		{"database URL in plain env", "env: {RELAY_DATABASE_URL: 'postgres://x'}", "secret in the pod spec"},
		{"a setting the chart owns", "env: {SHUTDOWN_DELAY: 10s}", "set by the chart"},
		{"autoscaling bounds reversed", "postgresql: {existingSecret: db}\nautoscaling: {enabled: true, minReplicas: 5, maxReplicas: 2}", "minReplicas"},
		{"unknown log level", "logLevel: verbose", "logLevel"},
		{"misspelt key", "replicas: 3", "replicas"},
		{"no margin past the drain", "shutdown: {delaySeconds: 5, timeoutSeconds: 30, marginSeconds: 0}", "marginSeconds"},
		{"fractional seconds", "shutdown: {delaySeconds: 2.5, timeoutSeconds: 30, marginSeconds: 5}", "delaySeconds"},
		{"image digest not sha256", "image: {repository: r, digest: latest}", "digest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := render(t, values(t, c.values))
			if err == nil {
				t.Fatalf("rendered with %s", c.values)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error does not mention %q: %v", c.want, err)
			}
		})
	}
}

// podEnv resolves a container's environment as the kubelet would, values
// and Secret references, with secrets the chart rendered and those given.
func podEnv(t *testing.T, c corev1.Container, rendered map[string]*corev1.Secret, given map[string]map[string]string) []string {
	t.Helper()
	var env []string
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			ref := e.ValueFrom.SecretKeyRef
			if ref == nil {
				t.Fatalf("%s: only Secret references are resolved here", e.Name)
			}
			if s, ok := rendered[ref.Name]; ok {
				v = string(s.Data[ref.Key])
			} else if s, ok := given[ref.Name]; ok {
				v = s[ref.Key]
			} else {
				t.Fatalf("%s: Secret %s is neither rendered nor given", e.Name, ref.Name)
			}
		}
		env = append(env, e.Name+"="+v)
	}
	return env
}

// drain sends SIGTERM and expects a clean exit well inside the pod's grace
// period.
func drain(t *testing.T, p *serverproc.Process, d *appsv1.Deployment) {
	t.Helper()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	grace := time.Duration(*d.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	if err := p.Wait(grace); err != nil {
		t.Errorf("within terminationGracePeriodSeconds (%v): %v\n%s", grace, err, p.Logs())
	}
}

// TestRenderedPodRuns starts the server with the environment of the
// default rendering, in a directory standing for the pod's /data volume:
// it is ready, keeps Relay's store there, and drains in time.
func TestRenderedPodRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	r := mustRender(t, values(t, "shutdown: {delaySeconds: 1, timeoutSeconds: 10, marginSeconds: 5}"))
	d := checkPod(t, r)
	c := d.Spec.Template.Spec.Containers[0]
	data := t.TempDir()
	p := serverproc.Start(t, serverproc.Binary(t), data, podEnv(t, c, r.secrets(), nil))
	if _, err := os.Stat(filepath.Join(data, "relay.db")); err != nil {
		t.Errorf("relay.db is not on the /data volume: %v", err)
	}
	if strings.Contains(p.Logs(), "RELAY_SIGNING_KEYS is not set") {
		t.Errorf("the server made up a signing key though the chart gave one:\n%s", p.Logs())
	}
	drain(t, p, d)
}

// TestReplicatedPodRuns starts two servers with the example's environment,
// its Secret holding this machine's PostgreSQL and Redis (OAuth off: no
// issuer answers here): both are ready on one store.
func TestReplicatedPodRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	vals := exampleValues(t)
	vals["oauth"] = map[string]any{"required": false, "issuer": ""}
	vals["shutdown"] = map[string]any{"delaySeconds": 1, "timeoutSeconds": 10, "marginSeconds": 5}
	prefix := fmt.Sprintf("deploy-test-%d:", time.Now().UnixNano())
	vals["redis"].(map[string]any)["keyPrefix"] = prefix
	r := mustRender(t, vals)
	d := checkPod(t, r)
	given := map[string]map[string]string{"trident-mcp-relay": {
		"signing-keys": "k1:" + strings.Repeat("A", 43),
		"database-url": postgresDB(t),
		"redis-url":    "redis://127.0.0.1:6379/0",
	}}
	env := podEnv(t, d.Spec.Template.Spec.Containers[0], r.secrets(), given)
	bin := serverproc.Binary(t)
	for range 2 {
		dir := t.TempDir()
		p := serverproc.Start(t, bin, dir, env)
		if _, err := os.Stat(filepath.Join(dir, "relay.db")); err == nil {
			t.Errorf("a replica made its own SQLite store: RELAY_DATABASE_URL did not reach it")
		}
		defer drain(t, p, d)
	}
}

// TestTracingValues: tracing is off by default (no OTEL_* variable, so the
// server exports nothing); with tracing.endpoint the pod gets the OTLP
// endpoint, protocol and sampler, and the exporter's headers only from the
// Secret named.
func TestTracingValues(t *testing.T) {
	for name := range envOf(checkPod(t, mustRender(t, nil)).Spec.Template.Spec.Containers[0]) {
		if strings.HasPrefix(name, "OTEL_") {
			t.Errorf("default values set %s: tracing must be off unless asked", name)
		}
	}
	r := mustRender(t, map[string]any{"tracing": map[string]any{"endpoint": "http://otel-collector.observability:4317", "protocol": "grpc",
		"samplerArg": 0.25, "headersSecret": "otlp-auth"}})
	env := envOf(checkPod(t, r).Spec.Template.Spec.Containers[0])
	for k, want := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector.observability:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"} {
		if env[k].Value != want {
			t.Errorf("%s = %q, want %q", k, env[k].Value, want)
		}
	}
	if ref := env["OTEL_EXPORTER_OTLP_HEADERS"].ValueFrom; ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "otlp-auth" || ref.SecretKeyRef.Key != "headers" {
		t.Errorf("OTEL_EXPORTER_OTLP_HEADERS %+v, want the otlp-auth Secret's headers key", env["OTEL_EXPORTER_OTLP_HEADERS"])
	}
	if _, err := render(t, map[string]any{"tracing": map[string]any{"endpoint": "collector:4317"}}); err == nil {
		t.Error("an endpoint without a scheme rendered; the schema should refuse it")
	}
}
