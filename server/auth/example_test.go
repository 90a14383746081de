package auth_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// In public mode one GET tells a client that no token is needed.
func ExampleProtectedResourceMetadataHandler() {
	h := auth.ProtectedResourceMetadataHandler(auth.MetadataConfig{
		RequireOAuth:          false, // MCP_REQUIRE_OAUTH unset
		ResourceURL:           "https://tridenttaxis.online/mcp",
		ResourceDocumentation: "https://tridenttaxis.online/mcp-docs",
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", auth.MetadataPath+"/mcp", nil))
	fmt.Println(rec.Body)
	// Output:
	// {"resource":"https://tridenttaxis.online/mcp","authorization_servers":[],"bearer_methods_supported":["header"],"resource_documentation":"https://tridenttaxis.online/mcp-docs","authorization_required":false}
}

// Every refusal, whatever its reason, is this one answer.
func ExampleWriteUnauthorized() {
	rec := httptest.NewRecorder()
	auth.WriteUnauthorized(rec, "https://tridenttaxis.online/.well-known/oauth-protected-resource")
	fmt.Println(rec.Code)
	fmt.Println(rec.Header().Get("WWW-Authenticate"))
	fmt.Println(rec.Body)
	// Output:
	// 401
	// Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata="https://tridenttaxis.online/.well-known/oauth-protected-resource"
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Unauthorized: bearer token is missing, expired, or failed verification"}}
}
