package image_test

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/tridenttaxis/trident-mcp/deploy"
	"github.com/tridenttaxis/trident-mcp/deploy/image"
	"github.com/tridenttaxis/trident-mcp/deploy/internal/serverproc"
	"github.com/tridenttaxis/trident-mcp/deploy/mcpregistry"
)

func TestMain(m *testing.M) {
	code := m.Run()
	serverproc.Cleanup()
	os.Exit(code)
}

// maxCompressed bounds what a pull transfers. The image is the stripped
// binary (about 14 MB gzipped) and a CA bundle; past this something
// unplanned got in.
const maxCompressed = 25 << 20

// built writes the image as cmd/build-image does and reads it back from
// the OCI layout, as a registry client would.
func built(t *testing.T) (v1.Image, string) {
	t.Helper()
	entry, err := mcpregistry.Parse(deploy.ServerJSON)
	if err != nil {
		t.Fatal(err)
	}
	img, err := image.Build(image.Options{Binary: serverproc.Binary(t), Name: entry.Name, Version: entry.Version, Source: entry.Repository.URL})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := image.WriteLayout(dir, img, entry.Version); err != nil {
		t.Fatal(err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != entry.Version {
		t.Fatalf("layout index: want one image named %s, got %+v", entry.Version, m.Manifests)
	}
	read, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return read, entry.Name
}

func TestImageConfig(t *testing.T) {
	img, name := built(t)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	uid, _, _ := strings.Cut(c.User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("User %q: want a numeric non-root UID (runAsNonRoot can check only a number)", c.User)
	}
	if got := c.Labels[mcpregistry.ImageLabel]; got != name {
		t.Errorf("label %s = %q, want server.json's name %q", mcpregistry.ImageLabel, got, name)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Annotations[mcpregistry.ImageLabel]; got != name {
		t.Errorf("manifest annotation %s = %q, want %q", mcpregistry.ImageLabel, got, name)
	}
	if len(c.Entrypoint) != 1 || c.Entrypoint[0] != image.Entrypoint {
		t.Errorf("Entrypoint %q, want [%s]", c.Entrypoint, image.Entrypoint)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("ExposedPorts %v, want only 8080/tcp (the server's default ADDR)", c.ExposedPorts)
	}
	if c.WorkingDir != image.WorkDir {
		t.Errorf("WorkingDir %q, want %s", c.WorkingDir, image.WorkDir)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("platform %s/%s, want linux/amd64", cf.OS, cf.Architecture)
	}
	size, err := image.CompressedSize(img)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image: %d layer(s), %.1f MB compressed", len(m.Layers), float64(size)/1e6)
	if size > maxCompressed {
		t.Errorf("image is %d bytes compressed, over the %d planned", size, maxCompressed)
	}
}

// TestImageFiles reads the layer: a static binary (no ELF interpreter: the
// empty base has no libc), the CA bundle, the user, and a working
// directory the user owns.
func TestImageFiles(t *testing.T) {
	img, _ := built(t)
	files := layerFiles(t, img)
	bin, ok := files[strings.TrimPrefix(image.Entrypoint, "/")]
	if !ok || bin.hdr.Mode&0o111 == 0 {
		t.Fatalf("%s missing or not executable", image.Entrypoint)
	}
	f, err := elf.NewFile(bytes.NewReader(bin.data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s is dynamically linked: the empty base has no loader", image.Entrypoint)
		}
	}
	if c := files[strings.TrimPrefix(image.CABundle, "/")]; !strings.Contains(string(c.data), "BEGIN CERTIFICATE") {
		t.Errorf("%s holds no certificates", image.CABundle)
	}
	if p := files["etc/passwd"]; !strings.Contains(string(p.data), ":"+strconv.Itoa(image.UID)+":") {
		t.Errorf("/etc/passwd has no entry for UID %d:\n%s", image.UID, p.data)
	}
	wd, ok := files[strings.TrimPrefix(image.WorkDir, "/")+"/"]
	if !ok || wd.hdr.Typeflag != tar.TypeDir || wd.hdr.Uid != image.UID || wd.hdr.Mode&0o200 == 0 {
		t.Errorf("%s: want a directory UID %d can write, got %+v", image.WorkDir, image.UID, wd.hdr)
	}
	if tmp := files["tmp/"]; tmp.hdr == nil || tmp.hdr.Mode&0o1777 != 0o1777 {
		t.Errorf("/tmp: want mode 1777")
	}
}

// TestImageIsReproducible: the same binary gives the same digest, so a
// rebuild of a release can be checked against the pushed image.
func TestImageIsReproducible(t *testing.T) {
	a, _ := built(t)
	b, _ := built(t)
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds: %s and %s", da, db)
	}
}

// TestImageRuns unpacks the layer and starts its entrypoint the way its
// config says (environment, working directory): the server becomes ready,
// serves an MCP call, creates Relay's SQLite store in the working directory
// and drains on the stop signal.
func TestImageRuns(t *testing.T) {
	img, _ := built(t)
	root := t.TempDir()
	for name, f := range layerFiles(t, img) {
		p := filepath.Join(root, name)
		if f.hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, os.FileMode(f.hdr.Mode)); err != nil {
			t.Fatal(err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	// SSL_CERT_FILE points into the image; here it is under root.
	var env []string
	for _, kv := range cf.Config.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "SSL_CERT_FILE" {
			v = filepath.Join(root, v)
		}
		env = append(env, k+"="+v)
	}
	env = append(env, "SHUTDOWN_DELAY=0s")
	p := serverproc.Start(t, filepath.Join(root, cf.Config.Entrypoint[0]), filepath.Join(root, cf.Config.WorkingDir), env)
	req, _ := http.NewRequest(http.MethodPost, p.Base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "estimate_fare") {
		t.Errorf("tools/list: %d %s", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(root, cf.Config.WorkingDir, "relay.db")); err != nil {
		t.Errorf("Relay's store is not in the working directory: %v", err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(40 * time.Second); err != nil {
		t.Errorf("after SIGTERM, want a clean exit: %v\n%s", err, p.Logs())
	}
}

type file struct {
	hdr  *tar.Header
	data []byte
}

func layerFiles(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]file{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = file{hdr: h, data: data}
		}
		rc.Close()
	}
	return files
}
