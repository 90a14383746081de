package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The two ways a client learns what it can call and whom to ask for a
// token, held to what the server itself says elsewhere: the plain-GET tool
// catalogue to tools/list, and the authorization server the resource
// metadata names to its own RFC 8414 metadata.

var _ = Describe("the tool catalogue (/.mcp/list-tools)", Label("schema"), func() {
	It("lists the tools of tools/list, in the same order, with the same schemas", func() {
		// Anonymous, as the specification's troubleshooting snippet fetches
		// it: the catalogue is for clients that have not called yet.
		ex, err := anonymous().Get(suiteCtx, CatalogueURL(cfg.Endpoint))
		Expect(err).NotTo(HaveOccurred())
		Expect(ex.Status).To(Equal(http.StatusOK), ex.String())
		var catalogue struct {
			Tools []listedTool `json:"tools"`
		}
		Expect(json.Unmarshal(ex.Body, &catalogue)).To(Succeed(), "the catalogue is not a tools/list result\n%s", ex.String())
		listed, _ := listTools()

		names := func(ts []listedTool) []string {
			var out []string
			for _, t := range ts {
				out = append(out, t.Name)
			}
			return out
		}
		Expect(names(catalogue.Tools)).To(Equal(names(listed)), "the catalogue and tools/list name other tools\n%s", ex.String())
		for i, got := range catalogue.Tools {
			want := listed[i]
			for what, d := range map[string]string{
				"inputSchema":  JSONDiff(want.InputSchema, got.InputSchema),
				"outputSchema": JSONDiff(want.OutputSchema, got.OutputSchema),
			} {
				Expect(d).To(BeEmpty(), "%s: the catalogue's %s differs from tools/list's (-tools/list +catalogue)", got.Name, what)
			}
		}
	})
})

var _ = Describe("OAuth discovery", Label("oauth"), func() {
	BeforeEach(func() {
		if serverMode != ModeOAuth {
			Skip("the server under test is public (an anonymous call succeeded); run against a server with MCP_REQUIRE_OAUTH=true")
		}
	})

	It("the authorization server the resource metadata names serves RFC 8414 metadata whose issuer is exactly that URL", func() {
		// The metadata as a client that knows only the endpoint finds it.
		var meta struct {
			AuthorizationServers []string `json:"authorization_servers"`
		}
		var tried []string
		found := false
		for _, u := range ResourceMetadataURLs(cfg.Endpoint) {
			ex, err := anonymous().Get(suiteCtx, u)
			Expect(err).NotTo(HaveOccurred())
			if ex.Status != http.StatusOK {
				tried = append(tried, fmt.Sprintf("%s: HTTP %d", u, ex.Status))
				continue
			}
			Expect(json.Unmarshal(ex.Body, &meta)).To(Succeed(), ex.String())
			found = true
			break
		}
		Expect(found).To(BeTrue(), "no protected-resource metadata:\n  %s", strings.Join(tried, "\n  "))
		Expect(meta.AuthorizationServers).NotTo(BeEmpty(), "OAuth mode, but the metadata names no authorization server")

		// RFC 8414 section 3.3: the issuer in the document must be
		// identical to the URL the client was given, or the client must
		// not use it (the defence against mix-up attacks). Each RFC 8414
		// place that serves a document must say so; at least one must.
		advertised := meta.AuthorizationServers[0]
		served := 0
		tried = nil
		for _, u := range AuthorizationServerMetadataURLs(advertised) {
			ex, err := anonymous().Get(suiteCtx, u)
			Expect(err).NotTo(HaveOccurred())
			if ex.Status != http.StatusOK {
				tried = append(tried, fmt.Sprintf("%s: HTTP %d", u, ex.Status))
				continue
			}
			var as struct {
				Issuer string `json:"issuer"`
			}
			Expect(json.Unmarshal(ex.Body, &as)).To(Succeed(), "%s is not JSON\n%s", u, ex.String())
			Expect(as.Issuer).To(Equal(advertised), "%s names issuer %q, but the resource metadata advertises %q", u, as.Issuer, advertised)
			served++
		}
		Expect(served).To(BeNumerically(">", 0), "the advertised authorization server %s serves no RFC 8414 metadata:\n  %s", advertised, strings.Join(tried, "\n  "))
	})
})

// Every endpoint's RFC 9728 metadata, read in either mode: the
// path-suffixed document a client that knows only the endpoint finds first
// (section 3.1), naming that endpoint as its resource, taking bearer tokens
// in the header only, and listing the scopes the endpoint's tools ask for
// (Relay's, where it lists any; OAuth mode's challenges check that it
// does). In public mode it names no authorization server, and a public
// server that publishes none is skipped, saying so.
var _ = Describe("protected-resource metadata (RFC 9728)", Label("discovery"), func() {
	type metadata struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		BearerMethods        []string `json:"bearer_methods_supported"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	// read finds the document as a client does: the path-suffixed one,
	// then the root one.
	read := func(endpoint string) (metadata, string) {
		GinkgoHelper()
		var tried []string
		for _, u := range ResourceMetadataURLs(endpoint) {
			ex, err := anonymous().Get(suiteCtx, u)
			Expect(err).NotTo(HaveOccurred())
			if ex.Status != http.StatusOK {
				tried = append(tried, fmt.Sprintf("%s: HTTP %d", u, ex.Status))
				continue
			}
			var m metadata
			Expect(json.Unmarshal(ex.Body, &m)).To(Succeed(), "%s is not JSON\n%s", u, ex.String())
			return m, ex.String()
		}
		if serverMode == ModePublic {
			// A public server need not publish the document (it names no
			// authorization server); one that does is checked in full.
			Skip(fmt.Sprintf("this public server publishes no protected-resource metadata for %s:\n  %s", endpoint, strings.Join(tried, "\n  ")))
		}
		Fail(fmt.Sprintf("no protected-resource metadata for %s:\n  %s", endpoint, strings.Join(tried, "\n  ")))
		return metadata{}, ""
	}
	check := func(endpoint, resource string, m metadata, doc string) {
		GinkgoHelper()
		Expect(SameURL(m.Resource, resource)).To(BeTrue(), "resource %q, want %q\n%s", m.Resource, resource, doc)
		Expect(m.BearerMethods).To(Equal([]string{"header"}), "bearer tokens in the Authorization header only\n%s", doc)
		if serverMode == ModePublic {
			Expect(m.AuthorizationServers).To(BeEmpty(), "a public server names no authorization server\n%s", doc)
		} else {
			Expect(m.AuthorizationServers).NotTo(BeEmpty(), "OAuth mode, but no authorization server\n%s", doc)
		}
	}

	It("describes the Trident endpoint", func() {
		m, doc := read(cfg.Endpoint)
		check(cfg.Endpoint, cfg.Resource, m, doc)
	})

	It("describes the Relay endpoint, with Relay's scopes", func() {
		if ridesURL() == "" || !ridesServed() {
			Skip("this server serves no Relay endpoint")
		}
		m, doc := read(ridesURL())
		// Relay's resource is the server's public base URL and Relay's
		// path (RELAY_RESOURCE_URL's default), as Trident's is
		// --resource: the same as ridesURL() unless a proxy stands between.
		resource := ridesURL()
		if u, err := url.Parse(ridesURL()); err == nil {
			resource = strings.TrimRight(cfg.PublicBaseURL, "/") + u.Path
		}
		check(ridesURL(), resource, m, doc)
		if serverMode == ModeOAuth || len(m.ScopesSupported) > 0 {
			for _, s := range ridesScopes {
				Expect(m.ScopesSupported).To(ContainElement(s), "the scope Relay's tools ask for\n%s", doc)
			}
		}
	})
})
