// Package deploy holds what ships the server beyond its binary: the MCP
// Registry entry (server.json, checked by package mcpregistry), the Helm
// chart (helm/trident-mcp, linted and rendered by the tests in helm/) and a
// daemonless OCI image builder (package image, command cmd/build-image).
//
// It is a Go module of its own so that Helm's, Kubernetes' and
// go-containerregistry's dependencies stay out of the server's go.mod; it
// builds the server from the repository root above it. `make test-deploy`
// runs its tests.
package deploy

import _ "embed"

// ServerJSON is the MCP Registry entry, server.json beside this file: the
// server's reverse-DNS name (also the image's io.modelcontextprotocol.server.name
// label), version, remotes and OCI package.
//
//go:embed server.json
var ServerJSON []byte
