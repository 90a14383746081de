# The front door of the project. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO        ?= go
NODE      := node_modules/.bin/node
ADDR      ?= :8080
ENDPOINT  ?= http://localhost:8080/mcp
# The MCP endpoints, each with its contract folder contracts/<name>/, its
# generated code in gen/<name>/ and its typed client in client/<name>/; a new
# endpoint is one more name here.
ENDPOINTS := trident relay
comma := ,
empty :=
space := $(empty) $(empty)
GENERATED := gen collections README.md contracts/relay/schemas $(foreach ep,$(ENDPOINTS),client/$(ep)/tools.gen.go)

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-32s %s\n", $$1, $$2}'

.PHONY: run
run: ## Run the server on ADDR (default :8080) with embedded defaults (public mode)
	ADDR=$(ADDR) $(GO) run ./server/cmd/trident-mcp

.PHONY: run-oauth
run-oauth: ## Run the server in OAuth mode beside the dev OAuth issuer (127.0.0.1:9999)
	scripts/run-oauth.sh

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: npm
npm: node_modules/.installed ## Install the pinned Node tooling (newman, tsc, conformance, redocly, ajv)

.PHONY: generate
generate: ## Regenerate every file derived from contracts/
	$(GO) run ./tools/cmd/gen-registry-enums -dir contracts/relay
	$(GO) run ./tools/cmd/gen-contracts -errcodes -endpoints $(subst $(space),$(comma),$(ENDPOINTS)) -out gen/errcodes
	for ep in $(ENDPOINTS); do \
	  $(GO) run ./tools/cmd/gen-contracts -endpoint $$ep -out gen/$$ep; \
	  $(GO) run ./tools/cmd/gen-client -endpoint $$ep -out client/$$ep/tools.gen.go; \
	done
	$(GO) run ./tools/cmd/gen-collections -out collections
	for ep in $(ENDPOINTS); do \
	  if [ -f gen/$$ep/api/cfg.yaml ]; then (cd gen/$$ep/api && $(GO) tool oapi-codegen -config cfg.yaml ../../../contracts/openapi.yaml); fi; \
	done
	$(GO) generate ./...
	$(GO) test -count=1 -run '^TestREADMESettings$$' ./server/cmd/trident-mcp -update >/dev/null

.PHONY: check-generated
check-generated: ## Fail when generated files are stale (regenerates into a temporary tree)
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	tar --exclude=./node_modules --exclude=./.git -cf - . | tar -C "$$tmp" -xf -; \
	$(MAKE) -C "$$tmp" generate >/dev/null; \
	status=0; for p in $(GENERATED); do \
	  [ -e "$$p" ] || [ -e "$$tmp/$$p" ] || continue; \
	  diff -ru "$$p" "$$tmp/$$p" || status=1; \
	done; \
	if [ $$status -ne 0 ]; then echo "generated files are stale: run 'make generate' and commit" >&2; exit 1; fi; \
	echo "generated files are up to date"

.PHONY: vet
vet: ## go vet every package
	$(GO) vet ./...

.PHONY: test
test: npm check-generated vet ## Everything CI runs: generated-file check, vet, unit and integration tests, conformance, tool checks
	$(GO) test -count=1 ./...
	$(MAKE) check-ts check-schemas-ajv lint-openapi test-collections test-conformance test-conformance-ts test-mcp-conformance test-inspector test-client-conformance test-authorization-conformance test-run-oauth test-browser test-deploy

.PHONY: test-conformance
test-conformance: ## Run the ginkgo conformance suite against a freshly started local server
	conformance/run-local.sh

.PHONY: test-conformance-ts
test-conformance-ts: npm ## Run the conformance suite against the independent TypeScript-SDK server (e2e/ts/trident-server)
	e2e/ts/trident-server/run-conformance.sh

.PHONY: test-mcp-conformance
test-mcp-conformance: npm ## Run the official MCP conformance suite's server scenarios (0.1.16 on /mcp; the 0.2 line at both wires on the fixtures endpoint /mcp/conformance, /mcp and /mcp/rides) against a local server
	bash server/conformance.sh

.PHONY: test-inspector
test-inspector: npm ## Run MCP Inspector 2.12's CLI in both protocol eras (2025-11-25 handshake, 2026-07-28 stateless) against a local server
	bash scripts/inspector.sh

.PHONY: test-client-conformance
test-client-conformance: npm ## Run the official MCP conformance suite's client scenarios against the trident CLI (0.1.16, and the 0.2 line at 2025-11-25 and 2026-07-28)
	bash client/conformance/run.sh

.PHONY: test-authorization-conformance
test-authorization-conformance: npm ## Run the official MCP conformance suite's authorization mode (0.2 line) against the dev issuer, with a DCR client and a client ID metadata document
	bash tools/dev-issuer/conformance.sh

.PHONY: test-run-oauth
test-run-oauth: ## Start the server in OAuth mode beside the dev issuer and walk docs/oauth.md's curl flow
	scripts/run-oauth.sh --check

.PHONY: test-browser
test-browser: npm ## Drive /mcp-docs in headless Chromium (Debian's chromium, playwright-core) against public and OAuth-mode servers
	TRIDENT_BROWSER_TEST=1 $(GO) test -count=1 -run TestDocsPageInBrowser ./e2e/browser/

KUBE_VERSION ?= 1.30.0
HELM_VALUES  ?=
.PHONY: test-deploy
test-deploy: ## The deploy/ module: Helm chart linted and rendered (strict Kubernetes decoding, pods run), server.json against the MCP Registry's rules, the OCI image built and run
	cd deploy && $(GO) vet ./...
	@# build-image compiles the static server as the tests do, once: their two
	@# packages then find it in the build cache instead of compiling it side by side.
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; cd deploy && $(GO) run ./cmd/build-image -out "$$tmp/oci"
	cd deploy && $(GO) test -count=1 -timeout 20m ./...
	cd deploy && $(GO) tool helm lint --strict --kube-version $(KUBE_VERSION) helm/trident-mcp
	cd deploy && $(GO) tool helm lint --strict --kube-version $(KUBE_VERSION) -f helm/trident-mcp/examples/replicated.yaml helm/trident-mcp

.PHONY: image
image: ## Build the server's OCI image into bin/oci without a Docker daemon (then: cd deploy && go tool crane push ../bin/oci IMAGE)
	cd deploy && $(GO) run ./cmd/build-image -out ../bin/oci

.PHONY: helm-template
helm-template: ## Print the Helm chart's manifests, with HELM_VALUES=file.yaml over its defaults
	cd deploy && $(GO) tool helm template trident-mcp helm/trident-mcp --kube-version $(KUBE_VERSION) $(if $(HELM_VALUES),-f $(abspath $(HELM_VALUES)))

.PHONY: conformance
conformance: ## Run the conformance suite against ENDPOINT (default http://localhost:8080/mcp)
	conformance/run-local.sh --endpoint $(ENDPOINT)

.PHONY: check-ts
check-ts: npm ## Type-check the generated TypeScript declarations
	for ep in $(ENDPOINTS); do $(NODE) node_modules/.bin/tsc --noEmit --strict gen/$$ep/ts/mcp-tools.d.ts; done

.PHONY: check-schemas-ajv
check-schemas-ajv: npm ## Compile every JSON Schema with ajv (strict Draft 2020-12) as a second opinion
	for ep in $(ENDPOINTS); do $(NODE) tools/js/check-schemas.mjs $$ep; done

.PHONY: lint-openapi
lint-openapi: npm ## Lint the OpenAPI contract with redocly
	$(NODE) node_modules/.bin/redocly lint --config contracts/redocly.yaml contracts/openapi.yaml

.PHONY: test-collections
test-collections: npm ## Run the whole Postman collection with newman against a public and an OAuth-mode server (with a token), and the Insomnia export's requests
	scripts/test-collections.sh

SOAK_DURATION ?= 3m
.PHONY: soak
soak: ## Drive the server binary for SOAK_DURATION (default 3m) at 64 connections with mixed good, bad and SSE calls; fail on a failed call or a growing RSS, heap, goroutine or fd count (not part of test)
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -o "$$tmp/trident-mcp" ./server/cmd/trident-mcp && \
	$(GO) run ./tools/cmd/soak -bin "$$tmp/trident-mcp" -d $(SOAK_DURATION)

.PHONY: bench
bench: ## Go benchmarks, then estimate_fare under load (trident-mcp vs an mcp-go peer vs a net/http floor, public and OAuth) and the Relay tools on SQLite and PostgreSQL beside it, 1/16/64 conns
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./tools/cmd/loadbench
