// Command build-image builds the server's container image without a Docker
// daemon and writes it as an OCI image layout: the static server binary on
// an empty base, running as UID 65532, labelled with server.json's name and
// version. Run it in the deploy module (make image does):
//
//	go run ./cmd/build-image -out ../bin/oci
//	go tool crane push ../bin/oci ghcr.io/tridenttaxis/trident-mcp:0.1.0
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tridenttaxis/trident-mcp/deploy"
	"github.com/tridenttaxis/trident-mcp/deploy/image"
	"github.com/tridenttaxis/trident-mcp/deploy/internal/gobuild"
	"github.com/tridenttaxis/trident-mcp/deploy/mcpregistry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "build-image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("build-image", flag.ContinueOnError)
	out := fs.String("out", "oci", "directory of the OCI image layout to write (replaced if it is one)")
	arch := fs.String("arch", "amd64", "GOARCH of the image")
	revision := fs.String("revision", "", "commit to record as org.opencontainers.image.revision")
	created := fs.String("created", "", "RFC 3339 creation time (default the Unix epoch: the same source gives the same digest)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	entry, err := mcpregistry.Parse(deploy.ServerJSON)
	if err != nil {
		return err
	}
	ref := entry.OCIImage()
	_, tag, ok := strings.Cut(ref[strings.LastIndex(ref, "/")+1:], ":")
	if !ok {
		return fmt.Errorf("server.json's OCI package %q has no tag", ref)
	}
	var when time.Time
	if *created != "" {
		if when, err = time.Parse(time.RFC3339, *created); err != nil {
			return fmt.Errorf("-created: %w", err)
		}
	}
	root, err := gobuild.RepoRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "build-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "trident-mcp")
	if err := gobuild.Server(ctx, root, *arch, bin); err != nil {
		return err
	}
	var source string
	if entry.Repository != nil {
		source = entry.Repository.URL
	}
	img, err := image.Build(image.Options{
		Binary: bin, Name: entry.Name, Version: entry.Version, Arch: *arch,
		Source: source, Revision: *revision, Created: when,
	})
	if err != nil {
		return err
	}
	if err := image.WriteLayout(*out, img, tag); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	size, err := image.CompressedSize(img)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s (%s), %.1f MB compressed; push with: go tool crane push %s %s\n",
		*out, ref, digest, float64(size)/1e6, *out, ref)
	return nil
}
