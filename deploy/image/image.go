// Package image assembles the server's container image without a Docker
// daemon: one layer on an empty base (no shell, no package manager) holding
// the static binary, the machine's CA bundle for outbound TLS (Nominatim,
// OSRM, Uber, Lyft, the OAuth issuer), a passwd entry for the non-root user
// and a writable working directory for Relay's SQLite store. It writes an
// OCI image layout that `crane push` (go-containerregistry) or `skopeo copy`
// sends to a registry.
//
//	img, err := image.Build(image.Options{Binary: "bin/trident-mcp", Name: "online.tridenttaxis/trident-mcp", Version: "0.1.0"})
//	err = image.WriteLayout("oci", img, "0.1.0")
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/tridenttaxis/trident-mcp/deploy/mcpregistry"
)

// The image's fixed layout; the Helm chart mounts its volumes at WorkDir and
// /tmp and runs as UID.
const (
	Entrypoint = "/usr/local/bin/trident-mcp"
	// WorkDir is where Relay's default store, sqlite:relay.db, is created.
	WorkDir = "/data"
	// UID and GID are the non-root user (65532, "nonroot", as distroless
	// images have it).
	UID  = 65532
	GID  = 65532
	Port = "8080/tcp"
	// CABundle is where Go's crypto/x509 looks first on Linux.
	CABundle = "/etc/ssl/certs/ca-certificates.crt"
)

// Options say what goes into the image. Binary and Name are required.
type Options struct {
	// Binary is the server built for linux (gobuild.Server).
	Binary string
	// CACerts is the PEM bundle copied to CABundle; empty: this machine's
	// /etc/ssl/certs/ca-certificates.crt.
	CACerts string
	// Name is the MCP Registry name (server.json's), set as the
	// io.modelcontextprotocol.server.name label and manifest annotation.
	Name string
	// Version is server.json's version (org.opencontainers.image.version).
	Version string
	// Source is the repository URL (org.opencontainers.image.source);
	// Revision the commit (org.opencontainers.image.revision). Empty: left out.
	Source, Revision string
	// Arch is the binary's GOARCH; empty: amd64.
	Arch string
	// Created stamps the config and every file; zero: the Unix epoch, so that
	// the same inputs give the same digest.
	Created time.Time
}

// Build assembles the image in memory.
func Build(o Options) (v1.Image, error) {
	if o.Binary == "" || o.Name == "" {
		return nil, fmt.Errorf("image: Binary and Name are required")
	}
	if o.CACerts == "" {
		o.CACerts = CABundle
	}
	if o.Arch == "" {
		o.Arch = "amd64"
	}
	if o.Created.IsZero() {
		o.Created = time.Unix(0, 0)
	}
	o.Created = o.Created.UTC()
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: the server binary: %w", err)
	}
	certs, err := os.ReadFile(o.CACerts)
	if err != nil {
		return nil, fmt.Errorf("image: the CA bundle: %w", err)
	}
	rootfs, err := rootFS(o.Created, bin, certs)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(rootfs)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("image: layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		History:   v1.History{Created: v1.Time{Time: o.Created}, CreatedBy: "deploy/image: trident-mcp, CA bundle, nonroot user", Comment: "daemonless build"},
		MediaType: types.OCILayer,
	})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created = o.Arch, "linux", v1.Time{Time: o.Created}
	labels := map[string]string{
		mcpregistry.ImageLabel:                 o.Name,
		"org.opencontainers.image.title":       "trident-mcp",
		"org.opencontainers.image.description": "Trident Taxis MCP server: /mcp (fares, bookings) and /mcp/rides (Relay rides)",
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.source":   o.Source,
		"org.opencontainers.image.revision": o.Revision,
	} {
		if v != "" {
			labels[k] = v
		}
	}
	cf.Config = v1.Config{
		Entrypoint:   []string{Entrypoint},
		User:         strconv.Itoa(UID) + ":" + strconv.Itoa(GID),
		WorkingDir:   WorkDir,
		ExposedPorts: map[string]struct{}{Port: {}},
		Env:          []string{"SSL_CERT_FILE=" + CABundle},
		Labels:       labels,
		// The server drains on SIGTERM (SHUTDOWN_DELAY, SHUTDOWN_TIMEOUT).
		StopSignal: "SIGTERM",
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	// The registry's docs name a LABEL (the config's labels); versions of
	// its check have read the manifest's annotations: carry it in both.
	return mutate.Annotations(img, map[string]string{mcpregistry.ImageLabel: o.Name}).(v1.Image), nil
}

// entry is one file or directory of the layer.
type entry struct {
	name string
	mode int64
	uid  int
	dir  bool
	data []byte
}

// rootFS is the layer's tar: directories before what they hold, every entry
// owned and stamped the same on every build.
func rootFS(created time.Time, bin, certs []byte) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", UID, GID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID)
	entries := []entry{
		{name: "etc", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl", mode: 0o755, dir: true},
		{name: "etc/ssl/certs", mode: 0o755, dir: true},
		{name: CABundle[1:], mode: 0o644, data: certs},
		{name: "home", mode: 0o755, dir: true},
		{name: "home/nonroot", mode: 0o700, uid: UID, dir: true},
		{name: "tmp", mode: 0o1777, dir: true},
		{name: "usr", mode: 0o755, dir: true},
		{name: "usr/local", mode: 0o755, dir: true},
		{name: "usr/local/bin", mode: 0o755, dir: true},
		{name: Entrypoint[1:], mode: 0o755, data: bin},
		{name: WorkDir[1:], mode: 0o755, uid: UID, dir: true},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, Size: int64(len(e.data)), ModTime: created, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag, h.Name = tar.TypeDir, e.name+"/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("image: layer tar: %w", err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("image: layer tar: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: layer tar: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteLayout writes img as an OCI image layout in dir, its index entry
// named tag (org.opencontainers.image.ref.name), as `crane push dir ref`
// reads it. dir is created, or replaced when it holds a layout already; any
// other directory with files in it is left alone and refused.
func WriteLayout(dir string, img v1.Image, tag string) error {
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("image: replacing the OCI layout %s: %w", dir, err)
		}
	} else if names, _ := os.ReadDir(dir); len(names) > 0 {
		return fmt.Errorf("image: %s has files and is no OCI layout: not writing there", dir)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	var opts []layout.Option
	if tag != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag}))
	}
	if err := p.AppendImage(img, opts...); err != nil {
		return fmt.Errorf("image: OCI layout %s: %w", dir, err)
	}
	return nil
}

// CompressedSize is what a pull transfers: the manifest's config and layer
// sizes (the layers gzipped).
func CompressedSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	n := m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	return n, nil
}
