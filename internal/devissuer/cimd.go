package devissuer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document;
// MCP 2025-11-25 "Client ID Metadata Documents", the registration MCP
// 2026-07-28 prefers over dynamic registration, which it deprecates): a
// client_id that is an https URL names a JSON document of the client's
// metadata, which the authorization server fetches instead of looking the
// client up. Supabase's OAuth server accepts them; so does the dev issuer.
//
// The fetch is the authorization server reaching out to a URL a stranger
// chose, so it is bounded: at most maxClientMetadataBytes, within
// clientMetadataTimeout, no redirects followed, only to a public address
// (loopback only with Options.DevClientMetadataLoopback, for tests that
// serve the document themselves), and answers are kept clientMetadataTTL so
// that the authorize and token requests of one flow fetch it once.
const (
	maxClientMetadataBytes = 5 << 10 // the size MCP 2025-11-25 suggests
	clientMetadataTimeout  = 5 * time.Second
	clientMetadataTTL      = time.Minute
	clientMetadataCached   = 1024
)

// metadataDocuments fetches, checks and keeps client ID metadata documents.
type metadataDocuments struct {
	hc            *http.Client
	allowLoopback bool
	cache         *expirable.LRU[string, *Client]
}

func newMetadataDocuments(allowLoopback bool) *metadataDocuments {
	dialer := &net.Dialer{Timeout: clientMetadataTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		return checkFetchAddress(address, allowLoopback)
	}}
	transport := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: clientMetadataTimeout, ResponseHeaderTimeout: clientMetadataTimeout}
	return &metadataDocuments{
		hc: &http.Client{
			Transport: transport,
			Timeout:   clientMetadataTimeout,
			// The draft: the server "MUST NOT automatically follow HTTP
			// redirects" when fetching the document.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		allowLoopback: allowLoopback,
		cache:         expirable.NewLRU[string, *Client](clientMetadataCached, nil, clientMetadataTTL),
	}
}

// checkFetchAddress refuses to connect to an address inside the network the
// issuer runs in (private, link-local, unspecified, multicast), which a
// client_id would otherwise let anyone probe, and to loopback unless the dev
// option allows it. The dialer calls it after name resolution, for every
// address tried.
func checkFetchAddress(address string, allowLoopback bool) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return fmt.Errorf("devissuer: %q is not an IP address", host)
	case ip.IsLoopback():
		if !allowLoopback {
			return fmt.Errorf("devissuer: client metadata at loopback address %s is accepted in dev mode only", ip)
		}
	case ip.IsPrivate(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsUnspecified(), ip.IsMulticast():
		return fmt.Errorf("devissuer: client metadata at internal address %s is refused", ip)
	}
	return nil
}

// isMetadataDocumentID reports whether a client_id names a metadata
// document rather than a registered client (whose ids are UUIDs).
func isMetadataDocumentID(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// clientMetadataDocument is what the dev issuer reads of a document: RFC
// 7591 client metadata plus client_id.
type clientMetadataDocument struct {
	ClientID              string   `json:"client_id"`
	ClientSecret          *string  `json:"client_secret"`
	ClientSecretExpiresAt *int64   `json:"client_secret_expires_at"`
	RedirectURIs          []string `json:"redirect_uris"`
	TokenAuthMethod       string   `json:"token_endpoint_auth_method"`
	GrantTypes            []string `json:"grant_types"`
	ResponseTypes         []string `json:"response_types"`
	ClientName            string   `json:"client_name"`
	ClientURI             string   `json:"client_uri"`
	LogoURI               string   `json:"logo_uri"`
	Scope                 string   `json:"scope"`
}

// client returns the public client the document at id describes.
func (m *metadataDocuments) client(ctx context.Context, id string) (*Client, error) {
	if c, ok := m.cache.Get(id); ok {
		return c, nil
	}
	if err := m.checkURL(id); err != nil {
		return nil, err
	}
	doc, err := m.fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	// The draft: client_id "MUST match the URL of the document using
	// simple string comparison"; no shared secret can exist, so neither a
	// secret nor a secret-based token endpoint method may be claimed.
	switch {
	case doc.ClientID != id:
		return nil, fmt.Errorf("the document's client_id %q is not its URL %q", doc.ClientID, id)
	case doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil:
		return nil, errors.New("the document carries a client_secret, which a client ID metadata document must not")
	case doc.TokenAuthMethod != "" && doc.TokenAuthMethod != "none":
		return nil, fmt.Errorf("token_endpoint_auth_method %q is not supported for client ID metadata documents (none)", doc.TokenAuthMethod)
	}
	req := RegistrationRequest{
		RedirectURIs: doc.RedirectURIs, TokenEndpointAuthMethod: "none", GrantTypes: doc.GrantTypes, ResponseTypes: doc.ResponseTypes,
		ClientName: doc.ClientName, ClientURI: doc.ClientURI, LogoURI: doc.LogoURI, Scope: doc.Scope,
	}
	if err := validateRegistration(&req); err != nil {
		return nil, err
	}
	c := &Client{
		ID: id, Name: req.ClientName, ClientURI: req.ClientURI, LogoURI: req.LogoURI,
		RedirectURIs: req.RedirectURIs, GrantTypes: req.GrantTypes, ResponseTypes: req.ResponseTypes,
		TokenEndpointAuthMethod: req.TokenEndpointAuthMethod, Scope: req.Scope,
	}
	m.cache.Add(id, c)
	return c, nil
}

// checkURL applies the draft's rules for a client_id URL: https (http on
// loopback in dev mode), a host, a path, no fragment, no credentials, no
// dot segments.
func (m *metadataDocuments) checkURL(id string) error {
	u, err := url.Parse(id)
	if err != nil {
		return fmt.Errorf("client_id %q does not parse: %v", id, err)
	}
	switch {
	case u.Scheme == "http" && m.allowLoopback && isLoopbackHost(u.Hostname()):
	case u.Scheme != "https":
		return fmt.Errorf("client_id %q: a client ID metadata document must be served over https", id)
	}
	switch {
	case u.Host == "":
		return fmt.Errorf("client_id %q has no host", id)
	case u.Path == "" || u.Path == "/":
		return fmt.Errorf("client_id %q has no path", id)
	case u.Fragment != "" || strings.Contains(id, "#"):
		return fmt.Errorf("client_id %q must not have a fragment", id)
	case u.User != nil:
		return fmt.Errorf("client_id %q must not carry credentials", id)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("client_id %q must not have dot segments", id)
		}
	}
	return nil
}

// fetch GETs the document: 200, a JSON media type, a JSON object of at most
// maxClientMetadataBytes.
func (m *metadataDocuments) fetch(ctx context.Context, id string) (*clientMetadataDocument, error) {
	ctx, cancel := context.WithTimeout(ctx, clientMetadataTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the client metadata document: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the client metadata document: HTTP %d", resp.StatusCode)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil, fmt.Errorf("the client metadata document is %q, not JSON", resp.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxClientMetadataBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the client metadata document: %w", err)
	}
	if len(body) > maxClientMetadataBytes {
		return nil, fmt.Errorf("the client metadata document is larger than %d bytes", maxClientMetadataBytes)
	}
	var doc clientMetadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the client metadata document is not a JSON object of client metadata: %w", err)
	}
	return &doc, nil
}
